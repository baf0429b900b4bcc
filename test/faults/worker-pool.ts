import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { BucketPolicy } from '../../src/index.js';
import type { RedisBucketStoreOptions } from '../../src/bucket/redis-store.js';
import type { BucketLimit } from '../../src/bucket/types.js';
import type { ClientName } from '../support/redis-clients.js';

const workerScript = fileURLToPath(new URL('./consume-worker.ts', import.meta.url));

export interface WorkerConfig {
  /** The client of the worker's store. @default 'ioredis' */
  client?: ClientName;
  url?: string;
  clusterNodes?: { host: string; port: number }[];
  prefix: string;
  key: string;
  cost: number;
  /** Costs cycled call after call, instead of `cost`. */
  costs?: number[];
  policy: BucketPolicy;
  inFlight: number;
  maxCalls: number;
  durationMs: number;
  multi?: {
    callers: number;
    own: BucketPolicy[];
    ownTag: boolean;
    shared: BucketLimit;
  };
  /** Options of the store, besides the prefix. */
  store?: Omit<RedisBucketStoreOptions, 'prefix'>;
}

export interface WorkerTally {
  admitted: number;
  denied: number;
  /** Tokens admitted in all (the sum of the admitted costs). */
  admittedCost: number;
  /** multi: tokens admitted per caller key. */
  perCaller: Record<string, number>;
  errorCount: number;
  errors: string[];
}

/** The buckets a caller's consume charges, in the order given: its own ones, then the shared one. */
export function callerLimits(config: WorkerConfig, caller: string): BucketLimit[] {
  const multi = config.multi as NonNullable<WorkerConfig['multi']>;
  const own = multi.own.map((policy, i) => ({
    key: `${caller}:${i}`,
    policy,
    ...(multi.ownTag ? { hashTag: caller } : {}),
  }));
  return [...own, multi.shared];
}

/**
 * Starts `count` consume-worker processes, waits until every one is connected and warmed up, then
 * calls `beforeGo` (e.g. to read Redis TIME), releases them all at once, and collects their tallies.
 */
export async function runWorkers(
  count: number,
  config: WorkerConfig,
  beforeGo: () => Promise<void> = async () => undefined,
): Promise<WorkerTally[]> {
  const children: ChildProcess[] = [];
  try {
    const outputs = Array.from({ length: count }, () => {
      const child = spawn(process.execPath, ['--import', 'tsx', workerScript, JSON.stringify(config)], {
        stdio: ['pipe', 'pipe', 'pipe'],
        env: { ...process.env, NODE_OPTIONS: '' },
      });
      children.push(child);
      let out = '';
      let err = '';
      child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
      child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
      const ready = new Promise<void>((resolve, reject) => {
        const check = (): void => {
          if (out.includes('ready\n')) resolve();
        };
        child.stdout!.on('data', check);
        child.once('exit', (code) => reject(new Error(`worker exited (${code}) before ready: ${err}`)));
      });
      const done = new Promise<WorkerTally>((resolve, reject) => {
        child.once('exit', (code) => {
          const line = out.split('\n').find((l) => l.startsWith('{'));
          if (code === 0 && line) resolve(JSON.parse(line) as WorkerTally);
          else reject(new Error(`worker exited with ${code}: ${err}`));
        });
      });
      done.catch(() => undefined);
      return { child, ready, done };
    });
    await Promise.all(outputs.map((o) => o.ready));
    await beforeGo();
    for (const { child } of outputs) child.stdin!.end('go\n');
    return await Promise.all(outputs.map((o) => o.done));
  } finally {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}
