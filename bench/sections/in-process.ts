import { performance } from 'node:perf_hooks';
import { BOOKSTORE_OPERATIONS, type BookstoreOperation } from '../in-process/bookstore.js';
import type { InProcessReply, InProcessServer, InProcessVariant } from '../in-process/variant.js';
import { IN_PROCESS_VARIANTS } from '../in-process/variants.js';
import { processCpuMicros } from '../lib/proc-cpu.js';
import { formatInt, formatUs, type Row, type SectionResult } from '../lib/report.js';
import { median, quartiles, rotate } from '../lib/stats.js';

/** How long one operation is measured. */
export interface InProcessSample {
  /** Rounds; each runs every variant once, in a rotating order. */
  rounds: number;
  /** Requests per variant per round. */
  requests: number;
  /** Requests per variant before the first round (JIT, caches, the store's first calls). */
  warmUp: number;
}

export interface InProcessOptions {
  redisUrl: string;
  /** Process id of the benchmark's redis-server, whose CPU time is read from /proc. */
  redisPid: number;
  /** Requests in flight at once. */
  inFlight: number;
  /** The sample of each operation of `BOOKSTORE_OPERATIONS`, by its id. */
  operations: Readonly<Record<BookstoreOperation['id'], InProcessSample>>;
}

/** What one variant measured on one operation over the rounds. */
export interface InProcessFigures {
  variant: InProcessVariant;
  operation: BookstoreOperation;
  /** Process CPU time per request in each round (µs). */
  cpuPerRequest: number[];
  /** Per-round difference to the baseline's (µs), when the variant has one. */
  added?: number[];
  /** redis-server CPU per request over all the variant's rounds, its idle rate taken out (µs). */
  redisPerRequest?: number;
  /** Measured requests refused with 503 `BUDGET_UNAVAILABLE`: the store missed its deadline or failed. */
  storeMisses: number;
  /** The same, among the warm-up's requests (not measured). */
  warmUpStoreMisses: number;
  /** Measured requests. */
  requests: number;
}

/** The in-process results the goals table reads: per operation and variant (`figureKey`). */
export type InProcessResult = SectionResult & { figures: ReadonlyMap<string, InProcessFigures> };

export function figureKey(operation: BookstoreOperation, variantId: string): string {
  return `${operation.id}/${variantId}`;
}

/** A row's label: the variant and the operation it answered. */
export function rowLabel(operation: BookstoreOperation, variant: InProcessVariant): string {
  return `${variant.label}; ${operation.label}`;
}

/**
 * Whether the plugin refused the request because its store did not answer in time or failed
 * (`onStoreError: 'deny'`): a 503 with the `BUDGET_UNAVAILABLE` code. The section counts these
 * rather than failing the run.
 */
export function isStoreMiss(variant: InProcessVariant, reply: InProcessReply): boolean {
  return variant.plugin && reply.status === 503 && reply.body.includes('"code":"BUDGET_UNAVAILABLE"');
}

/**
 * Why a reply is not what the variant must answer to `operation`, or undefined when it is: 200,
 * the expected data, no errors; with the plugin, the cost extension with a real throttle status
 * (a `null` one would mean the request went through uncharged) and the budget headers.
 */
export function replyProblem(
  variant: InProcessVariant,
  operation: BookstoreOperation,
  reply: InProcessReply,
): string | undefined {
  if (reply.status !== 200) return `status ${reply.status}: ${reply.body.slice(0, 300)}`;
  if (!reply.body.startsWith(`{"data":${operation.dataJson}`)) return `unexpected body ${reply.body.slice(0, 200)}`;
  if (reply.body.includes('"errors"')) return `errors in ${reply.body.slice(0, 200)}`;
  if (!variant.plugin) return undefined;
  const cost = /"throttleStatus":(\{"maximumAvailable":\d[^}]*\})/.exec(reply.body);
  if (cost === null) return `no real throttle status in ${reply.body.slice(0, 300)}`;
  if (!reply.headers.get('ratelimit')) return 'no RateLimit header';
  return undefined;
}

/** Sends `operation` `count` times, `inFlight` at a time; keeps every reply for checking after the timing. */
async function drive(
  server: InProcessServer,
  operation: BookstoreOperation,
  count: number,
  inFlight: number,
): Promise<InProcessReply[]> {
  const replies: InProcessReply[] = new Array(count);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < count) {
      const index = next++;
      replies[index] = await server.request(operation);
    }
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, count) }, lane));
  return replies;
}

/** Fails on any reply that is not the expected answer or a store miss; returns the store misses. */
function check(variant: InProcessVariant, operation: BookstoreOperation, replies: readonly InProcessReply[]): number {
  let misses = 0;
  for (const reply of replies) {
    if (isStoreMiss(variant, reply)) {
      misses++;
      continue;
    }
    const problem = replyProblem(variant, operation, reply);
    if (problem !== undefined) throw new Error(`${variant.label}, ${operation.label}: ${problem}`);
  }
  return misses;
}

