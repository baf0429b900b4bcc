/** A request a recording fetch sent: when (performance.now), and its answer. */
export interface SentRequest {
  at: number;
  status: number | null;
  answeredAt: number | null;
  /** The answer's Retry-After header, as the client could read it. */
  retryAfter: string | null;
}

export type RecordingFetch = typeof fetch & {
  /** Every request sent, in order. */
  readonly sent: SentRequest[];
};

/**
 * `inner`, recording every request it sends and its answer, for tests that check how many requests
 * a client made and when. Runs in Node and in a browser.
 */
export function recordingFetch(inner: typeof fetch): RecordingFetch {
  const sent: SentRequest[] = [];
  const fetchAndRecord = async (input: Parameters<typeof fetch>[0], init?: RequestInit): Promise<Response> => {
    const entry: SentRequest = { at: performance.now(), status: null, answeredAt: null, retryAfter: null };
    sent.push(entry);
    const response = await inner(input, init);
    entry.status = response.status;
    entry.answeredAt = performance.now();
    entry.retryAfter = response.headers.get('retry-after');
    return response;
  };
  return Object.assign(fetchAndRecord, { sent });
}

/**
 * Whether a retry sent `gapMs` after its refusal's answer honoured a `retryAfterMs` wait: not
 * sooner than 10 % below it (a timer may fire early, the answer is read a little after it
 * arrived), and not later than 10 % or 500 ms above it, whichever is more (room for a loaded
 * machine's timers; a client that waited anything else, twice as long or not at all, is outside).
 */
export function waitProblem(gapMs: number, retryAfterMs: number): string | undefined {
  const low = retryAfterMs * 0.9;
  const high = retryAfterMs + Math.max(retryAfterMs * 0.1, 500);
  if (gapMs >= low && gapMs <= high) return undefined;
  return `waited ${gapMs.toFixed(0)} ms for Retry-After ${retryAfterMs} ms (allowed ${low.toFixed(0)} to ${high.toFixed(0)} ms)`;
}
