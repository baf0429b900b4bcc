import { fork, type ChildProcess } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { formatInt, type Row, type SectionResult } from '../lib/report.js';
import { median } from '../lib/stats.js';
import { REQUEST_BODY } from '../http/variants.js';
import { killOnExit } from '../lib/children.js';
import { builtScript } from '../lib/paths.js';

const ENTRY = builtScript('bench/http/deny-cache-server.ts');

export interface DenyCacheOptions {
  redisUrl: string;
  /** Connections of the well-behaved callers, and of the abuser. */
  connections: number;
  seconds: number;
  rounds: number;
}

interface Counts {
  abuser: number;
  others: number;
  /** CPU time the server process has used (µs). */
  cpuUs: number;
}

interface CacheServer {
  url: string;
  counts(): Promise<Counts>;
  stop(): Promise<void>;
}

function startServer(redisUrl: string, cache: 'on' | 'off'): Promise<CacheServer> {
  const child: ChildProcess = fork(ENTRY, [redisUrl, cache], {
    execArgv: [],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  killOnExit(child);
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const force = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.disconnect();
    await exited;
    clearTimeout(force);
  };
  const counts = (): Promise<Counts> =>
    new Promise((resolve) => {
      const onMessage = (message: Partial<Counts>): void => {
        const { abuser, others, cpuUs } = message;
        if (typeof abuser !== 'number' || typeof others !== 'number' || typeof cpuUs !== 'number') return;
        child.off('message', onMessage);
        resolve({ abuser, others, cpuUs });
      };
      child.on('message', onMessage);
      child.send('counts');
    });
  return new Promise((resolve, reject) => {
    child.once('message', (message: { url?: string }) => {
      if (typeof message.url === 'string') resolve({ url: message.url, counts, stop });
      else reject(new Error('deny-cache server sent no url'));
    });
    child.once('exit', (code) => reject(new Error(`deny-cache server exited with code ${code}`)));
  });
}

interface Traffic {
  /** Answered requests per second of the well-behaved callers (2xx). */
  othersPerSecond: number;
  /** Requests the abuser sent, and how many came back 429. */
  abuserRequests: number;
  abuserRefused: number;
  /** Store calls made for the abuser during the run. */
  abuserStoreCalls: number;
  /** The server's CPU time during the run (µs). */
  serverCpuUs: number;
}

/**
 * The well-behaved callers at `rate` requests per second (undefined: as fast as the server answers;
 * null: none), and the abuser beside them at `abuserRate` (undefined: as fast as the server answers it; null: no
 * abuser).
 */
async function traffic(
  server: CacheServer,
  options: DenyCacheOptions,
  rate: number | undefined | null,
  abuserRate: number | undefined | null,
): Promise<Traffic> {
  const run = (caller: string, overallRate: number | undefined) =>
    autocannon({
      url: server.url,
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-bench-caller': caller },
      body: REQUEST_BODY,
      connections: options.connections,
      duration: options.seconds,
      timeout: 10,
      ...(overallRate === undefined ? {} : { overallRate }),
    });
  const before = await server.counts();
  const started = performance.now();
  const [others, abuser] = await Promise.all([
    rate === null ? Promise.resolve(undefined) : run('good', rate),
    abuserRate === null ? Promise.resolve(undefined) : run('abuser', abuserRate),
  ]);
  const seconds = (performance.now() - started) / 1000;
  const after = await server.counts();
  return {
    othersPerSecond: others === undefined ? 0 : others['2xx'] / seconds,
    abuserRequests: abuser === undefined ? 0 : abuser['2xx'] + abuser.non2xx,
    abuserRefused: abuser === undefined ? 0 : abuser.non2xx,
    abuserStoreCalls: after.abuser - before.abuser,
    serverCpuUs: after.cpuUs - before.cpuUs,
  };
}

/**
 * The deny cache: one caller hammering past its budget (100 tokens, refilling 10 per second) at the
 * highest rate the server sustains for it without the cache (every refusal a store call), beside
 * well-behaved callers sending half of what the server answers them alone, on a RedisBucketStore.
 * Both variants get the same offered load: with the cache on, a closed-loop abuser would send more
 * (its refusals come back sooner) and its load generator, on the same cores, would take the CPU the
 * cache saved. Store calls made for the abuser per request it sent (goal
 * ≤ 5 %), and the well-behaved callers' throughput next to the same load without the abuser (goal
 * ≥ 0.95×); the same with the deny cache off, for comparison.
 */
export async function denyCache(options: DenyCacheOptions): Promise<SectionResult> {
  const started = performance.now();
  const servers = { on: await startServer(options.redisUrl, 'on'), off: await startServer(options.redisUrl, 'off') };
  const samples = { alone: [] as Traffic[], on: [] as Traffic[], off: [] as Traffic[] };
  let rate = 0;
  let abuserRate = 0;
  const refusalCpuUs = { on: 0, off: 0 };
  try {
    for (const server of [servers.on, servers.off])
      await traffic(server, { ...options, seconds: Math.min(1, options.seconds) }, undefined, undefined);
    // The well-behaved callers' load: half of what the server answers them at full speed, alone.
    const capacity = (await traffic(servers.on, options, undefined, null)).othersPerSecond;
    rate = Math.max(10, Math.round(capacity / 2));
    // The abuser's: the highest rate the server sustains for it, alone, when every refusal is a store call.
    const hammer = await traffic(servers.off, options, null, undefined);
    abuserRate = Math.max(10, Math.round(hammer.abuserRequests / options.seconds));
    // What one refusal costs the server, the abuser alone at that rate: answered by the cache, or by the store.
    for (const [cache, server] of [
      ['on', servers.on],
      ['off', servers.off],
    ] as const) {
      const alone = await traffic(server, options, null, abuserRate);
      refusalCpuUs[cache] = alone.serverCpuUs / Math.max(1, alone.abuserRequests);
    }
    for (let round = 0; round < options.rounds; round++) {
      samples.alone.push(await traffic(servers.on, options, rate, null));
      samples.on.push(await traffic(servers.on, options, rate, abuserRate));
      samples.off.push(await traffic(servers.off, options, rate, abuserRate));
    }
  } finally {
    await Promise.all([servers.on.stop(), servers.off.stop()]);
  }
  const alone = median(samples.alone.map((t) => t.othersPerSecond));
  const row = (label: string, runs: Traffic[], cache: boolean): Row[] => {
    const others = median(runs.map((t) => t.othersPerSecond));
    const requests = runs.reduce((sum, t) => sum + t.abuserRequests, 0);
    const calls = runs.reduce((sum, t) => sum + t.abuserStoreCalls, 0);
    const refused = runs.reduce((sum, t) => sum + t.abuserRefused, 0);
    const share = calls / Math.max(1, requests);
    return [
      {
        variant: `${label}: store calls for the abuser`,
        value: `${formatInt(calls)} for ${formatInt(requests)} requests (${formatInt(refused)} refused)`,
        metrics: { calls, requests, refused, share },
        ratio: { value: share, of: 'its requests', unit: '' },
        ...(cache ? { goal: { op: '<=' as const, target: 0.05 }, met: share <= 0.05 } : {}),
      },
      {
        variant: `${label}: well-behaved callers' throughput`,
        value: `${formatInt(others)} req/s (alone ${formatInt(alone)} req/s)`,
        metrics: { requestsPerSecond: others, alone },
        ratio: { value: others / alone, of: 'without the abuser' },
        ...(cache ? { goal: { op: '>=' as const, target: 0.95 }, met: others / alone >= 0.95 } : {}),
      },
    ];
  };
  const on = row('deny cache on', samples.on, true);
  const off = row('deny cache off', samples.off, false);
  const shareOn = on[0]?.metrics.share ?? 0;
  return {
    id: 'deny-cache',
    title: '7. Deny cache: one abusive caller',
    method:
      `The example server on a RedisBucketStore; ${options.connections} connections of well-behaved callers at ` +
      `${formatInt(rate)} req/s (half of what the server answered them at full speed, alone), with and without ` +
      `${options.connections} connections of one caller hammering past a 100-token budget (refill 10/s) at ` +
      `${formatInt(abuserRate)} req/s (the most the server answered it, alone, with the cache off: every refusal a store ` +
      `call), the same offered load with the cache on and off, ${options.seconds} s per run, ${options.rounds} ` +
      'alternating rounds (medians; store calls summed).',
    rows: [
      ...on,
      ...off,
      {
        variant: 'server CPU per refused request, cache on vs off',
        value: `${formatInt(refusalCpuUs.on)} µs on, ${formatInt(refusalCpuUs.off)} µs off (the abuser alone)`,
        metrics: { on: refusalCpuUs.on, off: refusalCpuUs.off },
        ratio: { value: refusalCpuUs.on / Math.max(1, refusalCpuUs.off), of: 'cache off' },
      },
    ],
    notes: [
      'The abuser gets the same offered load in both variants: run as fast as the server answers it, it would send more ' +
        'with the cache on (its refusals come back sooner), and its load generator, on the same two cores, would take ' +
        'the CPU the cache saved.',
      `With the deny cache ${(shareOn * 100).toFixed(2)} % of the abuser's requests reached the store (the first refusal, and one ` +
        'request whenever the account says enough has refilled); without it, every one does.',
      "All processes share the machine: the abuser's requests still cost the server their HTTP and GraphQL work (parsing, " +
        "validation, the plugin) and its load generator runs beside the server, so the well-behaved callers' throughput " +
        'beside it measures that CPU share as well as the store calls the cache saves. A refusal from the cache yields to ' +
        "the event loop's other I/O before it answers, as a store call would, so the abuser's requests take turns with " +
        "everyone else's instead of running back to back.",
    ],
    seconds: (performance.now() - started) / 1000,
  };
}
