import { describe, expect, it } from 'vitest';
import { CircuitBreaker } from '../../src/core/circuit-breaker.js';

function breakerAt(): { breaker: CircuitBreaker; advance: (ms: number) => void } {
  let now = 1000;
  const breaker = new CircuitBreaker({ failureThreshold: 3, cooldownMs: 500 }, () => now);
  return {
    breaker,
    advance: (ms) => {
      now += ms;
    },
  };
}

describe('CircuitBreaker', () => {
  it('opens after failureThreshold consecutive failures, not before', () => {
    const { breaker } = breakerAt();
    expect(breaker.recordFailure()).toBe(false);
    expect(breaker.recordFailure()).toBe(false);
    expect(breaker.tryAcquire()).toBe(true);
    expect(breaker.recordFailure()).toBe(true);
    expect(breaker.state).toBe('open');
    expect(breaker.tryAcquire()).toBe(false);
    expect(breaker.msUntilProbe()).toBe(500);
  });

  it('a success resets the count of consecutive failures', () => {
    const { breaker } = breakerAt();
    breaker.recordFailure();
    breaker.recordFailure();
    breaker.recordSuccess();
    breaker.recordFailure();
    breaker.recordFailure();
    expect(breaker.state).toBe('closed');
  });

  it('lets exactly one probe through after the cool-down; its success closes the circuit', () => {
    const { breaker, advance } = breakerAt();
    for (let i = 0; i < 3; i++) breaker.recordFailure();
    advance(499);
    expect(breaker.tryAcquire()).toBe(false);
    advance(1);
    expect(breaker.tryAcquire()).toBe(true);
    expect(breaker.state).toBe('half-open');
    expect(breaker.tryAcquire()).toBe(false);
    expect(breaker.recordSuccess()).toBe(true);
    expect(breaker.state).toBe('closed');
    expect(breaker.tryAcquire()).toBe(true);
  });

  it('a failed probe opens the circuit for another cool-down', () => {
    const { breaker, advance } = breakerAt();
    for (let i = 0; i < 3; i++) breaker.recordFailure();
    advance(500);
    expect(breaker.tryAcquire()).toBe(true);
    expect(breaker.recordFailure()).toBe(true);
    expect(breaker.state).toBe('open');
    expect(breaker.tryAcquire()).toBe(false);
    advance(500);
    expect(breaker.tryAcquire()).toBe(true);
  });

  it('ignores late results of calls made before it opened', () => {
    const { breaker } = breakerAt();
    for (let i = 0; i < 3; i++) breaker.recordFailure();
    expect(breaker.recordSuccess()).toBe(false);
    expect(breaker.recordFailure()).toBe(false);
    expect(breaker.state).toBe('open');
  });
});
