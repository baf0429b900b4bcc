import {
  defaultFieldResolver,
  isObjectType,
  type GraphQLField,
  type GraphQLFieldResolver,
  type GraphQLResolveInfo,
  type GraphQLSchema,
} from 'graphql';
import { meterValues } from '../cost/execution-meter.js';
import type { ResolvedValues, ValueCounter } from '../cost/types.js';
import type { MeteredExecution } from './metered-execution.js';
import { processGlobal } from '../process-global.js';
import { contextState, contextStateOf, type ContextState } from './context-state.js';

type Resolver = GraphQLFieldResolver<unknown, unknown>;
type AnyField = GraphQLField<unknown, unknown>;

/** Per schema: the server's field resolver last seen, for executions no budget registered. */
const fieldResolvers = processGlobal('field-resolvers', () => new WeakMap<GraphQLSchema, Resolver>());

const WRAPPED = Symbol.for('graphql-budget.metered-field');

/**
 * Instruments the schema's fields whose calls a meter counts (`counts`): each such field's
 * resolver is wrapped, in place, by one that reports the call to the meter of its execution among
 * those registered for the context value (`meterContext`) and counts the values it resolves to as
 * execution completes them (`meterValues`: promises followed, every item of a list counted as it
 * settles, other iterables read once). A field is wrapped once whoever asks again, and a resolver
 * that is already a wrapper (a schema copied from an instrumented one, `mapSchema`) is not wrapped
 * again; where no meter is registered the wrapper only calls the resolver. Fields without a resolver
 * of their own are resolved as the server would: with its `fieldResolver` (registered with the
 * context, or last seen for the schema), else graphql-js's default.
 *
 * This is what Apollo Server does for its `willResolveField` hook, without its per-call overhead on
 * fields that weigh nothing, and with list items counted one by one: a hook told only of the list
 * as a whole misses the items of a list that one rejected item fails.
 */
export function instrumentSchema(schema: GraphQLSchema, counts: (field: AnyField) => boolean): void {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      if (!isInstrumented(field) && counts(field)) instrument(field);
    }
  }
}

function isWrapper(resolve: Resolver | undefined): boolean {
  return resolve !== undefined && WRAPPED in resolve;
}

/** Whether the field's `resolve` is this library's accessor (a copied field has a wrapper as plain value). */
function isInstrumented(field: AnyField): boolean {
  const getter = Object.getOwnPropertyDescriptor(field, 'resolve')?.get;
  return getter !== undefined && WRAPPED in getter;
}

/**
 * The resolver call a wrapper is making, while it makes it: a wrapper that the call reaches again
 * (a resolver that wraps an instrumented one, copied into another schema) only calls through, as
 * the outer one counts the call.
 */
let calling: GraphQLResolveInfo | undefined;

/**
 * Makes the field's `resolve` an accessor that always holds an instrumented resolver: the one it
 * has (wrapped, unless a copied schema brought a wrapper along), and any assigned later (a hot
 * reload that updates resolvers in place) wrapped in its turn. It cannot be redefined: a resolver
 * defined over it would run unmetered, so `Object.defineProperty` throws instead.
 */
function instrument(field: AnyField): void {
  const wrappedOf = (resolve: Resolver | undefined): Resolver =>
    isWrapper(resolve) ? (resolve as Resolver) : wrapperOf(resolve);
  let current = wrappedOf(field.resolve);
  const get = () => current;
  Object.defineProperty(get, WRAPPED, { value: true });
  Object.defineProperty(field, 'resolve', {
    configurable: false,
    enumerable: true,
    get,
    set: (next: Resolver | undefined) => {
      current = wrappedOf(next);
    },
  });
}

