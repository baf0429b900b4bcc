import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import type { Redis } from 'ioredis';
import { redisCpuMicros } from '../lib/machine.js';
import { percentile } from '../lib/stats.js';
import type { VariantServer } from './servers.js';
import { hasPlugin, REQUEST_BODY, REQUEST_HEADERS, type HttpVariant } from './variants.js';

export interface LoadOptions {
  server: VariantServer;
  /** The benchmark's redis-server, whose CPU time is sampled around the run. */
  redis: Redis;
  connections: number;
  seconds: number;
  /** Requests per second from all connections together; absent = as fast as the server answers. */
  overallRate?: number;
}

export interface LoadResult {
  requestsPerSecond: number;
  /** Milliseconds, from every response's own timing (autocannon's histogram keeps whole ms only). */
  p50: number;
  p99: number;
  ok: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** 2xx responses whose body was not what the variant must answer (see `checkBody`). */
  mismatches: number;
  /** CPU time of the server process per answered request (µs): robust to a busy machine. */
  serverCpuMicros: number;
  /** CPU time of redis-server per answered request (µs). */
  redisCpuMicros: number;
}

/**
 * What a correct answer looks like: data and no errors; with the plugin, an `extensions.cost` with a
 * real throttle status (a `null` one would mean the request went through uncharged).
 */
export function checkBody(variant: HttpVariant): (body: string) => boolean {
  const plugin = hasPlugin(variant);
  return (body) => {
    if (!body.startsWith('{"data":{"books":') || body.includes('"errors"')) return false;
    return !plugin || (body.includes('"requestedQueryCost"') && !body.includes('"throttleStatus":null'));
  };
}

/** One autocannon run against `url` with the benchmark's request. */
export async function load(options: LoadOptions): Promise<LoadResult> {
  const { server, redis } = options;
  const latencies: number[] = [];
  const [serverBefore, redisBefore] = await Promise.all([server.cpuMicros(), redisCpuMicros(redis)]);
  const instance = autocannon({
    url: server.url,
    method: 'POST',
    headers: REQUEST_HEADERS,
    body: REQUEST_BODY,
    connections: options.connections,
    duration: options.seconds,
    timeout: 10,
    verifyBody: checkBody(server.variant),
    ...(options.overallRate === undefined ? {} : { overallRate: options.overallRate }),
  });
  instance.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
    if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
  });
  const started = performance.now();
  const result = await instance;
  const seconds = (performance.now() - started) / 1000;
  const [serverAfter, redisAfter] = await Promise.all([server.cpuMicros(), redisCpuMicros(redis)]);
  const answered = Math.max(1, result['2xx'] + result.non2xx);
  return {
    serverCpuMicros: (serverAfter - serverBefore) / answered,
    redisCpuMicros: (redisAfter - redisBefore) / answered,
    requestsPerSecond: result['2xx'] / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    ok: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    // autocannon checks every body; a non-2xx one never matches, so count only the 2xx ones here.
    mismatches: Math.max(0, result.mismatches - result.non2xx),
  };
}

/** Every response that was not a correct 2xx. */
export function failures(result: LoadResult): number {
  return result.non2xx + result.errors + result.timeouts + result.mismatches;
}

/**
 * Throws unless every response of the run was a correct 2xx (the figures would not be overhead
 * alone). `lenient` (quick smoke runs on a busy machine) tolerates non-2xx answers, connection errors
 * and timeouts, but never a wrong body nor a run without a single correct answer.
 */
export function assertClean(variant: HttpVariant, result: LoadResult, lenient = false): void {
  const bad = lenient ? result.mismatches : failures(result);
  if (bad > 0 || result.ok === 0) {
    throw new Error(
      `${variant}: ${result.ok} ok, ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts, ` +
        `${result.mismatches} unexpected bodies: the run did not measure overhead alone`,
    );
  }
}
