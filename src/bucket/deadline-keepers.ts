import { processGlobal } from '../process-global.js';

/**
 * The stores of this library, which settle every call within its `timeoutMs` themselves
 * (`MemoryBucketStore` answers at once; `RedisBucketStore` keeps its own deadline): a caller need
 * not set a timer of its own to cut them off. A custom store is not in it.
 */
const keepers = processGlobal('deadline-keepers', () => new WeakSet<object>());

/** Marks a store of this library as one that keeps its deadline. */
export function keepsDeadline(store: object): void {
  keepers.add(store);
}

/** Whether `store` settles every call within its `timeoutMs` (a store of this library). */
export function isDeadlineKeeper(store: object): boolean {
  return keepers.has(store);
}
