/**
 * A GraphQL server of the in-process section: anything that answers the bookstore's operations
 * without a socket (Apollo Server's `executeHTTPGraphQLRequest`; a Yoga server's `yoga.fetch` fits
 * the same shape).
 */
import type { BucketStore } from 'graphql-budget';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { BookstoreOperation } from './bookstore.js';

/** One answer, as the HTTP layer would write it. */
export interface InProcessReply {
  status: number;
  /** Response headers, names lower-case (`HeaderMap`, `Headers` or any map with `get`). */
  headers: { get(name: string): string | null | undefined };
  body: string;
}

export interface InProcessServer {
  /** Sends `operation` once. */
  request(operation: BookstoreOperation): Promise<InProcessReply>;
  stop(): Promise<void>;
}

/**
 * What guards a server: nothing, the budget plugin on a store, or a peer library wired as its
 * documentation shows (bench/in-process/peers.ts).
 */
export type Guard =
  | { kind: 'bare' }
  | { kind: 'budget'; store: BucketStore }
  | { kind: 'graphql-query-complexity' }
  | { kind: 'graphql-armor-cost-limit' }
  | { kind: 'rate-limiter-flexible'; limiter: RateLimiterAbstract };

/** What the section needs to start a variant: the benchmark's own redis-server. */
export interface InProcessEnvironment {
  redisUrl: string;
}

export interface InProcessVariant {
  id: string;
  /** As printed in the table. */
  label: string;
  /** The variant this one's CPU time is compared with, round by round (a bare server of the same framework). */
  baseline?: string;
  /**
   * The variant whose added CPU this one's is divided by (graphql-query-complexity on the same
   * framework), for the ratio column.
   */
  reference?: string;
  /** Whether answers carry the plugin's cost extension with a real throttle status. */
  plugin: boolean;
  /** Whether it charges a RedisBucketStore on the benchmark's redis-server (whose CPU is then reported). */
  redis: boolean;
  start(environment: InProcessEnvironment): Promise<InProcessServer>;
}
