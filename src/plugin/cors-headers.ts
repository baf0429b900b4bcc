import { RATE_LIMIT_HEADER, RATE_LIMIT_POLICY_HEADER, RETRY_AFTER_HEADER } from './rate-limit-headers.js';

/** The response headers the plugin writes that a browser's script may want to read. */
export const budgetExposedHeaders: readonly string[] = [
  RATE_LIMIT_HEADER,
  RATE_LIMIT_POLICY_HEADER,
  RETRY_AFTER_HEADER,
];

const EXPOSE_HEADER = 'access-control-expose-headers';

/** The header maps read and written here (Apollo's `HeaderMap` fits). */
interface Headers {
  get(name: string): string | undefined;
  set(name: string, value: string): unknown;
  has(name: string): boolean;
}

/**
 * Lets a browser read the budget headers of a cross-origin response: on a response to a request
 * with an `Origin` header that carries any of them, `Access-Control-Expose-Headers` lists them,
 * merged with what the response already exposes and with `extra` (the headers a CORS middleware
 * exposes: Apollo's integrations write the response's headers over the middleware's, so the
 * plugin's value must repeat them). Without an `Origin` (not a CORS request) nothing is added.
 */
export function exposeBudgetHeaders(
  requestHeaders: Headers | undefined,
  responseHeaders: Headers,
  extra: readonly string[],
): void {
  if (requestHeaders?.has('origin') !== true) return;
  const written = budgetExposedHeaders.filter((name) => responseHeaders.has(name));
  if (written.length === 0) return;
  const names = new Map<string, string>();
  const existing = responseHeaders.get(EXPOSE_HEADER);
  for (const name of [...(existing === undefined ? [] : existing.split(',')), ...extra, ...written]) {
    const trimmed = name.trim();
    if (trimmed !== '' && !names.has(trimmed.toLowerCase())) names.set(trimmed.toLowerCase(), trimmed);
  }
  responseHeaders.set(EXPOSE_HEADER, [...names.values()].join(', '));
}
