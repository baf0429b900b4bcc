import type { GraphQLResolveInfo, ResponsePath as InfoPath } from 'graphql';

/**
 * The two schemas the invariant is checked on: `Vendor` weighs 3 and `Author` 1 where `Book` weighs
 * 2 (members of a union and of an interface that differ in weight, so the response walk prices each
 * by its runtime type), or both 2 as well (every member costs the same, so the response alone
 * always tells what an object under `Node` or `Result` costs).
 */
export const VARIANT_WEIGHTS = { uneven: { Vendor: 3, Author: 1 }, even: { Vendor: 2, Author: 2 } } as const;
export type HarnessVariant = keyof typeof VARIANT_WEIGHTS;

/**
 * The IBM cost spec's rules for the harness schema, written out: type weights (objects 1 unless
 * `@cost`, scalars and enums 0), field weights (composite fields 1 unless `@cost`, leaves 0),
 * argument weights (input objects 1, scalars 0 unless `@cost`; an argument counts when it has a
 * value after coercion, its default included).
 */
const TYPE_WEIGHTS: Readonly<Record<string, number>> = {
  Query: 1,
  Mutation: 1,
  Book: 2,
  Review: 1,
  Edge: 1,
  Shelf: 1,
  RateLimit: 0,
};
const FIELD_WEIGHTS: Readonly<Record<string, number>> = {
  'Book.similar': 5,
  'Book.score': 4,
  'Vendor.audit': 50,
  'Mutation.addBooks': 10,
  'Query.rateLimit': 0,
};
const COMPOSITE_FIELDS = new Set([
  'Book.similar',
  'Book.author',
  'Book.review',
  'Author.books',
  'Edge.node',
  'Shelf.edges',
  'Query.books',
  'Query.book',
  'Query.shelf',
  'Query.search',
  'Query.node',
  'Query.everything',
  'Mutation.addBooks',
  'Mutation.failBook',
]);

function fieldWeight(coordinate: string): number {
  return FIELD_WEIGHTS[coordinate] ?? (COMPOSITE_FIELDS.has(coordinate) ? 1 : 0);
}

/**
 * What a call's arguments weigh: `Book.score(boost:)` 3 whenever it has a value (an explicit null
 * included), `Author.books(page:)` 1 as an input object (it always has one: its default).
 */
function argumentWeight(coordinate: string, args: Record<string, unknown>): number {
  if (coordinate === 'Book.score') return Object.hasOwn(args, 'boost') ? 3 : 0;
  if (coordinate === 'Author.books') return Object.hasOwn(args, 'page') ? 1 : 0;
  return 0;
}

/** A place in the response: response keys (aliases) and list indices, from the root. */
export type ResponsePath = readonly (string | number)[];

interface PlacedCall {
  /** The name of the operation that made it (graphql-ws runs two on one context value). */
  readonly operation: string;
  readonly coordinate: string;
  /** Where the field's response key sits: its parent object's path, then the key. */
  readonly path: ResponsePath;
  readonly argumentWeight: number;
}

interface PlacedValue {
  readonly operation: string;
  /** The runtime type of an object, or `Scalar` for scalars and enums. */
  readonly type: string;
  readonly path: ResponsePath;
}

/**
 * What the resolvers of one request did (each call and each value returned, with the place in the
 * response where it lands), and the price of what a response shows of it, by the IBM cost spec's
 * rules written out above for the harness schema (library.ts), independently of the cost engine.
 */
export class Work {
  /** Resolver calls by coordinate. */
  readonly calls = new Map<string, number>();
  /** Slicing-argument values the resolvers received. */
  readonly slices: { coordinate: string; value: number }[] = [];
  /** Values of `dryRun` the `rateLimit` resolver saw. */
  readonly dryRuns: boolean[] = [];
  readonly #placedCalls: PlacedCall[] = [];
  readonly #placedValues: PlacedValue[] = [];
  readonly #pending = new Set<Promise<unknown>>();

