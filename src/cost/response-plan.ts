import { reported } from './cost-math.js';
import type { CostEstimate } from './types.js';

/** One priced field of a planned object. */
export interface PlannedField {
  readonly responseKey: string;
  /** Field weight + argument and directive-argument weights (the `FieldCall`'s `callCost`). */
  readonly callCost: number;
  /** List levels above the named type. */
  readonly listDepth: number;
  /** The leaf's type weight, paid per non-null value; undefined when the field returns an object. */
  readonly leafWeight: number | undefined;
  /** The object below it; undefined for a leaf. */
  readonly object: PlannedObject | undefined;
}

/**
 * The fields of one object type under one selection that can add to the cost (a leaf that weighs
 * nothing and costs nothing to call is left out), in the response's order.
 */
export interface PlannedObject {
  readonly typeWeight: number;
  readonly fields: readonly PlannedField[];
}

/**
 * Bytes one planned field is counted for in a cache: the field and its slot in the array, beyond
 * its response key's characters. An upper estimate, so that a cache bounded in bytes stays so.
 */
const FIELD_BYTES = 96;
const OBJECT_BYTES = 64;

/**
 * The response walk of one operation, compiled once: the priced fields of every object the
 * operation selects, as plain numbers and response keys (no AST node, no schema element, so a cache
 * entry keeps nothing of the document alive). It prices exactly what `ActualCoster` prices for a
 * response of a query that no error touched and that is complete, for operations whose every
 * composite field returns an object type; the coster builds it (`ActualCoster.plan`) and answers
 * every other response itself.
 */
export class ResponsePlan {
  /** Bytes the plan is counted for (see `FIELD_BYTES`). */
  readonly bytes: number;
  readonly #root: PlannedObject;
  #typeCost = 0;
  #fieldCost = 0;

  constructor(root: PlannedObject, bytes: number) {
    this.#root = root;
    this.bytes = bytes;
  }

  /** Bytes a plan of `objects` objects and these fields is counted for. */
  static bytesOf(objects: number, fields: number, keyCharacters: number): number {
    return OBJECT_BYTES * (objects + 1) + FIELD_BYTES * fields + 2 * keyCharacters;
  }

  /** The cost of `data`, the complete, error-free response of the operation the plan was built for. */
  cost(data: Readonly<Record<string, unknown>>): CostEstimate {
    this.#object(this.#root, data);
    return { typeCost: reported(Math.max(0, this.#typeCost)), fieldCost: reported(this.#fieldCost) };
  }

  /** Leaves the object's cost in `#typeCost` and `#fieldCost`. */
  #object(plan: PlannedObject, value: Readonly<Record<string, unknown>>): void {
    let typeCost = plan.typeWeight;
    let fieldCost = 0;
    const { fields } = plan;
    for (let index = 0; index < fields.length; index++) {
      const field = fields[index] as PlannedField;
      const returned = value[field.responseKey];
      // Execution writes every key it collected (null, never undefined): the own-key check is the exception.
      if (returned === undefined && !Object.hasOwn(value, field.responseKey)) continue;
      this.#value(field, field.listDepth, returned);
      typeCost += Math.max(0, this.#typeCost);
      fieldCost += Math.max(0, field.callCost + this.#fieldCost);
    }
    this.#typeCost = typeCost;
    this.#fieldCost = fieldCost;
  }

  /** Leaves the cost of what `field` returned, `depth` list levels above its named type. */
  #value(field: PlannedField, depth: number, value: unknown): void {
    this.#typeCost = 0;
    this.#fieldCost = 0;
    if (value === null || value === undefined) return;
    if (depth > 0) {
      if (!Array.isArray(value)) return;
      if (depth === 1 && (field.object === undefined || field.object.fields.length === 0)) {
        this.#typeCost = weightOfItems(field, value);
        return;
      }
      let typeCost = 0;
      let fieldCost = 0;
      for (let index = 0; index < value.length; index++) {
        this.#value(field, depth - 1, value[index]);
        typeCost += this.#typeCost;
        fieldCost += this.#fieldCost;
      }
      this.#typeCost = typeCost;
      this.#fieldCost = fieldCost;
      return;
    }
    const { object } = field;
    if (object === undefined) {
      this.#typeCost = field.leafWeight as number;
      return;
    }
    if (typeof value === 'object') this.#object(object, value as Readonly<Record<string, unknown>>);
  }
}

/**
 * The items of a list whose items are priced by their type's weight alone (leaves, or objects
 * whose selection prices nothing): that weight for every item that is not null (an object item
 * only where it is an object).
 */
function weightOfItems(field: PlannedField, items: readonly unknown[]): number {
  const { object } = field;
  const weight = object === undefined ? (field.leafWeight as number) : object.typeWeight;
  // Added item by item, as the walk adds them (a fractional weight times a count may round otherwise).
  let typeCost = 0;
  for (let index = 0; index < items.length; index++) {
    const item = items[index];
    if (item !== null && item !== undefined && (object === undefined || typeof item === 'object')) typeCost += weight;
  }
  return typeCost;
}
