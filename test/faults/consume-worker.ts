/**
 * One OS process of the exactness tests: connects a RedisBucketStore to the test's Redis (a single
 * node or a cluster), prints `ready`, waits for `go` on stdin, then keeps `inFlight` consumes
 * running until `maxCalls` were made or `durationMs` passed, and prints one JSON line (a
 * `WorkerTally`).
 *
 * Without `multi`, every consume takes `cost` (or the next of `costs`) from the bucket `key`. With
 * `multi`, the process has `callers` callers of its own, served in turn; each consume is one
 * `consumeAll` of the caller's own buckets (one per `multi.own` policy, tagged with the caller's
 * key when `ownTag`) followed by the shared bucket `multi.shared`, and the tally counts the cost
 * admitted per caller.
 *
 * Usage: tsx test/faults/consume-worker.ts '<json WorkerConfig>'
 */
import { RedisBucketStore } from '../../src/index.js';
import type { BucketLimit } from '../../src/bucket/types.js';
import { connectClient, connectCluster } from '../support/redis-clients.js';
import { callerLimits, type WorkerConfig, type WorkerTally } from './worker-pool.js';

const config = JSON.parse(process.argv[2] ?? '{}') as WorkerConfig;
const clientName = config.client ?? 'ioredis';
const connection = config.clusterNodes
  ? await connectCluster(clientName, config.clusterNodes)
  : await connectClient(clientName, Number(new URL(config.url ?? '').port));
const store = new RedisBucketStore(connection.client, { ...config.store, prefix: config.prefix });
const callers = Array.from({ length: config.multi?.callers ?? 0 }, (_, i) => `${config.key}-${process.pid}-${i}`);
const limitsOf = new Map(callers.map((caller) => [caller, callerLimits(config, caller)]));

// Warm up the connection and the script cache so "go" starts every process at full speed.
await store.peek(`${config.key}:warm-up`, config.policy);
process.stdout.write('ready\n');
await new Promise<void>((resolve) => process.stdin.once('data', () => resolve()));

let calls = 0;
const tally: WorkerTally = { admitted: 0, denied: 0, admittedCost: 0, perCaller: {}, errorCount: 0, errors: [] };
for (const caller of callers) tally.perCaller[caller] = 0;
const stopAt = Date.now() + config.durationMs;

async function one(call: number): Promise<void> {
  const cost = config.costs ? (config.costs[call % config.costs.length] as number) : config.cost;
  if (callers.length === 0) {
    const result = await store.consume(config.key, cost, config.policy);
    if (!result.allowed) return void tally.denied++;
    tally.admitted++;
    tally.admittedCost += cost;
    return;
  }
  const caller = callers[call % callers.length] as string;
  const result = await store.consumeAll(limitsOf.get(caller) as BucketLimit[], cost);
  if (!result.allowed) return void tally.denied++;
  tally.admitted++;
  tally.admittedCost += cost;
  tally.perCaller[caller] = (tally.perCaller[caller] as number) + cost;
}

async function lane(): Promise<void> {
  while (calls < config.maxCalls && Date.now() < stopAt) {
    const call = calls++;
    try {
      await one(call);
    } catch (error) {
      tally.errorCount++;
      if (tally.errors.length < 5) tally.errors.push(String(error));
    }
  }
}

await Promise.all(Array.from({ length: config.inFlight }, lane));
process.stdout.write(`${JSON.stringify(tally)}\n`);
await connection.close();