/** An instrumented resolver calling `own` (or the server's field resolver, when the field has none). */
function wrapperOf(own: Resolver | undefined): Resolver {
  const wrapper: Resolver = (source, args, contextValue, info) => {
    const entry = typeof contextValue === 'object' && contextValue !== null ? contextStateOf(contextValue) : undefined;
    const resolve =
      own ?? (entry?.fieldResolver as Resolver | undefined) ?? fieldResolvers.get(info.schema) ?? defaultFieldResolver;
    if (entry === undefined || entry.meters.length === 0 || calling === info) {
      return resolve(source, args, contextValue, info);
    }
    const registered = entry.meters as Registered[];
    const execution: unknown = info.variableValues;
    const only = registered.length === 1 ? (registered[0] as Registered).meter : undefined;
    let values: ResolvedValues | undefined;
    let counter: ValueCounter | undefined;
    let more: [ResolvedValues, ValueCounter][] | undefined;
    if (only !== undefined && (only.execution === execution || only.execution === undefined)) {
      // One execution metered with this context value (the common case): nothing to tell apart.
      if (only.execution === undefined) claim(execution, only, firstOwner(registered));
      values = only.resolving(info, args);
      counter = only;
    } else {
      for (const meter of metersOf(entry, registered, info)) {
        const counted = meter.resolving(info, args);
        if (counted === undefined) continue;
        if (values === undefined) {
          values = counted;
          counter = meter;
        } else {
          more ??= [[values, counter as ValueCounter]];
          more.push([counted, meter]);
        }
      }
    }
    const outer = calling;
    calling = info;
    let result: unknown;
    try {
      result = resolve(source, args, contextValue, info);
    } finally {
      calling = outer;
    }
    if (values === undefined) return result;
    if (more === undefined) return meterValues(result, values, counter as ValueCounter);
    // Several meters count this call (several budgets, each with its own weights): each counts the same values.
    const every = more;
    return meterValues(result, values, {
      count: (_values, instances) => {
        for (const [own, meter] of every) meter.count(own, instances);
      },
    });
  };
  Object.defineProperty(wrapper, WRAPPED, { value: true });
  return wrapper;
}

type Registered = { readonly owner: object; readonly meter: MeteredExecution };

const firstOwner = (registered: Registered[]): object => (registered[0] as Registered).owner;

/**
 * The meters that claimed an execution, by budget, kept on its coerced variables object itself (not
 * enumerable; it dies with the execution): a late call of an execution whose meter the context
 * value no longer lists still finds it.
 */
const CLAIMS = Symbol.for('graphql-budget.execution-meters');

function claimsOf(execution: unknown): Registered[] | undefined {
  if (typeof execution !== 'object' || execution === null) return undefined;
  try {
    return (execution as { [CLAIMS]?: Registered[] })[CLAIMS];
  } catch {
    return undefined;
  }
}

/** The execution's first metered call: the meter learns its execution, and the execution its meter. */
function claim(execution: unknown, meter: MeteredExecution, by: object): void {
  meter.execution = execution;
  if (typeof execution !== 'object' || execution === null) return;
  const claims = claimsOf(execution);
  if (claims !== undefined) {
    claims.push({ owner: by, meter });
    return;
  }
  try {
    Reflect.defineProperty(execution, CLAIMS, { value: [{ owner: by, meter }], configurable: true });
  } catch {
    // A variables object that takes no property: the meter is found among those the context lists.
  }
}

/** Settled executions of one budget kept registered with a context value, for their late resolvers. */
const KEPT_SETTLED = 16;

/**
 * The meters a resolver call counts for, on a context value several executions share (a graphql-ws
 * connection's, when the server keeps one): for each budget, the meter of the call's own
 * execution. An execution is told by its coerced variables object (graphql-js makes one per
 * execution, `info.variableValues`), which its meter learns at the execution's first metered call:
 * the newest meter's while its execution starts (its first resolvers run before anything else
 * can), or else the one meter of the call's operation that has no execution yet. A call of a
 * settled execution (a resolver an error's null did not stop) is its meter's, charged late. When no
 * single meter can be told apart, each candidate counts the call: an operation may then pay for
 * another's work, never less than its own.
 */
