import { OperationTypeNode, SchemaMetaFieldDef, TypeMetaFieldDef, isInterfaceType, isObjectType } from 'graphql';
import type { FieldNode, GraphQLCompositeType, GraphQLField, SelectionSetNode } from 'graphql';
import { argumentsWeight, requestValues, writtenArguments } from './apollo-arguments.js';
import type { ApolloField, ApolloSelections } from './apollo-selections.js';
import { ApolloSizedFields } from './apollo-sized-fields.js';
import type { CostTable, FieldCostRule } from './cost-table.js';
import { reported, scale, ZERO_COST, type Cost } from './cost-math.js';
import type { EstimateSettings } from './estimate.js';
import { expectedListSize, fieldDefinition } from './field-call.js';
import type { ResolvedOperation } from './operation.js';
import type { CostEstimate, FieldCostBreakdown } from './types.js';

type AnyField = GraphQLField<unknown, unknown>;

/** Apollo Router's `list_size` is an unsigned 32-bit number read as a signed one: it saturates here. */
const LARGEST_LIST_SIZE = 2 ** 31 - 1;

/** What a mutation costs before its fields, in Apollo Router's demand control. */
export const MUTATION_BASE_COST = 10;

/** One enclosing `@listSize(sizedFields:)` and the size it hands down in this request. */
interface SizedBy {
  readonly fields: ApolloSizedFields;
  readonly size: number | undefined;
}

/**
 * The sizes enclosing fields hand to a selection: the `sizedFields` of the field the selection is
 * below (`parent`) and what continues from further up (`inherited`), as the router passes them.
 */
export interface ApolloScope {
  readonly parent: readonly SizedBy[];
  readonly inherited: readonly SizedBy[];
  /** Names the scope in memo keys. */
  readonly key: string;
}

export const ROOT_SCOPE: ApolloScope = { parent: [], inherited: [], key: '' };

/** One field at one place: how many values it returns and the scopes of what is below it. */
export interface ApolloSizing {
  readonly definition: AnyField;
  readonly rule: FieldCostRule;
  /** The list size (1 for a field that does not return a list). */
  readonly count: number;
  /** The scope of the field's selection. */
  readonly below: ApolloScope;
  /** The scope of the selection its `@join__field(requires:)` names. */
  readonly required: ApolloScope;
}

/** Where a breakdown entry goes: response path so far and the product of enclosing list sizes. */
interface Trace {
  readonly path: string;
  readonly multiplier: number;
  readonly sink: FieldCostBreakdown[];
}

/**
 * The estimated cost of one operation as Apollo Router's demand control computes it (its
 * `StaticCostCalculator` over a supergraph or a plain schema), split in two:
 *
 * - A field costs `count × (weight + its selection) + its arguments + its required selection`.
 *   The weight is the field's own `@cost`, else the `@cost` of the type it returns, else 1 for an
 *   object, interface or union and 0 for a scalar or enum (an interface or union has no weight of
 *   its own: it is 1 whatever its members weigh). A field's `@cost` is not inherited from the
 *   interface field it implements, and neither is its `@listSize`.
 * - `count` is 1 for a field that does not return a list (a nested list `[[T]]` is one list):
 *   else the size an enclosing field's `sizedFields` gives this field by name, else the largest
 *   size of this field's own `@listSize` rules (`sizedFields` ones included) and of the paths that
 *   continue through it, else `defaultListSize` (capped at 2³¹−1, Apollo's `list_size`).
 *   Slicing arguments are read as written (see `writtenArguments`); a list-typed one counts its
 *   length; a negative size counts as 0 (the router on its `dev` branch does not clamp it).
 * - Selections are walked as written (see `ApolloSelections`): the root operation type weighs 0,
 *   fragments are all counted whatever their type condition, duplicates count twice.
 * - Arguments: see `argumentsWeight`. A mutation costs `MUTATION_BASE_COST` more.
 * - A supergraph field with `@join__field(requires:)` also pays for the required selection, priced
 *   on its own type with the field's own `sizedFields`, once per field (not per list item).
 *
 * typeCost holds the returned types' weights times their counts, fieldCost the fields' own `@cost`
 * weights times their counts, the argument weights and the mutation's base cost, so that
 * `typeCost + fieldCost` is the router's number. Weights may be negative, as in the router; only a
 * total below 0 is reported as 0 (a charge is never negative).
 *
 * The cost of a (selection set, scope) is memoized, so the work is linear in the distinct
 * selections (the breakdown disables the memo).
 */
