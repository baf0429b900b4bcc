import { expect } from 'vitest';
import { startApp, type AppEnv, type AppProcess } from './app-process.js';
import { addedLatency, latency, percentile, send, worst, type Sample } from './http-load.js';
import { APP_QUERY } from './app-queries.js';

/**
 * The plugin's per-call store deadline in the fault scenarios (ms). Twice the default, so that a
 * 2-core machine busy with other work does not miss it while Redis is healthy.
 */
export const STORE_TIMEOUT_MS = 100;
/**
 * Latency the store path may add on top of the deadline (ms), measured as p90 of real requests
 * minus p90 of control requests sent at the same moments to the same processes (`addedLatency`),
 * so that the load other work puts on the machine does not count.
 */
export const LATENCY_MARGIN_MS = 150;
export const LATENCY_BOUND_MS = STORE_TIMEOUT_MS + LATENCY_MARGIN_MS;
/**
 * No single request may take longer than this (ms), whatever the machine's load: well below the
 * 2 s outage, the 3 s pause and a cluster failover, so a request that waited for Redis fails.
 */
export const HANG_BOUND_MS = 1500;
/** Requests in flight during a fault scenario, and how many of those are control requests. */
export const LOAD_CONCURRENCY = 12;
export const CONTROL_WORKERS = 3;
/** Limiting must resume within this long after Redis answers again (ms). */
export const RESUME_WITHIN_MS = 1000;

/**
 * Checks that a load's control requests were all refused before the store (400, a list size beyond
 * `maxListSize`), and returns the real ones.
 */
export function real(samples: Sample[]): Sample[] {
  const control = samples.filter((s) => s.control);
  expect(control.length).toBeGreaterThan(20);
  const wrong = control.filter((s) => s.status !== 400 || s.code !== 'COST_LIST_SIZE_OUT_OF_RANGE');
  expect(wrong.length, `control requests not refused before the store: ${JSON.stringify(wrong.slice(0, 3))}`).toBe(0);
  return samples.filter((s) => !s.control);
}

/** No request hung, and over [from, to] the store path added at most deadline + margin. */
export function expectLatency(
  samples: Sample[],
  from: number,
  to: number,
): { worstMs: number; addedP90Ms: number; addedMaxMs: number } {
  const worstMs = Math.round(worst(samples.filter((s) => !s.control).map(latency)));
  const added = addedLatency(samples, from, to);
  expect(worstMs).toBeLessThanOrEqual(HANG_BOUND_MS);
  expect(added.p90).toBeLessThanOrEqual(LATENCY_BOUND_MS);
  return { worstMs, addedP90Ms: added.p90, addedMaxMs: added.max };
}

/** Two (or more) app-server processes sharing one Redis, like a production deployment. */
export interface Fleet {
  readonly apps: AppProcess[];
  readonly urls: string[];
  /** `extensions.cost.requestedQueryCost` of APP_QUERY (tokens). */
  readonly queryCost: number;
  /** Records every process's heap now (call it where a leak would peak, e.g. at the end of an outage). */
  sampleHeaps(): Promise<void>;
  stop(): Promise<void>;
}

export async function startFleet(env: AppEnv, count = 2): Promise<Fleet> {
  const started = await Promise.allSettled(Array.from({ length: count }, () => startApp(env)));
  const apps = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const stop = async (): Promise<void> => {
    await Promise.all(apps.map((app) => app.stop()));
  };
  try {
    for (const result of started) if (result.status === 'rejected') throw result.reason;
    // Warm up: compile the hot paths and open the Redis connections before anything is measured.
    let queryCost = Number.NaN;
    for (const app of apps) {
      for (let i = 0; i < 20; i++) {
        const reply = await send(app.url, { query: APP_QUERY }, `warm-up-${i}`);
        queryCost = reply.body?.extensions?.cost?.requestedQueryCost ?? Number.NaN;
      }
    }
    if (!(queryCost > 0)) throw new Error('the app server did not report a cost for APP_QUERY');
    // The heap after warm-up is the baseline that growth is measured from.
    for (const app of apps) await app.sampleHeap();
    return {
      apps,
      urls: apps.map((app) => app.url),
      queryCost,
      sampleHeaps: async () => {
        for (const app of apps) await app.sampleHeap();
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Heap growth of an app process since its warm-up: the largest sample since then minus the first, in MB. */
export function heapGrowthMb(app: AppProcess): number {
  const [baseline, ...later] = app.heapSamples;
  if (baseline === undefined || later.length === 0) return 0;
  return (Math.max(...later) - baseline) / 1e6;
}

/** Limit on an app process's heap growth over one scenario (after a full GC), in MB. */
export const HEAP_GROWTH_LIMIT_MB = 32;

/**
 * The processes are still running, reported no unhandled rejection or uncaught exception, and
 * their heap after a full GC, sampled now and wherever the test called `sampleHeaps()`, never grew
 * by more than `limitMb` over its post-warm-up size (a queue of pending Redis commands growing
 * with the outage would).
 */
export async function expectHealthy(fleet: Fleet, limitMb = HEAP_GROWTH_LIMIT_MB): Promise<{ heapGrowthMb: number[] }> {
  await fleet.sampleHeaps();
  for (const app of fleet.apps) {
    expect(app.exitStatus()).toBeNull();
    expect(app.faults).toEqual([]);
    expect(heapGrowthMb(app)).toBeLessThan(limitMb);
  }
  return { heapGrowthMb: fleet.apps.map((app) => Math.round(heapGrowthMb(app) * 10) / 10) };
}

/** How often each process's circuit breaker opened, by the reason it logged. */
export function breakerOpenings(fleet: Fleet): Record<string, number> {
  const reasons: Record<string, number> = {};
  for (const app of fleet.apps) {
    for (const line of app.logs) {
      const match = /the bucket store failed \((.*?)\); not calling it/.exec(line);
      if (match) {
        const reason = match[1]!.replace(/\d+/g, 'N').slice(0, 80);
        reasons[reason] = (reasons[reason] ?? 0) + 1;
      }
    }
  }
  return reasons;
}

/** One line per scenario with the figures the README quotes. */
export function report(scenario: string, samples: Sample[], extra: Record<string, unknown> = {}): void {
  const ms = samples.map(latency);
  const statuses: Record<string, number> = {};
  for (const s of samples) statuses[s.status] = (statuses[s.status] ?? 0) + 1;
  const figures = {
    requests: samples.length,
    statuses,
    failures: samples.filter((s) => s.failure !== null).length,
    uncharged: samples.filter((s) => !s.storeAnswered).length,
    p50Ms: Math.round(percentile(ms, 50)),
    p99Ms: Math.round(percentile(ms, 99)),
    worstMs: Math.round(worst(ms)),
    ...extra,
  };
  console.log(`fault-report ${scenario}: ${JSON.stringify(figures)}`);
}
