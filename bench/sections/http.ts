import { performance } from 'node:perf_hooks';
import type { Redis } from 'ioredis';
import { assertClean, checkBody, failures, load, type LoadResult } from '../http/load.js';
import { openLoop, type OpenLoopResult } from '../http/open-loop.js';
import type { VariantServer } from '../http/servers.js';
import { REQUEST_BODY, REQUEST_HEADERS, VARIANT_LABELS, type HttpVariant } from '../http/variants.js';
import { median, percentile, quartiles, range, rotate } from '../lib/stats.js';
import {
  alternatingRounds,
  formatPercent,
  formatInt,
  formatMs,
  formatRatio,
  formatUs,
  ratioRow,
  type Row,
  type SectionResult,
} from '../lib/report.js';

export interface HttpThroughputOptions {
  servers: ReadonlyMap<HttpVariant, VariantServer>;
  /** A client of the benchmark's redis-server (its CPU time is sampled). */
  redis: Redis;
  /** Quick smoke runs: tolerate non-2xx answers (reported in the notes) on a busy machine. */
  lenient: boolean;
  connections: number;
  rounds: number;
  seconds: number;
  warmUpSeconds: number;
}

/** Runs every server once per round, rotating the order; checks every response. */
async function alternate(
  servers: ReadonlyMap<HttpVariant, VariantServer>,
  variants: readonly HttpVariant[],
  rounds: number,
  lenient: boolean,
  run: (server: VariantServer) => Promise<LoadResult>,
): Promise<Map<HttpVariant, LoadResult[]>> {
  const results = new Map<HttpVariant, LoadResult[]>(variants.map((variant) => [variant, []]));
  for (let round = 0; round < rounds; round++) {
    for (const variant of rotate(variants, round)) {
      const result = await run(servers.get(variant)!);
      assertClean(variant, result, lenient);
      results.get(variant)!.push(result);
    }
  }
  return results;
}

const totals = (results: readonly LoadResult[]): Record<string, number> => ({
  ok: results.reduce((sum, result) => sum + result.ok, 0),
  non2xx: results.reduce((sum, result) => sum + result.non2xx, 0),
  errors: results.reduce((sum, result) => sum + result.errors + result.timeouts, 0),
});

/** A sentence on how many measured responses were correct, saying plainly when some were not. */
function responseNote(results: ReadonlyMap<HttpVariant, LoadResult[]>): string {
  const all = [...results.values()].flat();
  const ok = all.reduce((sum, result) => sum + result.ok, 0);
  const bad = all.reduce((sum, result) => sum + failures(result), 0);
  if (bad === 0) {
    return `All ${formatInt(ok)} measured responses were 2xx with the expected body (0 non-2xx, 0 errors; every plugin response carried a real throttle status).`;
  }
  return `NOT CLEAN: ${formatInt(bad)} of ${formatInt(ok + bad)} measured responses were non-2xx, errors or timeouts (tolerated in a quick run only).`;
}

/** Server CPU time per request next to bare: what the plugin costs, whatever else runs on the machine. */
function cpuNote(results: ReadonlyMap<HttpVariant, LoadResult[]>): string {
  const cpu = (variant: HttpVariant): number => median(results.get(variant)!.map((result) => result.serverCpuMicros));
  const bare = cpu('bare');
  const redisOf = (variant: HttpVariant): number =>
    median(results.get(variant)!.map((result) => result.redisCpuMicros));
  const redis = redisOf('plugin-redis');
  const added = (variant: HttpVariant): string =>
    `${formatUs(cpu(variant) - bare)} (${formatPercent(cpu(variant) / bare - 1)})`;
  return (
    `Server CPU per request: bare ${formatUs(bare)}; the plugin adds ${added('plugin-memory')} with MemoryBucketStore, ` +
    `${added('plugin-redis')} with RedisBucketStore (plus ${formatUs(redis)} of redis-server CPU), ` +
    `${added('plugin-redis-unbatched')} with RedisBucketStore and batching off (plus ${formatUs(redisOf('plugin-redis-unbatched'))} of redis-server CPU), ` +
    `${added('plugin-redis-unpipelined')} with RedisBucketStore on a client without auto-pipelining; graphql-armor adds ${added('armor-cost-limit')}. ` +
    `Metrics: with MemoryBucketStore the plugin adds ${added('plugin-memory-metrics-off')} with metrics off, ` +
    `${added('plugin-memory')} with metrics on and no OpenTelemetry SDK (the API's no-op meter), ` +
    `${added('plugin-memory-otel-sdk')} with an SDK registered.`
  );
}

