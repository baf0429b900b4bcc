/**
 * A GraphQL server of the in-process section: anything that answers the bookstore's operations
 * without a socket (Apollo Server's `executeHTTPGraphQLRequest`; a Yoga server's `yoga.fetch` fits
 * the same shape).
 */
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
  /** Whether answers carry the plugin's cost extension with a real throttle status. */
  plugin: boolean;
  /** Whether it charges a RedisBucketStore on the benchmark's redis-server (whose CPU is then reported). */
  redis: boolean;
  start(environment: InProcessEnvironment): Promise<InProcessServer>;
}
