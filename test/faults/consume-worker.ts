/**
 * One OS process of the exactness test: connects a RedisBucketStore to the test's Redis (a single
 * node or a cluster), prints `ready`, waits for `go` on stdin, then keeps `inFlight` consumes of
 * `cost` tokens on one key running until `maxCalls` were made or `durationMs` passed, and prints
 * one JSON line: { admitted, denied, errors }.
 *
 * Usage: tsx test/faults/consume-worker.ts '<json WorkerConfig>'
 */
import { Cluster, Redis } from 'ioredis';
import { RedisBucketStore } from '../../src/index.js';
import type { BucketPolicy } from '../../src/index.js';

export interface WorkerConfig {
  url?: string;
  clusterNodes?: { host: string; port: number }[];
  prefix: string;
  key: string;
  cost: number;
  policy: BucketPolicy;
  inFlight: number;
  maxCalls: number;
  durationMs: number;
}

const config = JSON.parse(process.argv[2] ?? '{}') as WorkerConfig;
const client = config.clusterNodes ? new Cluster(config.clusterNodes) : new Redis(config.url ?? '');
const store = new RedisBucketStore(client, { prefix: config.prefix });

// Warm up the connection and the script cache so "go" starts every process at full speed.
await store.peek(`${config.key}:warm-up`, config.policy);
process.stdout.write('ready\n');
await new Promise<void>((resolve) => process.stdin.once('data', () => resolve()));

let calls = 0;
let admitted = 0;
let denied = 0;
const errors: string[] = [];
const stopAt = Date.now() + config.durationMs;

async function lane(): Promise<void> {
  while (calls < config.maxCalls && Date.now() < stopAt) {
    calls++;
    try {
      const result = await store.consume(config.key, config.cost, config.policy);
      if (result.allowed) admitted++;
      else denied++;
    } catch (error) {
      errors.push(String(error));
    }
  }
}

await Promise.all(Array.from({ length: config.inFlight }, lane));
process.stdout.write(
  `${JSON.stringify({ admitted, denied, errors: errors.slice(0, 5), errorCount: errors.length })}\n`,
);
client.disconnect();
