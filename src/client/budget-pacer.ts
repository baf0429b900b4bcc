import type { BucketStatus, ResponseBudget } from './read-budget.js';

/** A bucket as the last response showed it. */
interface KnownBucket {
  /** Tokens left when the response arrived. */
  available: number;
  /** Tokens per ms. */
  rate: number;
  capacity: number;
}

/** An operation allowed out: what it holds back from the others until its answer comes. */
export interface PaceTicket {
  readonly key: unknown;
  readonly price: number;
  /** Its place in the order of sending. */
  readonly sent: number;
}

interface Waiter {
  readonly key: unknown;
  /** When it started waiting (ms, performance.now). */
  readonly since: number;
  /** The longest it may wait, in ms. */
  readonly maxMs: number;
  /** Told once, with the first estimate, when it has to wait for the bucket. */
  notify: ((ms: number) => void) | null;
  readonly grant: (ticket: PaceTicket) => void;
}

/**
 * One caller's pacing: give the same pacer to every helper that spends that caller's budget
 * (`budgetPacer()` once, then `{ pacer }` in each helper's options), so that it models the one
 * bucket they share. Its methods are the helpers' own.
 */
export interface BudgetPacer {
  /**
   * Resolves when the operation `key` may be sent (waiting at most `maxMs`, and telling `notify`
   * how long first); rejects when `signal` aborts.
   */
  acquire(key: unknown, maxMs: number, notify: (ms: number) => void, signal: AbortSignal): Promise<PaceTicket>;
  /** The operation of `ticket` was answered (`budget` null when it failed before an answer). */
  settle(ticket: PaceTicket, budget: ResponseBudget | null): void;
}

/** Room for this many operations' prices; the oldest is forgotten first. */
const PRICES = 256;

function known({ currentlyAvailable, restoreRate, maximumAvailable }: BucketStatus): KnownBucket | null {
  return currentlyAvailable === null || restoreRate === null
    ? null
    : { available: currentlyAvailable, rate: restoreRate / 1000, capacity: maximumAvailable ?? Infinity };
}

/**
 * A pacer, for the `pacer` option of `budgetLinkHandler`, `budgetExchange` and `budgetFetch`: it
 * holds each operation back until the caller's buckets should hold it, instead of letting the server
 * refuse it, as GitHub's octokit throttling does. It sends operations in order, each when a model of the buckets
 * from the last response (tokens left, refill rate, capacity), projected to now, less the price of
 * every operation sent and not answered yet. The model errs on the side of waiting: the server
 * rounds tokens left down, and the refill between the server's answer and its arrival is not
 * counted. An operation whose price is unknown (never sent yet) goes out alone.
 */
export function budgetPacer(): BudgetPacer {
  let buckets: KnownBucket[] | null = null;
  /** When the model was read (ms), and the sending place of the operation whose answer it is. */
  let at = 0;
  let from = 0;
  let reserved = 0;
  let inFlight = 0;
  let sent = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const prices = new Map<unknown, number>();
  const queue: Waiter[] = [];

  const tokens = (bucket: KnownBucket, now: number): number =>
    Math.min(bucket.capacity, bucket.available + bucket.rate * (now - at));

  /** Ms until every bucket holds `price` beside what is reserved; 0 when waiting would not help. */
  const wait = (price: number, now: number): number => {
    let ms = 0;
    for (const bucket of buckets ?? []) {
      const short = price + reserved - tokens(bucket, now);
      if (short <= 0) continue;
      if (!(bucket.rate > 0) || price > bucket.capacity) return 0;
      ms = Math.max(ms, short / bucket.rate);
    }
    // A few ms more: the server's clock and ours tick apart.
    return ms > 0 ? Math.ceil(ms) + 5 : 0;
  };

  const pump = (): void => {
    clearTimeout(timer);
    for (let head = queue[0]; head; head = queue[0]) {
      const now = performance.now();
      const left = head.maxMs - (now - head.since);
      const price = prices.get(head.key);
      if (price === undefined || buckets === null) {
        // Unknown: it goes out alone, once the others have been answered (or its wait is up).
        if (inFlight > 0 && left > 0) {
          if (left < 2 ** 31) timer = setTimeout(pump, left);
          return;
        }
      } else {
        const ms = wait(price, now);
        if (ms > 0 && ms <= left) {
          head.notify?.(ms);
          head.notify = null;
          timer = setTimeout(pump, ms);
          return;
        }
      }
      queue.shift();
      inFlight++;
      reserved += price ?? 0;
      head.grant({ key: head.key, price: price ?? 0, sent: ++sent });
    }
  };

  return {
    acquire: (key, maxMs, notify, signal) =>
      new Promise((resolve, reject) => {
        const abort = (): void => {
          queue.splice(queue.indexOf(waiter), 1);
          reject(signal.reason);
          pump();
        };
        const waiter: Waiter = {
          key,
          since: performance.now(),
          maxMs,
          notify,
          grant: (ticket) => {
            signal.removeEventListener('abort', abort);
            resolve(ticket);
          },
        };
        signal.addEventListener('abort', abort, { once: true });
        queue.push(waiter);
        pump();
      }),

    settle: (ticket, budget) => {
      inFlight--;
      reserved -= ticket.price;
      if (budget?.requestedQueryCost != null) {
        prices.delete(ticket.key);
        prices.set(ticket.key, budget.requestedQueryCost);
        if (prices.size > PRICES) prices.delete(prices.keys().next().value);
      }
      const read = (budget?.budgets ?? []).map(known).filter((bucket) => bucket !== null);
      if (read.length > 0) {
        // The answer to an operation sent before the one the model was read from may predate that
        // one's charge: it may lower the model, never raise it.
        const older = ticket.sent < from && buckets?.length === read.length;
        const now = performance.now();
        buckets = read.map((bucket, i) => {
          const was = buckets?.[i];
          return older && was ? { ...bucket, available: Math.min(bucket.available, tokens(was, now)) } : bucket;
        });
        at = now;
        from = Math.max(from, ticket.sent);
      }
      pump();
    },
  };
}
