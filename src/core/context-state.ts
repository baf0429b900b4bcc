import { processGlobal } from '../process-global.js';

/**
 * What the request path keeps on an execution's context value: the one thing a resolver of the
 * user's schema reads from it, the `rateLimit` field's reading of the buckets after this
 * operation's charge. It is kept under one symbol, not enumerable (a copy or a serialisation of the
 * context never carries it), so it dies with the context; a context that takes no property (frozen,
 * or a Proxy refusing it) has it kept in a `WeakMap` instead.
 */
const READING = Symbol.for('graphql-budget.reading');

/** The readings of context values that take no property. */
const elsewhere = processGlobal('context-readings', () => new WeakMap<object, unknown>());

/** What was kept for the context value (or, through `Object.create`, for the one it extends). */
export function contextReading(contextValue: object): unknown {
  try {
    const found = (contextValue as { [READING]?: unknown })[READING];
    if (found !== undefined) return found;
    const prototype: unknown = Object.getPrototypeOf(contextValue);
    return (
      elsewhere.get(contextValue) ??
      (typeof prototype === 'object' && prototype !== null ? elsewhere.get(prototype) : undefined)
    );
  } catch {
    // A Proxy whose traps throw for names it does not know.
    return elsewhere.get(contextValue);
  }
}

/** Keeps `reading` for the context value. */
export function keepContextReading(contextValue: object, reading: unknown): void {
  try {
    if (Reflect.defineProperty(contextValue, READING, { value: reading, configurable: true, enumerable: false })) {
      return;
    }
  } catch {
    // A Proxy whose traps throw: kept aside below.
  }
  elsewhere.set(contextValue, reading);
}
