/**
 * A separate OS process that hammers one bucket: `inFlight` consumes at a time until `total` were
 * sent (or, in `script` mode, until Redis time passes `untilUs`). Parent protocol over IPC:
 * parent → { job }, worker → 'ready', parent → { go: true, untilUs? }, worker → { report } and exit.
 */
import { RedisBucketStore } from '../../../src/bucket/redis-store.js';
import { runBucketScript } from '../../../src/bucket/run-bucket-script.js';
import type { BucketPolicy } from '../../../src/bucket/types.js';
import { connectClient, type ClientName } from '../../support/redis-clients.js';

export interface WorkerJob {
  port: number;
  /** The client the worker's store goes through. */
  client: ClientName;
  prefix: string;
  key: string;
  policy: BucketPolicy;
  /** Costs to send, cycled. */
  costs: number[];
  total: number;
  inFlight: number;
  /** 'store': RedisBucketStore.consume. 'script': the script on Redis TIME, reporting Redis times. */
  mode: 'store' | 'script';
}

export interface WorkerGo {
  go: true;
  /** script mode: stop sending once Redis time passed this (µs). */
  untilUs?: number;
}

export interface WorkerReport {
  sent: number;
  admitted: number;
  admittedCost: number;
  /** script mode: every admitted consume as [Redis time (µs), tokens left after it]. */
  admits?: [number, number][];
}

const send = (message: unknown): void => void process.send?.(message);

process.once('message', async (job: WorkerJob) => {
  const connection = await connectClient(job.client, job.port);
  const client = connection.client;
  const store = new RedisBucketStore(client, { prefix: job.prefix });
  const report: WorkerReport = { sent: 0, admitted: 0, admittedCost: 0 };
  let next = 0;
  let stop = false;
  let untilUs: number | undefined;

  const one = async (cost: number): Promise<void> => {
    if (job.mode === 'store') {
      const result = await store.consume(job.key, cost, job.policy);
      if (result.allowed) {
        report.admitted++;
        report.admittedCost += cost;
      }
      return;
    }
    const reply = await runBucketScript(client, `${job.prefix}${job.key}`, {
      op: 'consume',
      amount: cost,
      capacity: job.policy.capacity,
      refillPerSecond: job.policy.refillPerSecond,
    });
    if (reply.status === 'expired') throw new Error('no deadline was set');
    if (untilUs !== undefined && reply.nowUs > untilUs) stop = true;
    if (reply.status !== 'ok') return;
    report.admitted++;
    report.admittedCost += cost;
    report.admits ??= [];
    report.admits.push([reply.nowUs, reply.remaining]);
  };

  const lane = async (): Promise<void> => {
    while (!stop && next < job.total) {
      const cost = job.costs[next % job.costs.length] as number;
      next++;
      report.sent++;
      await one(cost);
    }
  };

  process.once('message', (go: WorkerGo) => {
    untilUs = go.untilUs;
    Promise.all(Array.from({ length: job.inFlight }, lane))
      .then(() => send({ report }))
      .catch((error: unknown) => send({ error: String((error as Error)?.stack ?? error) }))
      .finally(() => connection.close());
  });
  send('ready');
});
