import { BucketStoreError } from './errors.js';
import type { RedisConnection } from './redis-connection.js';

/** A clock sample older than this is replaced by the next one, even a less precise one (µs). */
const CLOCK_REFRESH_US = 5_000_000;

/** Local monotonic time (µs). */
export function localUs(): number {
  return performance.now() * 1000;
}

/**
 * Redis time as seen from this process: the local monotonic clock plus the offset (Redis − local)
 * learnt from the Redis time every script reply carries. Each reply gives a lower bound of the
 * offset (Redis time − local receive time); the clock keeps the largest (the one with the shortest
 * round trip) and replaces it with a fresh one after 5 s. Because the bound is low, a deadline
 * converted with it is never later in Redis than locally (it may be earlier by up to one round
 * trip). Caveats: a Redis clock that steps backwards, or Cluster nodes whose clocks disagree,
 * widen the window by that amount.
 */
export class RedisClock {
  readonly #connection: Pick<RedisConnection, 'time'>;
  /** Lower bound of (Redis time − local time) (µs), and when it was taken (local µs). */
  #offsetUs: number | undefined;
  #takenUs = 0;
  #request: Promise<void> | undefined;

  constructor(connection: Pick<RedisConnection, 'time'>) {
    this.#connection = connection;
  }

  /** Whether an offset is known (otherwise call `sample` first). */
  get known(): boolean {
    return this.#offsetUs !== undefined;
  }

  /** The Redis time (µs) at local time `atUs`; the clock must be `known`. */
  redisUs(atUs: number): number {
    return atUs + (this.#offsetUs as number);
  }

  /** Gets a first sample with `TIME` (one request at a time, shared by concurrent calls). */
  sample(): Promise<void> {
    this.#request ??= (async () => {
      try {
        const sentUs = localUs();
        // Numbers, numeric strings or Buffers, as the client gives them.
        const [seconds, micros] = (await this.#connection.time()).map((part) => Number(String(part)));
        this.observe((seconds as number) * 1_000_000 + (micros as number), sentUs, localUs());
      } catch (error) {
        throw new BucketStoreError(`Redis TIME failed: ${(error as Error)?.message ?? String(error)}`, {
          cause: error,
        });
      } finally {
        this.#request = undefined;
      }
    })();
    return this.#request;
  }

  /** Redis ran a command at some local instant in [sent, received]: keep the tightest lower bound. */
  observe(redisUs: number, sentUs: number, receivedUs: number): void {
    if (!Number.isFinite(redisUs) || receivedUs < sentUs) return;
    const offsetUs = redisUs - receivedUs;
    const current = this.#offsetUs;
    if (current === undefined || offsetUs > current || receivedUs - this.#takenUs > CLOCK_REFRESH_US) {
      this.#offsetUs = offsetUs;
      this.#takenUs = receivedUs;
    }
  }
}
