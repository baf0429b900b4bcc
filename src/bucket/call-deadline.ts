import { BucketStoreTimeoutError } from './errors.js';
import { localUs } from './redis-clock.js';
import { MAX_TIMEOUT_MS } from './validate.js';

/**
 * Least store time a command gets when it leaves this process after its call's time ran out while
 * the process held it (the event loop was busy between a reply and the next command, or a command
 * is sent again after an `expired` answer) (µs): a healthy Redis answers well within it.
 */
const FLOOR_US = 5_000;

/**
 * How often a command Redis answered `expired` is sent again, while its caller waits: such an
 * answer proves Redis answers, and that this process held the command back (a busy stretch between
 * the store and the client's write), so each new try gets the call's whole time.
 */
const MAX_RETRIES = 3;

/**
 * The deadline of one store call (`timeoutMs`), counted in the time the store had, not in the time
 * this process took to get round to it. Node runs due timers before it reads sockets, so after a
 * long synchronous stretch a plain timer fires although the reply is already waiting: judged that
 * way, a busy server would report a healthy Redis as failing.
 *
 * - A command's store time starts when it leaves this process. The time it waits in the process
 *   first (the batcher's turn of the event loop, or a busy loop before that turn comes) moves the
 *   deadline on by as much (`sent`): the command leaves with what was left when it was queued
 *   (`queued`), and at least `FLOOR_US` of it when the call's time ran out meanwhile. A client that
 *   writes later still (node-redis writes in a `setImmediate` of its own) is caught up with the
 *   same way, once the write has happened.
 * - When the timer fires, nothing is judged until the event loop's poll phase has run once more
 *   (`setImmediate`): a reply that sits in the socket is read first, and a reply read so is never
 *   a failure, however late the process got to it.
 * - The deadline only ever moves later; the Redis-side deadline a command carries is made from it
 *   when the command leaves (`RedisBucketStore` adds one more `timeoutMs` for a late write).
 *
 * With Redis paused, killed or slow and the event loop free, the call fails `timeoutMs` after it was
 * issued, plus one turn of the loop; with the loop blocked, after `timeoutMs` of store time.
 */
export class CallDeadline {
  readonly timeoutMs: number;
  /** The local instant (µs, `localUs`) at which the call fails if it has not settled. */
  #dueUs: number;
  #settled = false;
  #retries = 0;

  constructor(timeoutMs: number) {
    this.timeoutMs = timeoutMs;
    this.#dueUs = localUs() + timeoutMs * 1000;
  }

  /** Store time (µs) for a command queued now: what is left of the call's, and at least `FLOOR_US`. */
  queued(): number {
    return Math.max(this.#dueUs - localUs(), Math.min(FLOOR_US, this.timeoutMs * 1000));
  }

  /**
   * The command given `storeUs` when it was queued left (or was written) at `atUs`: the deadline
   * moves on so that the store has that time from then, unless the caller has been answered.
   * Returns the local deadline the command runs under, which the Redis-side deadline is made from.
   */
  sent(atUs: number, storeUs: number): number {
    if (!this.#settled) this.#dueUs = Math.max(this.#dueUs, atUs + storeUs);
    return this.#dueUs;
  }

  /**
   * Whether a command that Redis answered `expired` (it ran after its Redis-side deadline and did
   * nothing) may be sent again: up to `MAX_RETRIES` times per call, while the caller is still
   * waiting, each with the call's whole time (`timeoutMs`) from when it leaves. Such an answer means
   * the command reached Redis late while the local deadline, moved on since, still runs; a Redis
   * that does not answer at all never gets here.
   */
  mayRetry(): boolean {
    if (this.#settled || this.#retries >= MAX_RETRIES) return false;
    this.#retries += 1;
    return true;
  }

  /**
   * Settles with `running`, or with `BucketStoreTimeoutError` once the deadline has passed and a
   * poll phase has run without the answer; an answer that comes after that goes to `undo`.
   */
  race<T>(running: Promise<T>, undo?: (late: T) => void): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const watched: Watched = {
        dueUs: () => this.#dueUs,
        expire: () => setImmediate(judge), // the poll phase first: a reply waiting in a socket is read
      };
      const judge = (): void => {
        if (this.#settled) return;
        if (this.#dueUs > localUs()) {
          WATCH.add(watched); // a command left meanwhile, with its own time
          return;
        }
        this.#settled = true;
        reject(new BucketStoreTimeoutError(this.timeoutMs));
      };
      WATCH.add(watched);
      running.then(
        (result) => {
          WATCH.delete(watched);
          if (this.#settled) {
            undo?.(result);
            return;
          }
          this.#settled = true;
          resolve(result);
        },
        (error: unknown) => {
          WATCH.delete(watched);
          if (this.#settled) return;
          this.#settled = true;
          reject(error);
        },
      );
    });
  }
}

/** A call being raced against its deadline. */
interface Watched {
  /** Its deadline as it stands (it only moves later). */
  dueUs(): number;
  /** Called once its deadline has passed (it is no longer watched then). */
  expire(): void;
}

/**
 * The calls of every store being raced against their deadlines, checked by one timer of the
 * process rather than one per call (a timer set and cleared per call was a tenth of the client's
 * CPU per request). The timer is armed for the earliest deadline it knows, and when it fires,
 * each call whose deadline has passed expires and the timer is armed for the next; a deadline
 * that moved on meanwhile is only met then. It holds the process open only while calls are
 * watched.
 */
class DeadlineWatch {
  readonly #watched = new Set<Watched>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** The instant (local µs) the timer is armed for; Infinity when it is not. */
  #armedUs = Number.POSITIVE_INFINITY;

  add(call: Watched): void {
    this.#watched.add(call);
    const dueUs = call.dueUs();
    if (dueUs < this.#armedUs) this.#arm(dueUs);
    else if (this.#watched.size === 1) this.#timer?.ref();
  }

  delete(call: Watched): void {
    this.#watched.delete(call);
    // The timer stays armed (re-arming it per call is what this saves) but no longer holds the process.
    if (this.#watched.size === 0) this.#timer?.unref();
  }

  #arm(dueUs: number): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#armedUs = dueUs;
    // Node fires a longer timer after 1 ms: one that long fires early, finds nothing due and re-arms.
    const delayMs = Math.min(MAX_TIMEOUT_MS, Math.max(1, Math.ceil((dueUs - localUs()) / 1000)));
    this.#timer = setTimeout(this.#fire, delayMs);
  }

  readonly #fire = (): void => {
    this.#timer = undefined;
    this.#armedUs = Number.POSITIVE_INFINITY;
    const nowUs = localUs();
    let nextUs = Number.POSITIVE_INFINITY;
    for (const call of this.#watched) {
      const dueUs = call.dueUs();
      if (dueUs <= nowUs) {
        this.#watched.delete(call);
        call.expire();
      } else if (dueUs < nextUs) {
        nextUs = dueUs;
      }
    }
    if (nextUs !== Number.POSITIVE_INFINITY) this.#arm(nextUs);
  };
}

const WATCH = new DeadlineWatch();
