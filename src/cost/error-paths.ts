/** An error of a GraphQL response, as graphql-js and Apollo Server produce it: only `path` is read. */
export interface ResponseError {
  /** Response keys (aliases) and list indices from the root to the field the error is about. */
  readonly path?: ReadonlyArray<string | number> | undefined;
}

/**
 * The response paths of a response's errors as a tree: each response key or list index → the paths
 * that continue below it. A position is in the tree when some error's path passes through it or
 * ends at it.
 */
export type ErrorPaths = ReadonlyMap<string | number, ErrorPaths>;

const LIST_INDEX = /^(?:0|[1-9][0-9]*)$/;

/**
 * The tree of the errors' paths, or undefined when no error has a path (then the actual-cost walk
 * does exactly what it does without errors; so it does with the empty tree of empty paths). Its size
 * is the total length of the paths, which the response already holds. A list index written as a string (`"3"`) is read as the number: a
 * response key cannot be made of digits (GraphQL names start with a letter or `_`).
 */
export function errorPathsOf(
  errors: ReadonlyArray<ResponseError | null | undefined> | null | undefined,
): ErrorPaths | undefined {
  if (errors === null || errors === undefined) return undefined;
  let root: Map<string | number, ErrorPaths> | undefined;
  for (const error of errors) {
    const path = error?.path;
    if (!Array.isArray(path)) continue;
    root ??= new Map();
    let node = root;
    for (const segment of path as ReadonlyArray<unknown>) {
      const key = typeof segment === 'string' && LIST_INDEX.test(segment) ? Number(segment) : segment;
      // Stryker disable next-line ConditionalExpression: a key of another type is never looked up (the walk reads response keys and list indices), so cutting the path there or not prices the same
      if (typeof key !== 'string' && typeof key !== 'number') break;
      let next = node.get(key) as Map<string | number, ErrorPaths> | undefined;
      if (next === undefined) {
        next = new Map();
        node.set(key, next);
      }
      node = next;
    }
  }
  return root;
}
