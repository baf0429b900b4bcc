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
 * resolver is wrapped, in place, by one that reports the call to the meters registered for the
 * execution's context value (`meterContext`) and counts the values it resolves to as execution
 * completes them (`meterValues`: promises followed, every item of a list counted as it settles,
 * other iterables read once). A field is wrapped once whoever asks again; where no meter is
 * registered the wrapper only calls the resolver. Fields without a resolver of their own are
 * resolved as the server would: with its `fieldResolver` (registered with the context, or last
 * seen for the schema), else graphql-js's default.
 *
 * This is what Apollo Server does for its `willResolveField` hook, without its per-call overhead on
 * fields that weigh nothing, and with list items counted one by one: a hook told only of the list
 * as a whole misses the items of a list that one rejected item fails.
 */
export function instrumentSchema(schema: GraphQLSchema, counts: (field: AnyField) => boolean): void {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      if (!(WRAPPED in field) && counts(field)) wrap(field);
    }
  }
}

function wrap(field: AnyField): void {
  const own = field.resolve;
  field.resolve = (source, args, contextValue, info) => {
    const entry = typeof contextValue === 'object' && contextValue !== null ? contextStateOf(contextValue) : undefined;
    const resolve =
      own ?? (entry?.fieldResolver as Resolver | undefined) ?? fieldResolvers.get(info.schema) ?? defaultFieldResolver;
    if (entry === undefined || entry.meters.length === 0) return resolve(source, args, contextValue, info);
    const registered = entry.meters as Registered[];
    const only = registered.length === 1 && !(registered[0] as Registered).contested ? registered[0] : undefined;
    let values: ResolvedValues | undefined;
    let counter: ValueCounter | undefined;
    let more: [ResolvedValues, ValueCounter][] | undefined;
    if (only !== undefined) {
      // One execution metered with this context value (the common case): nothing to tell apart.
      values = only.meter.resolving(info, args);
      counter = only.meter;
    } else
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
    const result = resolve(source, args, contextValue, info);
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
  Object.defineProperty(field, WRAPPED, { value: true });
}

type Registered = { readonly owner: object; readonly meter: MeteredExecution; contested: boolean };

/**
 * The meters a resolver call of a context value shared by several executions counts for: each
 * uncontested one (one execution per budget), and for each budget running several executions with
 * it, the meter of the call's own execution. An execution is told by its coerced variables object
 * (graphql-js makes one per execution, `info.variableValues`): the first call of one claims a meter
 * of its operation that no execution claimed yet, the newest one first while its execution starts
 * (its first resolvers run before anything else can). When no single meter can be told apart, each
 * candidate counts the call: an operation may then pay for another's work, never less than its own.
 */
function metersOf(entry: ContextState, registered: Registered[], info: GraphQLResolveInfo): MeteredExecution[] {
  const meters: MeteredExecution[] = [];
  const contested: Registered[] = [];
  for (const candidate of registered) {
    if (candidate.contested) contested.push(candidate);
    else meters.push(candidate.meter);
  }
  if (contested.length === 0) return meters;
  const execution: unknown = info.variableValues;
  const key = typeof execution === 'object' && execution !== null ? execution : undefined;
  entry.claims ??= new WeakMap();
  const claims = entry.claims;
  const claimed = key === undefined ? undefined : (claims.get(key) as Registered[] | undefined);
  for (const owner of new Set(contested.map((candidate) => candidate.owner))) {
    const known = claimed?.find((claim) => claim.owner === owner);
    if (known !== undefined) {
      meters.push(known.meter);
      continue;
    }
    const group = contested.filter((candidate) => candidate.owner === owner);
    const fresh = group.find(
      (candidate) => candidate.meter === entry.fresh && candidate.meter.operation === info.operation,
    );
    const open = group.filter((candidate) => !candidate.meter.claimed && candidate.meter.operation === info.operation);
    const claim = fresh ?? (open.length === 1 ? open[0] : undefined);
    if (claim === undefined || key === undefined) {
      const same = group.filter((candidate) => candidate.meter.operation === info.operation);
      for (const candidate of open.length > 0 ? open : same.length > 0 ? same : group) meters.push(candidate.meter);
      continue;
    }
    claim.meter.claimed = true;
    if (entry.fresh === claim.meter) entry.fresh = undefined;
    if (claimed === undefined) claims.set(key, [claim]);
    else claimed.push(claim);
    meters.push(claim.meter);
  }
  return meters;
}

/**
 * Registers the execution about to run with `contextValue`: its meter (undefined when it is not
 * metered) and the server's `fieldResolver` for it. `owner` is the budget registering it. An
 * execution of the same budget that has settled gives its place up (the previous event of a
 * subscription: resolvers of it still running are counted by the newer one); one still running
 * keeps it, and both are then `contested`: each resolver call is counted for its own execution
 * (`metersOf`).
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
  let running = false;
  for (let index = meters.length - 1; index >= 0; index--) {
    const registered = meters[index] as Registered;
    if (registered.owner !== owner) continue;
    if (registered.meter.settled) {
      meters.splice(index, 1);
    } else {
      registered.contested = true;
      running = true;
    }
  }
  meters.push({ owner, meter, contested: running });
  if (running) {
    entry.fresh = meter;
    queueMicrotask(() => {
      if (entry.fresh === meter) entry.fresh = undefined;
    });
  }
}
