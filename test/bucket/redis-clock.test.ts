/**
 * `RedisClock`: Redis time from this process' monotonic clock plus an offset learnt from replies.
 * A reply read late because the event loop was busy gives an offset low by the whole delay; kept,
 * it would put every later Redis-side deadline that much too early, and the script would answer
 * `expired` to calls that were in time. Samples are fed by hand: Redis time and the local
 * instants a command was sent and its reply read (µs).
 */
import { describe, expect, it } from 'vitest';
import { RedisClock } from '../../src/bucket/redis-clock.js';

const OFFSET = 1_000_000_000; // Redis time − local time (µs)
const SECOND = 1_000_000;

/** A clock that never sends TIME (every sample is fed with `observe`). */
function clock(): RedisClock {
  return new RedisClock({ time: () => Promise.reject(new Error('not in this test')) });
}

/** A reply Redis sent at local `ranUs`, read `readAfterUs` later, sent `sentBeforeUs` before it ran. */
function reply(target: RedisClock, ranUs: number, sentBeforeUs: number, readAfterUs: number, offset = OFFSET): void {
  target.observe(ranUs + offset, ranUs - sentBeforeUs, ranUs + readAfterUs);
}

describe('RedisClock', () => {
  it('keeps the tightest lower bound of the offset', () => {
    const redis = clock();
    reply(redis, 0, 100, 400);
    expect(redis.redisUs(10 * SECOND)).toBe(10 * SECOND + OFFSET - 400);
    reply(redis, SECOND, 50, 60);
    expect(redis.redisUs(10 * SECOND)).toBe(10 * SECOND + OFFSET - 60);
    reply(redis, 2 * SECOND, 50, 900); // looser: not taken
    expect(redis.redisUs(10 * SECOND)).toBe(10 * SECOND + OFFSET - 60);
  });

  it('after 5 s, does not take a sample whose reply was read late by a busy event loop', () => {
    const redis = clock();
    for (let i = 0; i < 10; i++) reply(redis, i * 100_000, 40, 60); // 100 µs round trips
    // 6 s later the event loop is blocked for 200 ms while a reply waits in the socket.
    reply(redis, 6 * SECOND, 40, 200_000);
    // A deadline made now is still at most the round trip early, not 200 ms.
    expect(OFFSET + 7 * SECOND - redis.redisUs(7 * SECOND)).toBe(60);
  });

  it('after 5 s, follows a Redis clock that was set back, on the next trusted sample', () => {
    const redis = clock();
    reply(redis, 0, 40, 60);
    const setBack = OFFSET - 30_000; // Redis' clock stepped back 30 ms
    reply(redis, 2 * SECOND, 40, 60, setBack);
    expect(redis.redisUs(3 * SECOND)).toBe(3 * SECOND + OFFSET - 60); // within 5 s: the old bound stays
    reply(redis, 6 * SECOND, 40, 300_000, setBack); // untrusted: read 300 ms late
    expect(redis.redisUs(7 * SECOND)).toBe(7 * SECOND + OFFSET - 60);
    reply(redis, 6.5 * SECOND, 40, 60, setBack); // trusted: never later than Redis' own clock again
    expect(redis.redisUs(7 * SECOND)).toBe(7 * SECOND + setBack - 60);
  });

  it('trusts a network that has become slower for good, after one period', () => {
    const redis = clock();
    reply(redis, 0, 40, 60);
    // From here on every round trip is 5 ms, and Redis' clock has drifted 2 ms back.
    const drifted = OFFSET - 2_000;
    for (let t = SECOND; t <= 12 * SECOND; t += SECOND) reply(redis, t, 2_500, 2_500, drifted);
    expect(redis.redisUs(13 * SECOND)).toBe(13 * SECOND + drifted - 2_500);
  });
});