export class ApolloEstimator {
  readonly #table: CostTable;
  readonly #operation: ResolvedOperation;
  readonly #selections: ApolloSelections;
  readonly #settings: EstimateSettings;
  readonly #listSize: number;
  readonly #values: Readonly<Record<string, unknown>>;
  readonly #memo = new Map<string, Cost>();
  readonly #selectionIds = new Map<SelectionSetNode, number>();
  readonly #sizings = new Map<FieldNode, Map<string, ApolloSizing>>();
  readonly #argumentWeights = new Map<FieldNode, number>();

  constructor(
    table: CostTable,
    operation: ResolvedOperation,
    selections: ApolloSelections,
    settings: EstimateSettings,
  ) {
    this.#table = table;
    this.#operation = operation;
    this.#selections = selections;
    this.#settings = settings;
    this.#listSize = Math.min(settings.defaultListSize, LARGEST_LIST_SIZE);
    this.#values = requestValues(operation.operation, operation.rawVariables);
  }

  estimate(breakdown: boolean): CostEstimate {
    const sink: FieldCostBreakdown[] | undefined = breakdown ? [] : undefined;
    const trace = sink === undefined ? undefined : { path: '', multiplier: 1, sink };
    const root = this.selectionCost(
      this.#operation.operation.selectionSet,
      this.#operation.rootType,
      ROOT_SCOPE,
      trace,
    );
    const base = this.#operation.operation.operation === OperationTypeNode.MUTATION ? MUTATION_BASE_COST : 0;
    const estimate = reportedTotal({ typeCost: root.typeCost, fieldCost: root.fieldCost + base });
    if (sink !== undefined) estimate.fields = sink;
    return estimate;
  }

  /** The cost of a selection set (of type `parent`) in a scope. */
  selectionCost(
    selectionSet: SelectionSetNode,
    parent: GraphQLCompositeType,
    scope: ApolloScope,
    trace: Trace | undefined,
  ): Cost {
    const key = trace === undefined ? `${this.#idOf(selectionSet)}|${scope.key}` : undefined;
    const cached = key === undefined ? undefined : this.#memo.get(key);
    if (cached !== undefined) return cached;
    let typeCost = 0;
    let fieldCost = 0;
    for (const field of this.#selections.fieldsOf(selectionSet, parent)) {
      const cost = this.#fieldCost(field, scope, trace);
      typeCost += scale(field.times, cost.typeCost);
      fieldCost += scale(field.times, cost.fieldCost);
    }
    const cost = { typeCost, fieldCost };
    if (key !== undefined) this.#memo.set(key, cost);
    return cost;
  }

  /** One field at one place, as the estimate prices it (what `actual()` charges for a nulled one). */
  fieldEstimate(field: ApolloField, scope: ApolloScope): Cost {
    return this.#fieldCost({ ...field, times: 1 }, scope, undefined);
  }

  /**
   * One value of a list field, as the estimate prices it: its weight and its selection; for a
   * value that is itself a list (`[[T]]`), the field's whole list size of them.
   */
  valueEstimate(field: ApolloField, scope: ApolloScope, nested: boolean): Cost {
    const definition = this.definitionOf(field);
    if (definition === undefined) return ZERO_COST;
    const sizing = this.sizing(field, definition, scope);
    const value = this.#valueCost(field.node, sizing, undefined);
    const count = nested ? sizing.count : 1;
    return { typeCost: scale(count, value.typeCost), fieldCost: scale(count, value.fieldCost) };
  }

