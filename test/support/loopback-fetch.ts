import { request } from 'node:http';
import { recordingFetch, type RecordingFetch } from './recording-fetch.js';

let next = 2;

/**
 * A recording `fetch` whose connections come from a loopback address of their own (127.0.0.2,
 * 127.0.0.3, …, one per call of this function), over node:http: to a server that budgets anonymous
 * callers by their address, each such fetch is a new caller with a full bucket.
 */
export function loopbackFetch(): RecordingFetch {
  const localAddress = `127.0.0.${next}`;
  next = next === 254 ? 2 : next + 1;
  return recordingFetch(async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const headers = new Headers(input instanceof Request ? input.headers : undefined);
    for (const [name, value] of new Headers(init?.headers)) headers.set(name, value);
    const method = init?.method ?? (input instanceof Request ? input.method : 'GET');
    const body = init?.body ?? (input instanceof Request && method !== 'GET' ? await input.text() : undefined);
    if (body !== undefined && body !== null && typeof body !== 'string') {
      throw new TypeError('loopbackFetch sends text bodies only');
    }
    const signal = init?.signal ?? (input instanceof Request ? input.signal : undefined);
    signal?.throwIfAborted();
    return new Promise<Response>((resolve, reject) => {
      const outgoing = request(
        url,
        { method, headers: Object.fromEntries(headers), localAddress, signal: signal ?? undefined },
        (incoming) => {
          const chunks: Buffer[] = [];
          incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
          incoming.on('error', reject);
          incoming.on('end', () => {
            const responseHeaders = new Headers();
            for (const [name, value] of Object.entries(incoming.headers)) {
              for (const item of Array.isArray(value) ? value : [value ?? '']) responseHeaders.append(name, item);
            }
            const status = incoming.statusCode ?? 0;
            resolve(
              new Response(status === 204 ? null : Buffer.concat(chunks), {
                status,
                statusText: incoming.statusMessage ?? '',
                headers: responseHeaders,
              }),
            );
          });
        },
      );
      outgoing.on('error', reject);
      outgoing.end(body ?? undefined);
    });
  });
}
