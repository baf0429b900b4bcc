import { BucketStoreError } from './errors.js';
import type { RedisConnection } from './redis-connection.js';

/** A clock sample older than this is replaced by the next trusted one, even a less precise one (µs). */
const CLOCK_REFRESH_US = 5_000_000;

/** A round trip up to this long is always trusted to replace an old sample (µs). */
const TRUSTED_ROUND_TRIP_US = 1_000;

/** Local monotonic time (µs). */
export function localUs(): number {
  return performance.now() * 1000;
}

/**
 * Redis time as seen from this process: the local monotonic clock plus the offset (Redis − local)
 * learnt from the Redis time every script reply carries. Each reply gives a lower bound of the
 * offset (Redis time − local receive time), as low as the round trip was long; the clock keeps the
 * largest (the one with the shortest round trip). Because the bound is low, a deadline converted
 * with it is never later in Redis than locally (it may be earlier by up to one round trip).
 *
 * A sample older than 5 s is replaced by the next trusted one, even a lower one, so that the clock
 * follows a Redis clock that runs slow or is set back. Trusted: a round trip of at most 1 ms, or
 * at most twice the shortest of the last 5 to 10 s (so a network that has become slower for good
 * is trusted again after 10 s at most). A reply read late because the
 * event loop was busy has a long round trip and is never trusted: its offset is low by the whole
 * delay, and would make every later Redis-side deadline that much too early (the script would
 * answer `expired` to calls that were in time). Caveats: a Redis clock that steps backwards, or
 * Cluster nodes whose clocks disagree, widen the window by that amount until a trusted sample
 * comes.
 */
export class RedisClock {
  readonly #connection: Pick<RedisConnection, 'time'>;
  /** Lower bound of (Redis time − local time) (µs), and when it was taken (local µs). */
  #offsetUs: number | undefined;
  #takenUs = 0;
  /** The shortest round trip (µs) seen in this period of `CLOCK_REFRESH_US`, and in the one before. */
  #fastestUs = Number.POSITIVE_INFINITY;
  #fastestBeforeUs = Number.POSITIVE_INFINITY;
  #periodUs = Number.NEGATIVE_INFINITY;
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

  /**
   * Redis ran a command at some local instant in [sent, received]: keep the tightest lower bound,
   * or, once the one in use is old, a trusted newer one.
   */
  observe(redisUs: number, sentUs: number, receivedUs: number): void {
    if (!Number.isFinite(redisUs) || receivedUs < sentUs) return;
    const offsetUs = redisUs - receivedUs;
    const roundTripUs = receivedUs - sentUs;
    if (receivedUs - this.#periodUs > CLOCK_REFRESH_US) {
      this.#fastestBeforeUs = this.#fastestUs;
      this.#fastestUs = Number.POSITIVE_INFINITY;
      this.#periodUs = receivedUs;
    }
    this.#fastestUs = Math.min(this.#fastestUs, roundTripUs);
    const current = this.#offsetUs;
    const stale = receivedUs - this.#takenUs > CLOCK_REFRESH_US;
    const trusted =
      roundTripUs <= Math.max(TRUSTED_ROUND_TRIP_US, 2 * Math.min(this.#fastestUs, this.#fastestBeforeUs));
    if (current === undefined || offsetUs > current || (stale && trusted)) {
      this.#offsetUs = offsetUs;
      this.#takenUs = receivedUs;
    }
  }
}
