import type { BucketPolicy } from 'graphql-budget';

/** What guards the example server in an HTTP benchmark run. */
export const HTTP_VARIANTS = [
  'bare',
  'plugin-memory',
  'plugin-memory-metrics-off',
  'plugin-memory-otel-sdk',
  'plugin-redis',
  'plugin-redis-unbatched',
  'plugin-redis-unpipelined',
  'armor-cost-limit',
] as const;
export type HttpVariant = (typeof HTTP_VARIANTS)[number];

export const VARIANT_LABELS: Readonly<Record<HttpVariant, string>> = {
  bare: 'bare Apollo Server (no limit)',
  'plugin-memory': 'plugin + MemoryBucketStore',
  'plugin-memory-metrics-off': 'plugin + MemoryBucketStore, metrics: false',
  'plugin-memory-otel-sdk': 'plugin + MemoryBucketStore, OpenTelemetry SDK registered',
  'plugin-redis': 'plugin + RedisBucketStore',
  'plugin-redis-unbatched': 'plugin + RedisBucketStore, batch: false',
  'plugin-redis-unpipelined': 'plugin + RedisBucketStore, ioredis without auto-pipelining',
  'armor-cost-limit': 'graphql-armor cost-limit rule',
};

/** Whether the variant runs the budget plugin. */
export function hasPlugin(variant: HttpVariant): boolean {
  return variant.startsWith('plugin-');
}

export function isHttpVariant(value: unknown): value is HttpVariant {
  return typeof value === 'string' && (HTTP_VARIANTS as readonly string[]).includes(value);
}

/** A budget no run can exhaust: every request is charged, none is rejected. */
export const UNLIMITED_POLICY: BucketPolicy = { capacity: 1e12, refillPerSecond: 1e9 };

/**
 * The operation every HTTP request sends: a connection page with a fragment, an object per edge and
 * a nested list, the example's most typical read.
 */
export const QUERY = /* GraphQL */ `
  query Shelf($first: Int!) {
    books(first: $first) {
      totalCount
      edges {
        cursor
        node {
          ...BookCard
          reviews(last: 2) { rating reviewer }
        }
      }
    }
  }
  fragment BookCard on Book {
    id
    title
    year
    genre
    priceCents
    author { name }
  }
`;

export const REQUEST_BODY = JSON.stringify({ query: QUERY, operationName: 'Shelf', variables: { first: 10 } });

/** A pro-tier key of the example: the plugin charges its owner (the budget is unlimited above). */
export const REQUEST_HEADERS = {
  'content-type': 'application/json',
  authorization: 'Bearer pro-key-bob',
};
