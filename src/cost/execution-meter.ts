import { getNamedType, isAbstractType, isInputObjectType, isSpecifiedDirective } from 'graphql';
import type { GraphQLArgument, GraphQLField, GraphQLObjectType, GraphQLSchema } from 'graphql';
import type { CostTable } from './cost-table.js';
import { argumentsCost, directivesCost } from './field-call.js';
import type { CostEstimate, OperationMeter, ResolvedField, ResolvedValues, ValueCounter } from './types.js';

type AnyField = GraphQLField<unknown, unknown>;

/** What one field's resolutions cost, read once per field. */
interface MeterRule {
  /** The field's `@cost` weight (or its default). */
  readonly weight: number;
  /** Whether some argument can weigh something (its own weight, or input fields that may). */
  readonly weighedArguments: boolean;
  /** List levels around the named type. */
  readonly listDepth: number;
  /**
   * What one returned value of the named type weighs (never below 0): for an interface or union
   * the heaviest possible type's weight, since the runtime type is not known yet when the resolver
   * returns.
   */
  readonly itemWeight: number;
}

/**
 * The work one execution's resolvers do, priced as it happens by the same rules as the estimate
 * (IBM spec "Field cost" and "Type cost") applied to each resolver call: its field's weight and
 * its arguments' and directives' weights (clamped at 0), and the type weight of each non-null
 * value it returns (every item of a list, at every level). Values under an interface or union are
 * charged their heaviest possible type's weight, since the runtime type is decided after the
 * resolver returns; so the meter never prices below the work done, where the response walk
 * (`ActualCoster`) prices each object as its runtime type.
 *
 * It sees what the response cannot show: work under a value an error nulled (a list that came
 * back longer than it was priced for, then nulled), and resolvers that go on after the response
 * was sent. Introspection fields (`__schema`, `__type` and below) are not reported by servers'
 * field hooks, and are not metered.
 */
export class ExecutionMeter implements OperationMeter {
  readonly #rules: MeterRules;
  #typeCost: number;
  #fieldCost = 0;
  /** Calls reported so far. */
  calls = 0;

  constructor(rules: MeterRules, rootType: GraphQLObjectType) {
    this.#rules = rules;
    if (rules.table.model === 'apollo') {
      // Apollo Router's formula: the root weighs nothing, a mutation costs 10 up front.
      this.#typeCost = 0;
      if (rootType === rules.schema.getMutationType()) this.#fieldCost = APOLLO_MUTATION_COST;
    } else {
      this.#typeCost = Math.max(0, rules.table.typeWeight(rootType));
    }
  }

  /**
   * Whether, for a response no error touched, this meter's cost is the response walk's to the token
   * (see `MeterRules.exact`), so the walk can be skipped; the operation must select no introspection
   * field (not metered) for that too.
   */
  get exact(): boolean {
    return this.#rules.exact;
  }

