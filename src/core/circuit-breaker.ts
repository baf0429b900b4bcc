/** How the plugin stops calling a failing bucket store, and how it tries again. */
export interface CircuitBreakerOptions {
  /**
   * Consecutive store failures (errors or missed deadlines) that open the circuit.
   * While open, requests are decided at once by `onStoreError`, without calling the store.
   * @default 3
   */
  failureThreshold?: number;
  /**
   * How long the circuit stays open before ONE probe request may call the store again (ms).
   * A successful probe closes the circuit; a failed one opens it for another cool-down.
   * With the default, limiting resumes within about half a second of the store returning.
   * @default 500
   */
  cooldownMs?: number;
}

export type CircuitState = 'closed' | 'open' | 'half-open';

/**
 * A consecutive-failure circuit breaker.
 *
 * closed → (failureThreshold failures in a row) → open → (cooldownMs) → half-open: one probe call
 * is let through; its success closes the circuit, its failure opens it again. Results of calls that
 * started before the circuit opened are ignored while it is open.
 */
export class CircuitBreaker {
  readonly #threshold: number;
  readonly #cooldownMs: number;
  readonly #now: () => number;
  #state: CircuitState = 'closed';
  #failures = 0;
  #openedAt = 0;
  #probeInFlight = false;
  readonly #onTransition: ((state: CircuitState) => void) | undefined;

  /** `onTransition` hears every change of state (for metrics). */
  constructor(
    options: Required<CircuitBreakerOptions>,
    now: () => number = () => performance.now(),
    onTransition?: (state: CircuitState) => void,
  ) {
    this.#threshold = options.failureThreshold;
    this.#cooldownMs = options.cooldownMs;
    this.#now = now;
    this.#onTransition = onTransition;
  }

  get state(): CircuitState {
    return this.#state;
  }

  /** Whether `tryAcquire` would give true now, without taking the probe (to check several breakers first). */
  canAcquire(): boolean {
    if (this.#state === 'closed') return true;
    if (this.#state === 'open') return this.#now() - this.#openedAt >= this.#cooldownMs;
    return !this.#probeInFlight;
  }

  /** True when a call may go to the store now; in half-open state only the first caller gets true. */
  tryAcquire(): boolean {
    if (this.#state === 'closed') return true;
    if (this.#state === 'open' && this.#now() - this.#openedAt >= this.#cooldownMs) {
      this.#state = 'half-open';
      this.#probeInFlight = false;
      this.#onTransition?.('half-open');
    }
    if (this.#state === 'half-open' && !this.#probeInFlight) {
      this.#probeInFlight = true;
      return true;
    }
    return false;
  }

  /** Reports a store answer. Returns true when this closed an open circuit. */
  recordSuccess(): boolean {
    if (this.#state === 'open') return false;
    const recovered = this.#state === 'half-open';
    this.#state = 'closed';
    this.#failures = 0;
    this.#probeInFlight = false;
    if (recovered) this.#onTransition?.('closed');
    return recovered;
  }

  /** Reports a store error or missed deadline. Returns true when this opened the circuit. */
  recordFailure(): boolean {
    if (this.#state === 'open') return false;
    this.#failures += 1;
    if (this.#state === 'half-open' || this.#failures >= this.#threshold) {
      this.#state = 'open';
      this.#openedAt = this.#now();
      this.#probeInFlight = false;
      this.#onTransition?.('open');
      return true;
    }
    return false;
  }

  /** Milliseconds until a probe may call the store again (0 when closed or already due). */
  msUntilProbe(): number {
    if (this.#state === 'closed') return 0;
    return Math.max(0, this.#cooldownMs - (this.#now() - this.#openedAt));
  }
}
