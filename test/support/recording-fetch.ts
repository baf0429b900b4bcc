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
