import { processGlobal } from '../process-global.js';

/** What the request path keeps for one execution's context value. */
export interface ContextState {
  /** The meters of the executions metered with this context value, and who registered each. */
  readonly meters: { readonly owner: object; readonly meter: unknown }[];
  /** The meter registered last beside others, until its execution's first resolvers claim it. */
  fresh: unknown;
  /** The server's own resolver for fields without one (graphql-js `fieldResolver`), when it has one. */
  fieldResolver: unknown;
  /** What the `rateLimit` field reads: the buckets after this operation's charge. */
  reading: unknown;
}

const STATE = Symbol.for('graphql-budget.context-state');

/** The states of context values that take no property (frozen or sealed ones). */
const elsewhere = processGlobal('context-states', () => new WeakMap<object, ContextState>());

/**
 * The request path's state for a context value, kept on the value itself under a symbol (not
 * enumerable, so a copy or a serialisation of the context never carries it): it dies with the
 * context, in the same young-generation collection. A `WeakMap` keyed by every request's context
 * would hold each request's state until a full collection, and make every scavenge walk it. A
 * context that takes no property (frozen) is kept in one all the same.
 *
 * Read here, a context value that inherits from one with a state (`Object.create(context)`, as an
 * executor that extends the context per execution makes) has that state, unless it has its own.
 */
export function contextStateOf(contextValue: object): ContextState | undefined {
  let found: ContextState | undefined;
  try {
    found = (contextValue as { [STATE]?: ContextState })[STATE];
  } catch {
    // A Proxy whose traps throw for names it does not know.
  }
  return found ?? elsewhere.get(contextValue) ?? inheritedElsewhere(contextValue);
}

/** The state kept aside for the context value's prototype (a frozen context extended by `Object.create`). */
function inheritedElsewhere(contextValue: object): ContextState | undefined {
  try {
    const prototype: unknown = Object.getPrototypeOf(contextValue);
    return typeof prototype === 'object' && prototype !== null ? elsewhere.get(prototype) : undefined;
  } catch {
    return undefined;
  }
}

/** The context value's own state (never one it inherits). */
function ownStateOf(contextValue: object): ContextState | undefined {
  try {
    if (Object.hasOwn(contextValue, STATE)) return (contextValue as { [STATE]?: ContextState })[STATE];
  } catch {
    // A Proxy whose traps throw.
  }
  return elsewhere.get(contextValue);
}

/**
 * The state of a context value, its own, made on first use: an execution registered with a
 * context value that inherits from another's (each operation of a GraphQL Yoga batch) has a state
 * of its own.
 */
export function contextState(contextValue: object): ContextState {
  const found = ownStateOf(contextValue);
  if (found !== undefined) return found;
  const state: ContextState = {
    meters: [],
    fresh: undefined,
    fieldResolver: undefined,
    reading: undefined,
  };
  if (!keptOn(contextValue, state)) elsewhere.set(contextValue, state);
  return state;
}

/** Whether the state could be kept on the context value itself (not frozen, no Proxy refusing it). */
function keptOn(contextValue: object, state: ContextState): boolean {
  try {
    return (
      Object.isExtensible(contextValue) &&
      Reflect.defineProperty(contextValue, STATE, {
        value: state,
        configurable: true,
        enumerable: false,
        writable: false,
      }) &&
      ownStateOf(contextValue) === state
    );
  } catch {
    return false;
  }
}