function metersOf(entry: ContextState, registered: Registered[], info: GraphQLResolveInfo): MeteredExecution[] {
  const execution: unknown = info.variableValues;
  const meters: MeteredExecution[] = [];
  const claimed = claimsOf(execution);
  for (const owner of new Set(registered.map((candidate) => candidate.owner))) {
    const group = registered.filter((candidate) => candidate.owner === owner).map((candidate) => candidate.meter);
    const known =
      claimed?.find((candidate) => candidate.owner === owner)?.meter ??
      group.find((meter) => meter.execution === execution);
    if (known !== undefined) {
      meters.push(known);
      continue;
    }
    const open = group.filter((meter) => meter.execution === undefined && !meter.settled);
    const same = open.filter((meter) => meter.operation === info.operation);
    const fitting = same.length > 1 ? same.filter((meter) => variablesFit(meter.variables, execution)) : same;
    const found =
      same.find((meter) => meter === entry.fresh) ??
      (fitting.length === 1 ? fitting[0] : same.length === 0 && open.length === 1 ? open[0] : undefined);
    if (found !== undefined) {
      claim(execution, found, owner);
      if (entry.fresh === found) entry.fresh = undefined;
      meters.push(found);
      continue;
    }
    const candidates = same.length > 0 ? same : open.length > 0 ? open : group.slice(-1);
    meters.push(...candidates);
  }
  return meters;
}

/**
 * Whether an execution's coerced variables can be those of a request's raw ones: each variable the
 * request gives has the same JSON value (one it leaves out took its default). A custom scalar or
 * an enum may coerce to another value: such a request then fits no execution, and the call is
 * counted by every candidate.
 */
function variablesFit(raw: Readonly<Record<string, unknown>> | undefined, coerced: unknown): boolean {
  if (typeof coerced !== 'object' || coerced === null) return false;
  for (const name of Object.keys(coerced)) {
    if (
      raw !== undefined &&
      Object.hasOwn(raw, name) &&
      !sameValue(raw[name], (coerced as Record<string, unknown>)[name], 0)
    ) {
      return false;
    }
  }
  return true;
}

function sameValue(raw: unknown, coerced: unknown, depth: number): boolean {
  if (raw === coerced) return true;
  if (depth > 8 || typeof raw !== 'object' || typeof coerced !== 'object' || raw === null || coerced === null) {
    return false;
  }
  if (Array.isArray(coerced)) {
    const items = Array.isArray(raw) ? raw : [raw];
    return items.length === coerced.length && coerced.every((item, index) => sameValue(items[index], item, depth + 1));
  }
  const rawObject = raw as Record<string, unknown>;
  return Object.keys(coerced).every(
    (name) =>
      !Object.hasOwn(rawObject, name) ||
      sameValue(rawObject[name], (coerced as Record<string, unknown>)[name], depth + 1),
  );
}

/**
 * Registers the execution about to run with `contextValue`: its meter (undefined when it is not
 * metered) and the server's `fieldResolver` for it. `owner` is the budget registering it. Meters
 * of the same budget stay registered beside it, settled ones too (the last `KEPT_SETTLED`), so that
 * each resolver call is counted for its own execution (`metersOf`).
 */
export function meterContext(
  contextValue: object,
  owner: object,
  meter: MeteredExecution | undefined,
  fieldResolver: Resolver | undefined,
  schema: GraphQLSchema,
): void {
  if (fieldResolver !== undefined) fieldResolvers.set(schema, fieldResolver);
  const entry = contextState(contextValue);
  if (fieldResolver !== undefined) entry.fieldResolver = fieldResolver;
  if (meter === undefined) return;
  const meters = entry.meters as Registered[];
  let settled = 0;
  for (let index = meters.length - 1; index >= 0; index--) {
    const registered = meters[index] as Registered;
    if (registered.owner === owner && registered.meter.settled && ++settled >= KEPT_SETTLED) meters.splice(index, 1);
  }
  meters.push({ owner, meter });
  if (meters.length > 1) {
    entry.fresh = meter;
    queueMicrotask(() => {
      if (entry.fresh === meter) entry.fresh = undefined;
    });
  }
}
