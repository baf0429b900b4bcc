/**
 * Many OS processes, many commands in flight, one key: the script's atomicity is what keeps the
 * count exact.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { bucketKey } from '../../src/bucket/bucket-key.js';
import { runBucketScript } from '../../src/bucket/run-bucket-script.js';
import { CLIENTS } from '../support/redis-clients.js';
import type { WorkerGo, WorkerJob, WorkerReport } from './workers/consume-worker.js';

const WORKER = fileURLToPath(new URL('./workers/consume-worker.ts', import.meta.url));
const PROCESSES = 4;
const IN_FLIGHT = 32;

/** Starts every worker, waits until all are connected, starts them together, collects reports. */
async function hammer(
  job: Omit<WorkerJob, 'port'>,
  runForUs?: number,
): Promise<{ reports: WorkerReport[]; untilUs?: number }> {
  const port = inject('redisPort');
  const children: ChildProcess[] = [];
  try {
    const reports = Array.from({ length: PROCESSES }, () => {
      const child = fork(WORKER, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
      children.push(child);
      const ready = new Promise<void>((resolve, reject) => {
        child.once('message', () => resolve());
        child.once('exit', (code) => reject(new Error(`worker exited with ${code} before it was ready`)));
      });
      child.send({ ...job, port });
      return { child, ready };
    });
    await Promise.all(reports.map((r) => r.ready));
    const done = reports.map(
      ({ child }) =>
        new Promise<WorkerReport>((resolve, reject) => {
          child.once('message', (message: { report?: WorkerReport; error?: string }) =>
            message.report ? resolve(message.report) : reject(new Error(message.error)),
          );
        }),
    );
    let untilUs: number | undefined;
    if (runForUs !== undefined) {
      const timeClient = new Redis({ port, host: '127.0.0.1' });
      const [seconds, micros] = await timeClient.time();
      timeClient.disconnect();
      untilUs = Number(seconds) * 1_000_000 + Number(micros) + runForUs;
    }
    const go: WorkerGo = { go: true, untilUs };
    for (const { child } of reports) child.send(go);
    return { reports: await Promise.all(done), untilUs };
  } finally {
    for (const child of children) if (child.exitCode === null) child.kill();
  }
}

const sum = (reports: WorkerReport[], field: 'sent' | 'admitted' | 'admittedCost'): number =>
  reports.reduce((total, r) => total + r[field], 0);

describe.each(CLIENTS)(`${PROCESSES} processes × ${IN_FLIGHT} in-flight consumes on one key, over %s`, (name) => {
  let client: Redis;
  const prefix = `conc${process.pid}-${name}:`;
  beforeAll(() => {
    client = new Redis({ port: inject('redisPort'), host: '127.0.0.1' });
  });
  afterAll(() => client.disconnect());

  it('admit exactly capacity tokens when the bucket does not refill', async () => {
    const policy = { capacity: 1000, refillPerSecond: 0 };
    const { reports } = await hammer({
      prefix,
      key: 'exact',
      policy,
      costs: [1],
      total: 400,
      inFlight: IN_FLIGHT,
      mode: 'store',
      client: name,
    });
    expect(sum(reports, 'sent')).toBe(PROCESSES * 400);
    expect(sum(reports, 'admitted')).toBe(1000);
    expect(reports.every((r) => r.admitted > 0)).toBe(true);
    expect(await client.get(bucketKey(prefix, 'exact'))).toBe('-1000');
  }, 60_000);

  it('never lose or invent a token with mixed costs', async () => {
    const policy = { capacity: 2003, refillPerSecond: 0 };
    const { reports } = await hammer({
      prefix,
      key: 'mixed',
      policy,
      costs: [3, 1, 5, 2, 4],
      total: 400,
      inFlight: IN_FLIGHT,
      mode: 'store',
      client: name,
    });
    const left = await runBucketScript(client, bucketKey(prefix, 'mixed'), { op: 'peek', amount: 0, ...policy });
    if (left.status === 'expired') throw new Error('unexpected');
    expect(sum(reports, 'admittedCost') + left.remaining).toBe(2003);
    expect(left.remaining).toBeLessThan(1);
  }, 60_000);

  it('admit capacity + refill × elapsed (±1 token) while refilling, elapsed in Redis time', async () => {
    const policy = { capacity: 20, refillPerSecond: 100 };
    const runForUs = 1_000_000;
    const [seconds, micros] = await client.time();
    const { reports, untilUs } = await hammer(
      { prefix, key: 'refill', policy, costs: [1], total: 50_000, inFlight: IN_FLIGHT, mode: 'script', client: name },
      runForUs,
    );
    const admits = reports.flatMap((r) => r.admits ?? []).sort((a, b) => a[0] - b[0]);
    expect(admits.length).toBe(sum(reports, 'admitted'));
    const firstUs = (admits[0] as [number, number])[0];
    expect(firstUs).toBeGreaterThan(Number(seconds) * 1_000_000 + Number(micros));
    const supplied = (nowUs: number): number => policy.capacity + (policy.refillPerSecond * (nowUs - firstUs)) / 1e6;
    // Demand (thousands per second) far exceeds supply, so no refill is wasted on a full bucket:
    // after every admitted consume, tokens taken so far + tokens left = tokens supplied so far.
    admits.forEach(([nowUs, remaining], index) => {
      expect(index + 1 + remaining).toBeCloseTo(supplied(nowUs), 6);
    });
    // While every lane was still sending (until the stop time), the count is within one token.
    const beforeStop = admits.filter(([nowUs]) => nowUs <= (untilUs as number));
    const [lastUs] = beforeStop[beforeStop.length - 1] as [number, number];
    expect((lastUs - firstUs) / 1e6).toBeGreaterThan(0.5);
    expect(Math.abs(beforeStop.length - supplied(lastUs))).toBeLessThanOrEqual(1);
    expect(sum(reports, 'sent')).toBeGreaterThan(2 * admits.length);
  }, 60_000);
});