  /** Records a resolver call at its place in the response; returns the coordinate's calls so far. */
  called(coordinate: string, args: Record<string, unknown>, info: GraphQLResolveInfo): number {
    const calls = (this.calls.get(coordinate) ?? 0) + 1;
    this.calls.set(coordinate, calls);
    this.#placedCalls.push({
      operation: operationOf(info),
      coordinate,
      path: responsePathOf(info.path),
      argumentWeight: argumentWeight(coordinate, args),
    });
    return calls;
  }

  /**
   * Records the non-null values a resolver returned, each where it lands: a list's items at their
   * indices below the field's path. `objectType` names the type of object values (undefined: the
   * runtime type from `__kind` under an interface or union, or `Scalar`).
   */
  returned(value: unknown, objectType: string | undefined, info: GraphQLResolveInfo): void {
    this.#place(operationOf(info), value, objectType, responsePathOf(info.path));
  }

  #place(operation: string, value: unknown, objectType: string | undefined, path: ResponsePath): void {
    if (value === null || value === undefined) return;
    if (Array.isArray(value)) {
      for (const [index, item] of value.entries()) this.#place(operation, item, objectType, [...path, index]);
      return;
    }
    const type =
      objectType ?? (typeof value === 'object' ? (value as { __kind?: string }).__kind : undefined) ?? 'Scalar';
    this.#placedValues.push({ operation, type, path });
  }

  /** Waits for every late resolver of the request, including those started by late ones. */
  async settled(): Promise<void> {
    while (this.#pending.size > 0) await Promise.allSettled([...this.#pending]);
  }

  track<T>(promise: Promise<T>): Promise<T> {
    this.#pending.add(promise);
    const done = () => this.#pending.delete(promise);
    promise.then(done, done);
    return promise;
  }

  /** Resolver calls other than `rateLimit`'s. */
  get otherCalls(): number {
    let count = 0;
    for (const [coordinate, calls] of this.calls) if (coordinate !== 'Query.rateLimit') count += calls;
    return count;
  }

  /**
   * The price of the work `data` (a response's data, merged from every part of an incremental
   * one) shows: the root type once when there is `data` at all (null included); each call whose
   * response key is present in its parent object (its field and argument weights), and each value
   * that is non-null at its place (its type weight). Work a response does not show (under a parent
   * an error nulled, in a part that never came) costs nothing here. A place counts once, however
   * often it was resolved (an executor may resolve a field both in the first part and again in a
   * deferred one). `operation` picks one operation's work where a context value served several.
   */
  shown(data: unknown, rootType: 'Query' | 'Mutation', variant: HarnessVariant, operation?: string): number {
    if (data === undefined) return 0;
    return this.#price(rootType, variant, operation, { data });
  }

  /** The price of all the work the resolvers did, shown or not (by the same rules, a place once). */
  done(rootType: 'Query' | 'Mutation', variant: HarnessVariant, operation?: string): number {
    return this.#price(rootType, variant, operation);
  }

  /** The price of the work of `operation` (all when undefined) that `response` shows (all when undefined). */
  #price(
    rootType: 'Query' | 'Mutation',
    variant: HarnessVariant,
    operation: string | undefined,
    response?: { data: unknown },
  ): number {
    const weights: Readonly<Record<string, number>> = { ...TYPE_WEIGHTS, ...VARIANT_WEIGHTS[variant] };
    const places = new Map<string, number>();
    const count = (place: string, weight: number) => places.set(place, Math.max(places.get(place) ?? 0, weight));
    for (const call of this.#placedCalls) {
      if (operation !== undefined && call.operation !== operation) continue;
      if (response !== undefined && !keyShown(response.data, call.path)) continue;
      count(`call ${call.path.join('.')}`, fieldWeight(call.coordinate) + call.argumentWeight);
    }
    for (const value of this.#placedValues) {
      if (operation !== undefined && value.operation !== operation) continue;
      const shown = response === undefined ? true : valueAt(response.data, value.path);
      if (shown === null || shown === undefined) continue;
      count(`value ${value.path.join('.')}`, weights[value.type] ?? 0);
    }
    let price = weights[rootType] ?? 1;
    for (const weight of places.values()) price += weight;
    return price;
  }
}

function operationOf(info: GraphQLResolveInfo): string {
  return info.operation.name?.value ?? '';
}

/** graphql-js's path of a field (a linked list from the leaf up) as a response path. */
function responsePathOf(path: InfoPath | undefined): ResponsePath {
  const steps: (string | number)[] = [];
  for (let step = path; step !== undefined; step = step.prev) steps.push(step.key);
  return steps.reverse();
}

/** The value at `path` in a response's data; undefined where the response has nothing there. */
export function valueAt(data: unknown, path: ResponsePath): unknown {
  let value = data;
  for (const step of path) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, step)) return undefined;
    value = (value as Record<string | number, unknown>)[step];
  }
  return value;
}

/** Whether the response key at the end of `path` is present in its parent object (its value may be null). */
function keyShown(data: unknown, path: ResponsePath): boolean {
  const key = path.at(-1);
  const parent = valueAt(data, path.slice(0, -1));
  if (key === undefined || typeof parent !== 'object' || parent === null || Array.isArray(parent)) return false;
  return Object.hasOwn(parent, key);
}
