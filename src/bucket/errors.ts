/** Base class of every failure a bucket store reports (Redis unreachable, a reply it cannot read). */
export class BucketStoreError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'BucketStoreError';
  }
}

/**
 * The store did not answer within `BucketCallOptions.timeoutMs`. The operation had no effect:
 * the command either never ran or ran after its deadline and was refused by the script.
 */
export class BucketStoreTimeoutError extends BucketStoreError {
  /** The deadline that passed (ms). */
  readonly timeoutMs: number;

  constructor(timeoutMs: number, options?: { cause?: unknown }) {
    super(`bucket store did not answer within ${timeoutMs} ms; the operation had no effect`, options);
    this.name = 'BucketStoreTimeoutError';
    this.timeoutMs = timeoutMs;
  }
}
