import {
  defaultFieldResolver,
  isObjectType,
  type GraphQLField,
  type GraphQLFieldResolver,
  type GraphQLSchema,
} from 'graphql';
import { meterValues } from '../cost/execution-meter.js';
import type { ResolvedValues, ValueCounter } from '../cost/types.js';
import type { MeteredExecution } from './metered-execution.js';
import { processGlobal } from '../process-global.js';
import { contextState, contextStateOf } from './context-state.js';

type Resolver = GraphQLFieldResolver<unknown, unknown>;
type AnyField = GraphQLField<unknown, unknown>;

/** Per schema: the server's field resolver last seen, for executions no budget registered. */
const fieldResolvers = processGlobal('field-resolvers', () => new WeakMap<GraphQLSchema, Resolver>());

const WRAPPED = Symbol.for('graphql-budget.metered-field');

type Registered = { readonly owner: object; readonly meter: MeteredExecution };

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
    let values: ResolvedValues | undefined;
    let counter: ValueCounter | undefined;
    let more: [ResolvedValues, ValueCounter][] | undefined;
    for (const { meter } of entry.meters as Registered[]) {
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
    // Several budgets meter this execution (each its own weights): each counts the same values.
    const every = more;
    return meterValues(result, values, {
      count: (_values, instances) => {
        for (const [own, meter] of every) meter.count(own, instances);
      },
    });
  };
  Object.defineProperty(field, WRAPPED, { value: true });
}

/**
 * Registers the execution about to run with `contextValue`: its meter (undefined when it is not
 * metered) and the server's `fieldResolver` for it. `owner` is the budget registering it: when one
 * budget registers an execution with the context value of another that is still running (not yet
 * settled), neither meter can tell its own execution's work from the other's: both are marked
 * `shared` (and no longer used). Only the newer stays registered; an earlier one already settled
 * (the previous event of a subscription) simply gives up its place, and resolvers of it that start
 * after that are no longer metered.
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
  // One meter per budget and context value: a context value shared by executions (a server's own
  // choice) would otherwise keep every one of their meters alive.
  const previous = entry.meters.findIndex((registered) => registered.owner === owner);
  if (previous >= 0) {
    const earlier = (entry.meters[previous] as Registered).meter;
    // A settled execution's place is taken (a subscription's next event); one still running shares it.
    if (!earlier.settled) {
      earlier.shared = true;
      meter.shared = true;
    }
    entry.meters.splice(previous, 1);
  }
  entry.meters.push({ owner, meter });
}