/**
 * Section 4: requests/s and latency of the example server at saturation over loopback, alternating
 * a bare Apollo Server, the plugin on each store, and graphql-armor's cost-limit rule.
 */
export async function httpThroughput(options: HttpThroughputOptions): Promise<SectionResult> {
  const started = performance.now();
  const { servers, redis, connections, rounds, seconds, warmUpSeconds, lenient } = options;
  const variants: HttpVariant[] = [
    'bare',
    'plugin-memory',
    'plugin-memory-metrics-off',
    'plugin-memory-otel-sdk',
    'plugin-redis',
    'plugin-redis-unbatched',
    'plugin-redis-unpipelined',
    'armor-cost-limit',
  ];
  const run = (server: VariantServer, runSeconds: number): Promise<LoadResult> =>
    load({ server, redis, connections, seconds: runSeconds });

  // Warm-up (JIT, script loading, the store's clock sample): not checked, not counted. None in a
  // quick run (an autocannon run takes at least a second however short its duration).
  if (warmUpSeconds > 0) for (const variant of variants) await run(servers.get(variant)!, warmUpSeconds);
  const results = await alternate(servers, variants, rounds, lenient, (server) => run(server, seconds));

  const bare = results.get('bare')!;
  const rows: Row[] = variants.map((variant) => {
    const runs = results.get(variant)!;
    const rates = runs.map((result) => result.requestsPerSecond);
    const [low, high] = range(rates);
    const p50 = median(runs.map((result) => result.p50));
    const p99 = median(runs.map((result) => result.p99));
    const cpu = median(runs.map((result) => result.serverCpuMicros));
    const redisCpu = median(runs.map((result) => result.redisCpuMicros));
    const cpuText = variant.startsWith('plugin-redis')
      ? `CPU ${formatUs(cpu)}/req + Redis ${formatUs(redisCpu)}/req`
      : `CPU ${formatUs(cpu)}/req`;
    const value = `${formatInt(median(rates))} req/s (${formatInt(low)}–${formatInt(high)}), p50 ${formatMs(p50)}, p99 ${formatMs(p99)}; ${cpuText}`;
    const metrics = {
      requestsPerSecondMedian: median(rates),
      p50Ms: p50,
      p99Ms: p99,
      serverCpuMicrosPerRequest: cpu,
      redisCpuMicrosPerRequest: redisCpu,
      ...totals(runs),
    };
    if (variant === 'bare') return { variant: VARIANT_LABELS[variant], value, metrics };
    const ratios = runs.map((result, round) => result.requestsPerSecond / bare[round]!.requestsPerSecond);
    const [ratioLow, ratioHigh] = range(ratios);
    return ratioRow(
      VARIANT_LABELS[variant],
      `${value}; ${formatRatio(ratioLow)} to ${formatRatio(ratioHigh)} bare over the rounds`,
      {
        ...metrics,
        ratioMedian: median(ratios),
        ratioLow,
        ratioHigh,
        ...Object.fromEntries(ratios.map((ratio, round) => [`ratioRound${round}`, ratio])),
      },
      { value: median(ratios), of: 'bare' },
    );
  });
  return {
    id: 'http-throughput',
    title: '5. HTTP throughput',
    method:
      `autocannon, ${connections} connections over loopback, one POST per request (a 10-book connection page with a fragment); ` +
      `each server in its own process; ${alternatingRounds(rounds)} of ${seconds} s; ratios are medians of per-round ratios to bare, ` +
      'with their lowest and highest over the rounds.',
    rows,
    notes: [
      cpuNote(results),
      "graphql-armor's rule runs during validation, which Apollo Server caches per query document: with the same query on every request it runs once.",
      responseNote(results),
    ].filter((note): note is string => note !== undefined),
    seconds: (performance.now() - started) / 1000,
  };
}

export interface HttpLatencyOptions {
  servers: ReadonlyMap<HttpVariant, VariantServer>;
  lenient: boolean;
  connections: number;
  /** Requests per second, far below saturation. */
  rate: number;
  rounds: number;
  seconds: number;
}

interface LatencyRun {
  p50Us: number;
  p99Us: number;
  result: OpenLoopResult;
}

/** Every request that was not answered with a correct 2xx. */
function latencyFailures(result: OpenLoopResult): number {
  return result.non2xx + result.errors + result.mismatches;
}

/** `4.512 ms`: latencies at the generator's microsecond resolution. */
function formatLatency(us: number): string {
  return `${(us / 1000).toFixed(3)} ms`;
}

function formatAdded(us: number): string {
  return `${us < 0 ? '−' : '+'}${formatLatency(Math.abs(us))}`;
}

/**
 * Section 6: p50/p99 at a fixed moderate request rate, next to bare, from an open-loop generator
 * that times each request to the microsecond (bench/http/open-loop.ts).
 */
