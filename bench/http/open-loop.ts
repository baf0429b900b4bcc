import { Agent, request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

export interface OpenLoopOptions {
  url: string;
  method: 'POST';
  headers: Readonly<Record<string, string>>;
  body: string;
  /** Requests per second, sent on schedule whether or not earlier ones were answered. */
  rate: number;
  seconds: number;
  /** Keep-alive connections the requests share. */
  connections: number;
  /** Whether a 2xx body is the one the server must answer. */
  verifyBody(body: string): boolean;
}

export interface OpenLoopResult {
  /** Latency of every correct 2xx answer, from the request's write to the last byte of the body (µs). */
  latenciesUs: number[];
  sent: number;
  ok: number;
  non2xx: number;
  errors: number;
  /** 2xx answers whose body was not the expected one. */
  mismatches: number;
  /** The most requests unanswered at once (more than `connections` means some waited for a connection). */
  maxOutstanding: number;
  /** Seconds from the first send to the last answer. */
  seconds: number;
}

/**
 * A bounded open-loop load generator on loopback: sends `rate × seconds` requests at fixed
 * intervals (a late timer sends what is due at once, so the rate holds), each timed with
 * `process.hrtime.bigint()` to the microsecond, where autocannon's histogram keeps whole
 * milliseconds. Each request is sent on schedule whether or not earlier ones were answered, and
 * waits for a free connection of the pool like a client's would, that wait counting in its
 * latency: a closed loop would instead slow down with the server and hide its queueing. The run
 * is bounded by its number of requests, and each request by a 10 s timeout.
 */
export async function openLoop(options: OpenLoopOptions): Promise<OpenLoopResult> {
  const { rate, seconds, connections } = options;
  const target = new URL(options.url);
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const total = Math.max(1, Math.round(rate * seconds));
  const intervalNs = BigInt(Math.round(1e9 / rate));
  const result: OpenLoopResult = {
    latenciesUs: [],
    sent: 0,
    ok: 0,
    non2xx: 0,
    errors: 0,
    mismatches: 0,
    maxOutstanding: 0,
    seconds: 0,
  };
  const headers = { ...options.headers, 'content-length': String(Buffer.byteLength(options.body)) };
  let outstanding = 0;
  let allSent = false;
  let finish: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const send = (): void => {
    outstanding++;
    if (outstanding > result.maxOutstanding) result.maxOutstanding = outstanding;
    result.sent++;
    let settled = false;
    const settle = (): void => {
      if (settled) return;
      settled = true;
      outstanding--;
      if (allSent && outstanding === 0) finish();
    };
    const failed = (): void => {
      if (!settled) result.errors++;
      settle();
    };
    const started = process.hrtime.bigint();
    const outgoing = request(
      { host: target.hostname, port: target.port, path: target.pathname, method: options.method, headers, agent },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const latencyUs = Number(process.hrtime.bigint() - started) / 1000;
          const status = response.statusCode ?? 0;
          if (status < 200 || status >= 300) result.non2xx++;
          else if (!options.verifyBody(Buffer.concat(chunks).toString('utf8'))) result.mismatches++;
          else {
            result.ok++;
            result.latenciesUs.push(latencyUs);
          }
          settle();
        });
        response.on('error', failed);
      },
    );
    outgoing.on('error', failed);
    // Every request ends: one the server has not answered in 10 s counts as an error.
    outgoing.setTimeout(10_000, () => outgoing.destroy(new Error('no answer within 10 s')));
    outgoing.end(options.body);
  };

  const start = process.hrtime.bigint();
  for (let index = 0; index < total; index++) {
    const due = start + BigInt(index) * intervalNs;
    const waitNs = due - process.hrtime.bigint();
    if (waitNs > 1_000_000n) await sleep(Number(waitNs / 1_000_000n));
    send();
  }
  allSent = true;
  if (outstanding === 0) finish();
  await finished;
  result.seconds = Number(process.hrtime.bigint() - start) / 1e9;
  agent.destroy();
  return result;
}
