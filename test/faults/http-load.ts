import { performance } from 'node:perf_hooks';

/** What one HTTP request through the plugin returned. */
export interface Sample {
  /** Index into the load's `urls`. */
  server: number;
  user: string;
  /** performance.now() at send and at the end of the body, in ms. */
  start: number;
  end: number;
  /** HTTP status, or 0 when the request failed at the network level. */
  status: number;
  /** `extensions.cost.throttleStatus` was present: the store answered and charged (or denied). */
  storeAnswered: boolean;
  requestedQueryCost: number | null;
  actualQueryCost: number | null;
  /** `extensions.code` of the first error, if any. */
  code: string | null;
  /** Network error or body that was not JSON. */
  failure: string | null;
  /** A control request (see `LoadOptions.controlWorkers`), not charged by design. */
  control: boolean;
}

export interface Reply {
  status: number;
  ms: number;
  headers: Headers;
  body: GraphQLBody | null;
  text: string;
}

export interface GraphQLBody {
  data?: unknown;
  errors?: { message: string; extensions?: { code?: string } & Record<string, unknown> }[];
  extensions?: { cost?: CostExtension };
}

export interface CostExtension {
  requestedQueryCost: number;
  actualQueryCost: number;
  throttleStatus: { maximumAvailable: number; currentlyAvailable: number; restoreRate: number } | null;
}

/** One GraphQL request over HTTP, timed from send to the end of the body. */
export async function send(
  url: string,
  payload: unknown,
  user: string,
  options: { headers?: Record<string, string>; timeoutMs?: number } = {},
): Promise<Reply> {
  const started = performance.now();
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-test-user': user, ...options.headers },
    body: typeof payload === 'string' ? payload : JSON.stringify(payload),
    signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
  });
  const text = await response.text();
  const ms = performance.now() - started;
  let body: GraphQLBody | null = null;
  try {
    body = JSON.parse(text) as GraphQLBody;
  } catch {
    body = null;
  }
  return { status: response.status, ms, headers: response.headers, body, text };
}

export interface LoadOptions {
  urls: readonly string[];
  /** Requests in flight at any moment (spread round-robin over `urls`). */
  concurrency: number;
  /** The operation sent. */
  query: string;
  /** Who pays for request number `i`. */
  user: (i: number) => string;
  /** Hard caps: the load stops at whichever comes first. */
  maxRequests: number;
  maxMs: number;
  /**
   * Workers (out of `concurrency`) that send CONTROL_QUERY instead: an operation the plugin refuses
   * (a list size beyond `maxListSize`) before it calls the store. Its latency is what the machine, Node and Apollo
   * cost at that moment, so `real − control` is the latency the store path added.
   * @default 0
   */
  controlWorkers?: number;
}

/** A list size beyond `maxListSize` (10,000 by default): refused with a 400 before the plugin calls the store. */
export const CONTROL_QUERY = '{ items(first: 2147483647) { id } }';

export interface Load {
  readonly samples: Sample[];
  /** Stops sending, waits for the requests in flight, returns every sample. */
  stop(): Promise<Sample[]>;
  /** Waits until `maxRequests` or `maxMs` is reached, returns every sample. */
  done(): Promise<Sample[]>;
}

/** Starts a closed-loop load: `concurrency` workers, each sending the next request when one ends. */
export function startLoad(options: LoadOptions): Load {
  const samples: Sample[] = [];
  const deadline = performance.now() + options.maxMs;
  let next = 0;
  let stopping = false;

  const worker = async (index: number): Promise<void> => {
    const control = index < (options.controlWorkers ?? 0);
    let own = 0;
    while (!stopping && next < options.maxRequests && performance.now() < deadline) {
      const i = next++;
      const server = control ? own++ % options.urls.length : i % options.urls.length;
      const user = control ? 'control' : options.user(i);
      const start = performance.now();
      try {
        const query = control ? CONTROL_QUERY : options.query;
        const reply = await send(options.urls[server]!, { query }, user, { timeoutMs: 5000 });
        const cost = reply.body?.extensions?.cost;
        samples.push({
          server,
          user,
          start,
          end: performance.now(),
          status: reply.status,
          storeAnswered: cost?.throttleStatus != null,
          requestedQueryCost: cost?.requestedQueryCost ?? null,
          actualQueryCost: cost?.actualQueryCost ?? null,
          code: reply.body?.errors?.[0]?.extensions?.code ?? null,
          failure: reply.body ? null : `not JSON: ${reply.text.slice(0, 200)}`,
          control,
        });
      } catch (error) {
        samples.push({
          server,
          user,
          start,
          end: performance.now(),
          status: 0,
          storeAnswered: false,
          requestedQueryCost: null,
          actualQueryCost: null,
          code: null,
          failure: String(error),
          control,
        });
      }
    }
  };
  const workers = Array.from({ length: options.concurrency }, (_, index) => worker(index));

  return {
    samples,
    stop: async () => {
      stopping = true;
      await Promise.all(workers);
      return samples;
    },
    done: async () => {
      await Promise.all(workers);
      return samples;
    },
  };
}

/** Added latency of the store path over [from, to]. */
export interface AddedLatency {
  /** p90(real) − p90(control) (ms). */
  p90: number;
  /** max(real) − max(control) (ms). */
  max: number;
}

/**
 * How much slower real requests were than control requests sent at the same moments to the same
 * processes: what the store path (deadline, breaker, fallback) added, net of machine load.
 */
export function addedLatency(samples: Sample[], from: number, to: number): AddedLatency {
  const inWindow = samples.filter((s) => s.start >= from && s.start < to);
  const real = inWindow.filter((s) => !s.control).map(latency);
  const control = inWindow.filter((s) => s.control).map(latency);
  return {
    p90: Math.round(percentile(real, 90) - percentile(control, 90)),
    max: Math.round(worst(real) - worst(control)),
  };
}

/** Latency of a sample in ms. */
export const latency = (s: Sample): number => s.end - s.start;

/** The largest value, or 0 for none. */
export const worst = (values: number[]): number => values.reduce((a, b) => Math.max(a, b), 0);

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