  /**
   * A resolver of `info.fieldName` on `info.parentType` was called with `args` (coerced): its call
   * is charged at once (it ran, even if it throws). Returns how to count the values it resolves to
   * (hand them to `meterValues`), or undefined when no value of it weighs anything.
   */
  resolving(info: ResolvedField, args: Readonly<Record<string, unknown>>): ResolvedValues | undefined {
    const field = info.parentType.getFields()[info.fieldName] as AnyField | undefined;
    if (field === undefined) return undefined;
    const rule = this.#rules.of(field);
    if (rule === null) return undefined;
    this.calls += 1;
    let call = rule.weight;
    const table = this.#rules.table;
    if (rule.weighedArguments) call += argumentsCost(table, field.args, args);
    if (this.#rules.weighedDirectives) call += directivesCost(table, info.fieldNodes, info.variableValues);
    if (call > 0) this.#fieldCost += call;
    // The field's own rule: nothing is allocated per call.
    return rule.itemWeight === 0 ? undefined : rule;
  }

  count(values: ResolvedValues, instances: number): void {
    this.#typeCost += values.itemWeight * instances;
  }

  /** The work metered so far. */
  get cost(): CostEstimate {
    return { typeCost: this.#typeCost, fieldCost: this.#fieldCost };
  }
}

/** What a mutation costs up front under Apollo Router's formula. */
const APOLLO_MUTATION_COST = 10;

/**
 * Counts the non-null values of the named type in what a resolver returned (`counter.count`), as
 * execution completes them, and returns what execution should complete instead: the same value,
 * except that a promise is followed (its values are counted when it settles), an array holding
 * promises gets promises that count their item when it settles (so the items of a list one of whose
 * items rejects are still counted), any other iterable (a `Set`, a `Map`, a generator, an
 * iterator) is read into an array, which execution completes exactly as it would the iterable
 * itself (a one-shot iterable could not be read twice), and an async iterable (which an executor
 * that streams lists completes as a list) is passed on item by item, each counted as it is taken.
 */
export function meterValues(value: unknown, values: ResolvedValues, counter: ValueCounter): unknown {
  return counted(value, values.listDepth, values, counter);
}

function counted(value: unknown, depth: number, values: ResolvedValues, counter: ValueCounter): unknown {
  if (value === null || value === undefined) return value;
  if (isPromiseLike(value)) return value.then((settled) => counted(settled, depth, values, counter));
  if (depth === 0) {
    counter.count(values, 1);
    return value;
  }
  if (typeof value !== 'object') return value;
  // An executor that streams lists (GraphQL Yoga's) completes an async iterable as one: each item
  // is counted as it is taken from it.
  if (!(Symbol.iterator in value) && Symbol.asyncIterator in value) {
    return countedStream(value as AsyncIterable<unknown>, depth, values, counter);
  }
  // Anything else is not a list to execution: it fails the field.
  if (!(Symbol.iterator in value)) return value;
  const items = Array.isArray(value) ? (value as unknown[]) : Array.from(value as Iterable<unknown>);
  let copy: unknown[] | undefined = items === value ? undefined : items;
  let instances = 0;
  for (let index = 0; index < items.length; index += 1) {
    const item = items[index];
    if (item === null || item === undefined) continue;
    if (depth === 1 && !isPromiseLike(item)) {
      instances += 1;
      continue;
    }
    const next = counted(item, depth - 1, values, counter);
    if (next !== item) {
      copy ??= items.slice();
      copy[index] = next;
    }
  }
  if (instances > 0) counter.count(values, instances);
  return copy ?? value;
}

/** An async iterable's items, counted (or, in a list of lists, metered) as they are taken. */
async function* countedStream(
  source: AsyncIterable<unknown>,
  depth: number,
  values: ResolvedValues,
  counter: ValueCounter,
): AsyncGenerator<unknown> {
  for await (const item of source) {
    if (item === null || item === undefined) {
      yield item;
    } else if (depth === 1 && !isPromiseLike(item)) {
      counter.count(values, 1);
      yield item;
    } else {
      yield counted(item, depth - 1, values, counter);
    }
  }
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

/** Per schema: each field's meter rule, read once. */
export class MeterRules {
  readonly table: CostTable;
  /** Whether the arguments of some directive on a selection may weigh something. */
  readonly weighedDirectives: boolean;
  /**
   * Whether the meter prices a response exactly as the response walk does when no error hid work:
   * no interface or union whose possible types differ in weight (the meter charges the heaviest),
   * and no type of negative weight (the walk lets one offset what is selected below it).
   */
  readonly exact: boolean;
  readonly #rules = new Map<AnyField, MeterRule | null>();

  constructor(table: CostTable) {
    this.table = table;
    const { schema } = table;
    // Only the IBM model's response walk is what this meter counts (Apollo's is priced its own way).
    let exact = table.model === 'ibm';
    this.weighedDirectives = schema
      .getDirectives()
      .some((directive) => !isSpecifiedDirective(directive) && directive.args.some((arg) => this.#weighs(arg)));
    for (const type of Object.values(schema.getTypeMap())) {
      if (type.name.startsWith('__')) continue;
      if (isAbstractType(type)) {
        const weights = new Set(schema.getPossibleTypes(type).map((possible) => table.typeWeight(possible)));
        if (weights.size > 1) exact = false;
      } else if (table.typeWeight(type) < 0) {
        exact = false;
      }
    }
    this.exact = exact;
  }

  /**
   * The field's rule, or null when no call of it and no value it returns can cost anything. Under
   * the `'apollo'` model a call weighs nothing of its own and each value it returns weighs the
   * field's own `@cost`, else its type's, else 1 for a composite type (Apollo Router's formula).
   */
  of(field: AnyField): MeterRule | null {
    let rule = this.#rules.get(field);
    if (rule === undefined) {
      const costs = this.table.field(field);
      const weighedArguments = field.args.some((arg) => this.#weighs(arg));
      const apollo = this.table.model === 'apollo';
      const itemWeight = Math.max(
        0,
        apollo
          ? (costs.ownWeight ?? this.table.declaredTypeWeight(costs.namedType) ?? (costs.returnsLeaf ? 0 : 1))
          : this.table.typeWeight(costs.namedType),
      );
      const callWeight = apollo ? 0 : costs.weight;
      const free = callWeight <= 0 && !weighedArguments && itemWeight === 0 && !this.weighedDirectives;
      rule = free ? null : { weight: callWeight, weighedArguments, listDepth: costs.listDepth, itemWeight };
      this.#rules.set(field, rule);
    }
    return rule;
  }

  /** Whether the meter counts anything for calls of `field` (what a server's instrumentation must report). */
  counts(field: AnyField): boolean {
    return this.of(field) !== null;
  }

  /** Whether a value for `arg` can weigh something: its own weight, or an input object's fields. */
  #weighs(arg: GraphQLArgument): boolean {
    return this.table.inputWeight(arg) !== 0 || isInputObjectType(getNamedType(arg.type));
  }

  get schema(): GraphQLSchema {
    return this.table.schema;
  }
}
