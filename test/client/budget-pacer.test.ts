/**
 * The pacer's model of the caller's buckets, on a fake clock: an operation goes out when the
 * buckets, as the last answer showed them and refilled since, hold its last price beside every
 * operation sent and not answered; it never waits where waiting cannot help or past its maximum.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { budgetPacer, readBudget, type BudgetPacer, type PaceTicket } from '../../src/client/index.js';

/** The budget of an answer: the operation's price, and one bucket. */
const answer = (price: number, available: number, restoreRate = 2, capacity = 30) =>
  readBudget({
    extensions: {
      cost: {
        requestedQueryCost: price,
        actualQueryCost: price,
        throttleStatus: { maximumAvailable: capacity, currentlyAvailable: available, restoreRate },
      },
    },
  });

let pacer: BudgetPacer;
let notified: number[];
const never = new AbortController().signal;

/** Asks to send `key`; its ticket once granted (undefined until then). */
function ask(key: string, maxMs = 60_000, signal = never) {
  const asked: { ticket?: PaceTicket; error?: unknown } = {};
  pacer
    .acquire(key, maxMs, (ms) => notified.push(ms), signal)
    .then(
      (ticket) => {
        asked.ticket = ticket;
      },
      (error: unknown) => {
        asked.error = error;
      },
    );
  return asked;
}

const flush = () => vi.advanceTimersByTimeAsync(0);

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  pacer = budgetPacer();
  notified = [];
});
afterEach(() => vi.useRealTimers());

describe('budgetPacer', () => {
  it('sends an operation whose price is unknown alone, once the others are answered', async () => {
    const first = ask('Q');
    const second = ask('Q');
    await flush();
    expect(first.ticket).toBeDefined();
    expect(second.ticket).toBeUndefined();
    pacer.settle(first.ticket as PaceTicket, answer(3, 27));
    await flush();
    expect(second.ticket).toMatchObject({ price: 3 });
    expect(notified).toEqual([]);
  });

  it('sends what the buckets hold, then waits for the refill the next one lacks, and says how long', async () => {
    const first = ask('Q');
    await flush();
    const rest = [ask('Q'), ask('Q'), ask('Q'), ask('Q')];
    pacer.settle(first.ticket as PaceTicket, answer(3, 10));
    await flush();
    // 10 tokens: three operations of 3 go; the fourth lacks 2 tokens, 1 s at 2 per second.
    expect(rest.map((asked) => asked.ticket !== undefined)).toEqual([true, true, true, false]);
    expect(notified).toEqual([1005]);
    await vi.advanceTimersByTimeAsync(1000);
    expect(rest[3]?.ticket).toBeUndefined();
    await vi.advanceTimersByTimeAsync(10);
    expect(rest[3]?.ticket).toBeDefined();
  });

  it('lets the answer to an operation sent earlier lower the model, never raise it', async () => {
    const first = ask('Q');
    await flush();
    const [older, newer] = [ask('Q'), ask('Q')];
    pacer.settle(first.ticket as PaceTicket, answer(3, 29));
    await flush();
    pacer.settle(newer.ticket as PaceTicket, answer(3, 5));
    // Charged before the newer one, by its own account it left more: the model keeps 5.
    pacer.settle(older.ticket as PaceTicket, answer(3, 8));
    const [one, two] = [ask('Q'), ask('Q')];
    await flush();
    expect(one.ticket).toBeDefined();
    expect(two.ticket).toBeUndefined();
    expect(notified).toEqual([505]);
  });

  it('does not wait past its maximum: an operation that would is sent at once', async () => {
    const first = ask('Q');
    await flush();
    pacer.settle(first.ticket as PaceTicket, answer(3, 0));
    const hurried = ask('Q', 500);
    await flush();
    expect(hurried.ticket).toBeDefined();
    expect(notified).toEqual([]);
  });

  it('does not wait where waiting cannot help: a price above the capacity, a bucket that never refills', async () => {
    const first = ask('Huge');
    await flush();
    pacer.settle(first.ticket as PaceTicket, answer(50, 30));
    const huge = ask('Huge');
    await flush();
    expect(huge.ticket).toBeDefined();
    pacer.settle(huge.ticket as PaceTicket, answer(3, 0, 0));
    const small = ask('Q');
    await flush();
    expect(small.ticket).toBeDefined(); // unknown price
    pacer.settle(small.ticket as PaceTicket, answer(3, 0, 0));
    const stuck = ask('Q');
    await flush();
    expect(stuck.ticket).toBeDefined();
    expect(notified).toEqual([]);
  });

  it('waits at most its maximum for the answers an unknown operation waits for', async () => {
    const first = ask('Q');
    const second = ask('R', 2000);
    await flush();
    await vi.advanceTimersByTimeAsync(1999);
    expect(second.ticket).toBeUndefined();
    await vi.advanceTimersByTimeAsync(2);
    expect(second.ticket).toBeDefined();
    expect(first.ticket).toBeDefined();
  });

  it('takes an aborted operation out of the line, rejecting with the reason, and serves the next', async () => {
    const first = ask('Q');
    const controller = new AbortController();
    const aborted = ask('Q', 60_000, controller.signal);
    const next = ask('Q');
    await flush();
    controller.abort(new Error('gone'));
    await flush();
    expect(aborted.error).toEqual(new Error('gone'));
    pacer.settle(first.ticket as PaceTicket, answer(3, 20));
    await flush();
    expect(next.ticket).toBeDefined();
    expect(aborted.ticket).toBeUndefined();
  });

  it('forgets the oldest prices beyond 256 operations', async () => {
    for (let i = 0; i <= 256; i++) {
      const asked = ask(`Op${i}`);
      await flush();
      pacer.settle(asked.ticket as PaceTicket, answer(3, 30));
    }
    // Op0's price is forgotten (unknown: alone, at once), Op256's known.
    const oldest = ask('Op0');
    await flush();
    expect(oldest.ticket).toMatchObject({ price: 0 });
    pacer.settle(oldest.ticket as PaceTicket, null);
    const newest = ask('Op256');
    await flush();
    expect(newest.ticket).toMatchObject({ price: 3 });
  });
});