function cpuNow(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

/** `12 µs (IQR 10–14 µs)`, signed when `signed`. */
function withIqr(values: readonly number[], signed: boolean): string {
  const [low, high] = quartiles(values);
  const sign = (value: number): string => (signed && value >= 0 ? '+' : '');
  return `${sign(median(values))}${formatUs(median(values))} (IQR ${sign(low)}${formatUs(low)} to ${sign(high)}${formatUs(high)})`;
}

function row(figure: InProcessFigures, figures: ReadonlyMap<string, InProcessFigures>): Row {
  const { variant, operation, cpuPerRequest, added, redisPerRequest } = figure;
  const [low, high] = quartiles(cpuPerRequest);
  const metrics: Record<string, number> = {
    cpuMicrosPerRequestMedian: median(cpuPerRequest),
    cpuMicrosPerRequestQ1: low,
    cpuMicrosPerRequestQ3: high,
    ...Object.fromEntries(cpuPerRequest.map((us, round) => [`cpuRound${round}`, us])),
    requests: figure.requests,
  };
  let value = `${withIqr(cpuPerRequest, false)} CPU per request`;
  let ratio: Row['ratio'];
  if (added !== undefined) {
    const baseline = figures.get(figureKey(operation, variant.baseline!))!;
    const [addedLow, addedHigh] = quartiles(added);
    Object.assign(metrics, {
      baselineCpuMicrosMedian: median(baseline.cpuPerRequest),
      addedMicrosMedian: median(added),
      addedMicrosQ1: addedLow,
      addedMicrosQ3: addedHigh,
    });
    value += `; ${withIqr(added, true)} over ${baseline.variant.label}`;
    const reference =
      variant.reference === undefined ? undefined : figures.get(figureKey(operation, variant.reference));
    if (reference?.added !== undefined) {
      // A ratio of the medians: a round's own difference is too noisy to divide by.
      const referenceAdded = median(reference.added);
      metrics.referenceAddedMicrosMedian = referenceAdded;
      if (referenceAdded > 0) {
        metrics.referenceRatio = median(added) / referenceAdded;
        ratio = { value: metrics.referenceRatio, of: 'graphql-query-complexity' };
      }
    }
  }
  if (redisPerRequest !== undefined) {
    metrics.redisServerMicrosPerRequest = redisPerRequest;
    value += `; redis-server ${formatUs(redisPerRequest)} per request besides`;
  }
  if (variant.plugin) {
    metrics.storeMisses = figure.storeMisses;
    metrics.warmUpStoreMisses = figure.warmUpStoreMisses;
    if (variant.redis || figure.storeMisses > 0) {
      value += `; store-deadline misses: ${formatInt(figure.storeMisses)} of ${formatInt(figure.requests)} requests`;
    }
  }
  return ratio === undefined
    ? { variant: rowLabel(operation, variant), value, metrics }
    : { variant: rowLabel(operation, variant), value, metrics, ratio };
}

/**
 * The headline CPU figure: every server of `IN_PROCESS_VARIANTS` in this one process, driven
 * without sockets, on each operation of `BOOKSTORE_OPERATIONS` in turn, interleaved round by round
 * in a rotating order; in each round each server answers the same number of requests with the
 * same number in flight, and the process CPU time (`process.cpuUsage()`, user + system) per
 * request is taken for each. A variant's cost over its baseline is the median of the per-round
 * differences, which cancels what drifts between rounds (other processes, frequency, the
 * machine's load), with their interquartile range; the plugin's and graphql-armor's are also
 * given as a ratio to graphql-query-complexity's on the same framework and operation.
 */
export async function inProcess(options: InProcessOptions): Promise<InProcessResult> {
  const started = performance.now();
  const { redisUrl, redisPid, inFlight } = options;
  const variants = IN_PROCESS_VARIANTS;
  const servers = new Map<InProcessVariant, InProcessServer>();
  const figures = new Map<string, InProcessFigures>();
  let checked = 0;
  let misses = 0;
  try {
    for (const variant of variants) servers.set(variant, await variant.start({ redisUrl }));
    // redis-server's CPU: in the Redis variants' windows, less its idle rate (its timer events)
    // measured in the other windows. /proc counts in clock ticks, so both are summed over the run.
    let redisIdleUs = 0;
    let redisIdleSeconds = 0;
    const redisRequests = new Map<string, { us: number; seconds: number; requests: number }>();
    for (const operation of BOOKSTORE_OPERATIONS) {
      const { rounds, requests, warmUp } = options.operations[operation.id];
      for (const variant of variants) {
        const warmUpStoreMisses = check(
          variant,
          operation,
          await drive(servers.get(variant)!, operation, warmUp, inFlight),
        );
        figures.set(figureKey(operation, variant.id), {
          variant,
          operation,
          cpuPerRequest: [],
          storeMisses: 0,
          warmUpStoreMisses,
          requests: 0,
        });
      }
      for (let round = 0; round < rounds; round++) {
        for (const variant of rotate(variants, round)) {
          const server = servers.get(variant)!;
          const key = figureKey(operation, variant.id);
          const redisBefore = processCpuMicros(redisPid);
          const wallBefore = performance.now();
          const cpuBefore = cpuNow();
          const replies = await drive(server, operation, requests, inFlight);
          const cpu = cpuNow() - cpuBefore;
          const seconds = (performance.now() - wallBefore) / 1000;
          const redisCpu = processCpuMicros(redisPid) - redisBefore;
          const figure = figures.get(key)!;
          const missed = check(variant, operation, replies);
          figure.storeMisses += missed;
          figure.requests += requests;
          figure.cpuPerRequest.push(cpu / requests);
          checked += replies.length;
          misses += missed;
          if (variant.redis) {
            const sum = redisRequests.get(key) ?? { us: 0, seconds: 0, requests: 0 };
            redisRequests.set(key, {
              us: sum.us + redisCpu,
              seconds: sum.seconds + seconds,
              requests: sum.requests + requests,
            });
          } else {
            redisIdleUs += redisCpu;
            redisIdleSeconds += seconds;
          }
        }
      }
    }
    const idleRate = redisIdleSeconds > 0 ? redisIdleUs / redisIdleSeconds : 0;
    for (const [key, sum] of redisRequests) {
      figures.get(key)!.redisPerRequest = Math.max(0, sum.us - idleRate * sum.seconds) / sum.requests;
    }
    for (const figure of figures.values()) {
      const { variant, operation } = figure;
      const baseline = variant.baseline === undefined ? undefined : figures.get(figureKey(operation, variant.baseline));
      if (baseline !== undefined) {
        figure.added = figure.cpuPerRequest.map((us, round) => us - baseline.cpuPerRequest[round]!);
      }
    }
  } finally {
    for (const server of servers.values()) await server.stop();
  }

  const warmUpMisses = [...figures.values()].reduce((sum, figure) => sum + figure.warmUpStoreMisses, 0);
  const samples = BOOKSTORE_OPERATIONS.map((operation) => {
    const { rounds, requests } = options.operations[operation.id];
    return `\`${operation.query}\` (${operation.label}) in ${rounds} rounds of ${formatInt(requests)} requests per server`;
  });
  return {
    id: 'in-process',
    title: '1. CPU per request, in one process',
    method:
      `${variants.length} servers in this one process, driven through \`executeHTTPGraphQLRequest\` or \`yoga.fetch\` ` +
      `(no sockets), ${inFlight} requests in flight; each operation in turn, interleaved in rounds (the order rotating): ` +
      `${samples.join('; then ')}. The process CPU time (\`process.cpuUsage()\`) per request of each server in each round. ` +
      `A guarded server's cost is the median of the per-round differences to the bare server of its framework, with their ` +
      `interquartile range; the ratio is that median over graphql-query-complexity's on the same framework and operation. ` +
      `The plugin has its default options (metrics on, no OpenTelemetry SDK registered, the default store deadline) with ` +
      `\`onStoreError: 'deny'\` and a budget no run can spend; graphql-query-complexity is \`getComplexity\` with ` +
      `\`fieldExtensionsEstimator\` and \`simpleEstimator\` in \`didResolveOperation\` (Apollo) or \`onExecute\` (Yoga); ` +
      `graphql-armor is \`costLimitRule\` as a validation rule (Apollo, which caches validated documents) or ` +
      `\`costLimitPlugin\` (Yoga); both with limits no request reaches. rate-limiter-flexible is ` +
      `\`RateLimiterRedis.consume(caller, 1)\` at the same point, on an ioredis client with the example's options: it prices ` +
      `nothing, and shows what one Redis call per request costs this process. The Redis variants' figure is the ` +
      `client side (this process); redis-server's own CPU time, from /proc/<pid>/stat over all its rounds less its idle ` +
      `rate, is given beside it. A store-deadline miss is a measured request the plugin refused with 503 ` +
      `\`BUDGET_UNAVAILABLE\` because its store missed the deadline or failed (or a breaker those failures opened).`,
    rows: [...figures.values()].map((figure) => row(figure, figures)),
    notes: [
      `All ${formatInt(checked)} measured responses were 200 with the expected data and no errors` +
        (misses > 0 ? `, except ${formatInt(misses)} store-deadline misses (503 BUDGET_UNAVAILABLE)` : '') +
        `; every ${misses > 0 ? 'other ' : ''}plugin response carried a real throttle status and a RateLimit header.`,
      ...(warmUpMisses > 0 ? [`${formatInt(warmUpMisses)} store-deadline misses in the warm-up (not measured).`] : []),
    ],
    seconds: (performance.now() - started) / 1000,
    figures,
  };
}