export async function httpLatency(options: HttpLatencyOptions): Promise<SectionResult> {
  const started = performance.now();
  const { servers, connections, rate, rounds, seconds, lenient } = options;
  const variants: HttpVariant[] = ['bare', 'plugin-memory', 'plugin-redis', 'plugin-redis-unbatched'];
  const runs = new Map<HttpVariant, LatencyRun[]>(variants.map((variant) => [variant, []]));
  const measure = async (variant: HttpVariant, runSeconds: number): Promise<LatencyRun> => {
    const result = await openLoop({
      url: servers.get(variant)!.url,
      method: 'POST',
      headers: REQUEST_HEADERS,
      body: REQUEST_BODY,
      rate,
      seconds: runSeconds,
      connections,
      verifyBody: checkBody(variant),
    });
    return { p50Us: percentile(result.latenciesUs, 50), p99Us: percentile(result.latenciesUs, 99), result };
  };
  // Warm-up at the same rate: connections open, the JIT settles. Not counted.
  for (const variant of variants) await measure(variant, Math.min(1, seconds));
  for (let round = 0; round < rounds; round++) {
    for (const variant of rotate(variants, round)) {
      const run = await measure(variant, seconds);
      const bad = lenient ? run.result.mismatches : latencyFailures(run.result);
      if (bad > 0 || run.result.ok === 0) {
        const { ok, non2xx, errors, mismatches } = run.result;
        throw new Error(
          `${variant}: ${ok} ok, ${non2xx} non-2xx, ${errors} errors, ${mismatches} unexpected bodies: the run did not measure the plugin alone`,
        );
      }
      runs.get(variant)!.push(run);
    }
  }
  const bare = runs.get('bare')!;
  const rows: Row[] = variants.map((variant) => {
    const measured = runs.get(variant)!;
    const p50 = median(measured.map((run) => run.p50Us));
    const p99 = median(measured.map((run) => run.p99Us));
    const metrics: Record<string, number> = {
      p50Us: p50,
      p99Us: p99,
      ok: measured.reduce((sum, run) => sum + run.result.ok, 0),
      maxOutstanding: Math.max(...measured.map((run) => run.result.maxOutstanding)),
      ...Object.fromEntries(measured.map((run, round) => [`p99UsRound${round}`, run.p99Us])),
    };
    if (variant === 'bare') {
      return {
        variant: VARIANT_LABELS[variant],
        value: `p50 ${formatLatency(p50)}, p99 ${formatLatency(p99)} at ${rate} req/s`,
        metrics,
      };
    }
    const added50 = measured.map((run, round) => run.p50Us - bare[round]!.p50Us);
    const added99 = measured.map((run, round) => run.p99Us - bare[round]!.p99Us);
    const [low99, high99] = quartiles(added99);
    Object.assign(metrics, {
      bareP99Us: median(bare.map((run) => run.p99Us)),
      addedP50UsMedian: median(added50),
      addedP99UsMedian: median(added99),
      addedP99UsQ1: low99,
      addedP99UsQ3: high99,
    });
    return {
      variant: VARIANT_LABELS[variant],
      value:
        `p50 ${formatLatency(p50)} (${formatAdded(median(added50))}), p99 ${formatLatency(p99)} ` +
        `(${formatAdded(median(added99))}, IQR ${formatAdded(low99)} to ${formatAdded(high99)})`,
      metrics,
    };
  });
  const all = [...runs.values()].flat();
  const ok = all.reduce((sum, run) => sum + run.result.ok, 0);
  const bad = all.reduce((sum, run) => sum + latencyFailures(run.result), 0);
  return {
    id: 'http-latency',
    title: '6. Latency added by the plugin',
    method:
      `An open-loop generator (bench/http/open-loop.ts: requests sent on schedule, each timed with process.hrtime.bigint()) ` +
      `at a fixed ${rate} req/s over ${connections} keep-alive connections, ${alternatingRounds(rounds)} of ${seconds} s; ` +
      `p50 and p99 per round, and the added latency is the median of the per-round differences to bare, with their interquartile range.`,
    rows,
    notes: [
      bad === 0
        ? `All ${formatInt(ok)} measured responses were 2xx with the expected body (every plugin response carried a real throttle status).`
        : `NOT CLEAN: ${formatInt(bad)} requests failed (tolerated in a quick run only).`,
      `At most ${Math.max(...all.map((run) => run.result.maxOutstanding))} requests were unanswered at once (${connections} connections: more means some waited for one, which counts in their latency).`,
    ],
    seconds: (performance.now() - started) / 1000,
  };
}