  /** The schema field a walked field resolves, or undefined (unknown, or free introspection). */
  definitionOf(field: ApolloField): AnyField | undefined {
    const { parent, node } = field;
    const name = node.name.value;
    const definition = isObjectType(parent)
      ? fieldDefinition(this.#table.schema, parent, name)
      : isInterfaceType(parent)
        ? (parent.getFields()[name] as AnyField | undefined)
        : undefined;
    if (definition === undefined) return undefined;
    const introspection = definition === SchemaMetaFieldDef || definition === TypeMetaFieldDef;
    return introspection && this.#settings.introspectionIsFree ? undefined : definition;
  }

  /** What the arguments written on a field weigh (see `argumentsWeight`). */
  argumentsOf(node: FieldNode, definition: AnyField): number {
    let weight = this.#argumentWeights.get(node);
    if (weight === undefined) {
      weight = argumentsWeight(this.#table, definition, node, this.#values);
      this.#argumentWeights.set(node, weight);
    }
    return weight;
  }

  /** A field's weight, as the router reads it, and whether it is the field's own `@cost`. */
  weightOf(rule: FieldCostRule, fallback: number): { readonly weight: number; readonly own: boolean } {
    if (rule.ownWeight !== undefined) return { weight: rule.ownWeight, own: true };
    return { weight: this.#table.declaredTypeWeight(rule.namedType) ?? fallback, own: false };
  }

  /**
   * How many values a field returns at one place, and the scopes below it.
   * @throws {CostAnalysisError} `COST_QUERY_PARSE_FAILURE` as `expectedListSize`.
   */
  sizing(field: ApolloField, definition: AnyField, scope: ApolloScope): ApolloSizing {
    let byScope = this.#sizings.get(field.node);
    const cached = byScope?.get(scope.key);
    if (cached !== undefined) return cached;
    const rule = this.#table.field(definition);
    const name = definition.name;
    const own: SizedBy[] = [];
    let ownSize: number | undefined;
    if (rule.ownListSizes.length > 0) {
      const args = writtenArguments(definition, field.node, this.#values);
      for (const listSize of rule.ownListSizes) {
        const size = expectedListSize(listSize, args, field.parent, definition, field.node, this.#settings.maxListSize);
        ownSize = largest(ownSize, size);
        if (listSize.sizedFields !== undefined) own.push({ fields: ApolloSizedFields.of(listSize.sizedFields), size });
      }
    }
    const upstream = sizeGiven(scope.parent, name) ?? sizeGiven(scope.inherited, name);
    const descended: SizedBy[] = [];
    for (const enclosing of [...scope.parent, ...scope.inherited]) {
      const fields = enclosing.fields.descend(name);
      if (fields !== undefined) descended.push({ fields, size: enclosing.size });
    }
    let pathSize = ownSize;
    for (const path of descended) pathSize = largest(pathSize, path.size);
    const count =
      rule.listDepth === 0 ? 1 : (upstream ?? pathSize ?? this.#table.introspectionSize(definition) ?? this.#listSize);
    const sizing = { definition, rule, count, below: scopeOf(own, descended), required: scopeOf(own, []) };
    if (byScope === undefined) {
      byScope = new Map();
      this.#sizings.set(field.node, byScope);
    }
    byScope.set(scope.key, sizing);
    return sizing;
  }

  #fieldCost(field: ApolloField, scope: ApolloScope, trace: Trace | undefined): Cost {
    this.#selections.tick();
    const definition = this.definitionOf(field);
    if (definition === undefined) return ZERO_COST;
    const sizing = this.sizing(field, definition, scope);
    const { count } = sizing;
    const responseKey = field.node.alias?.value ?? field.node.name.value;
    const path = trace === undefined ? '' : trace.path === '' ? responseKey : `${trace.path}.${responseKey}`;
    const multiplier = trace === undefined ? 0 : scale(trace.multiplier, field.times);
    const entry: FieldCostBreakdown | undefined =
      trace === undefined ? undefined : { path, fieldCost: 0, typeCost: 0, multiplier };
    if (entry !== undefined && sizing.rule.inferredListSize !== undefined) {
      entry.inferredListSize = sizing.rule.inferredListSize;
    }
    if (entry !== undefined) trace?.sink.push(entry);
    const below = trace === undefined ? undefined : { path, multiplier: scale(multiplier, count), sink: trace.sink };
    const value = this.#valueCost(field.node, sizing, below);
    const args = this.argumentsOf(field.node, definition);
    const required = this.#table.requiredSelection(definition);
    const requirement =
      required === undefined ? ZERO_COST : this.selectionCost(required, field.parent, sizing.required, undefined);
    if (entry !== undefined) {
      const own = this.weightOf(sizing.rule, sizing.rule.returnsLeaf ? 0 : 1);
      entry.typeCost = scale(count, own.own ? 0 : own.weight) + requirement.typeCost;
      entry.fieldCost = scale(count, own.own ? own.weight : 0) + args + requirement.fieldCost;
    }
    return {
      typeCost: scale(count, value.typeCost) + requirement.typeCost,
      fieldCost: scale(count, value.fieldCost) + args + requirement.fieldCost,
    };
  }

  /** One value the field returns: its weight and its selection. */
  #valueCost(node: FieldNode, sizing: ApolloSizing, trace: Trace | undefined): Cost {
    const { rule } = sizing;
    const own = this.weightOf(rule, rule.returnsLeaf ? 0 : 1);
    let typeCost = own.own ? 0 : own.weight;
    let fieldCost = own.own ? own.weight : 0;
    if (!rule.returnsLeaf && node.selectionSet !== undefined) {
      const selection = this.selectionCost(
        node.selectionSet,
        rule.namedType as GraphQLCompositeType,
        sizing.below,
        trace,
      );
      typeCost += selection.typeCost;
      fieldCost += selection.fieldCost;
    }
    return { typeCost, fieldCost };
  }

  #idOf(selectionSet: SelectionSetNode): number {
    let id = this.#selectionIds.get(selectionSet);
    if (id === undefined) {
      id = this.#selectionIds.size;
      this.#selectionIds.set(selectionSet, id);
    }
    return id;
  }
}

/**
 * A total as reported: as `reported` does, and a total below 0 (only negative `@cost` weights can
 * make one) as 0, since a charge is never negative. A negative part with a total ≥ 0 is kept. A
 * total that is no number (an infinite weight sum against an infinite discount) is too expensive.
 */
export function reportedTotal(cost: Cost): CostEstimate {
  const total = cost.typeCost + cost.fieldCost;
  if (Number.isNaN(total)) return { typeCost: Number.POSITIVE_INFINITY, fieldCost: 0 };
  if (total < 0) return { typeCost: 0, fieldCost: 0 };
  return { typeCost: reported(cost.typeCost), fieldCost: reported(cost.fieldCost) };
}

/** The largest size the enclosing rules give a field of this name, if any gives one. */
function sizeGiven(rules: readonly SizedBy[], name: string): number | undefined {
  let size: number | undefined;
  for (const rule of rules) if (rule.fields.sizes(name)) size = largest(size, rule.size);
  return size;
}

function largest(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  return b === undefined ? a : Math.max(a, b);
}

function scopeOf(parent: readonly SizedBy[], inherited: readonly SizedBy[]): ApolloScope {
  if (parent.length === 0 && inherited.length === 0) return ROOT_SCOPE;
  const key = (rules: readonly SizedBy[]) => rules.map((rule) => `${rule.fields.id}:${rule.size}`).join();
  return { parent, inherited, key: `${key(parent)}|${key(inherited)}` };
}
