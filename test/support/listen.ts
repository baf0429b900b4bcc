import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A GraphQL Yoga server (any Node request listener) on a free loopback port: its URL, and how to stop it. */
export async function listen(handler: RequestListener): Promise<{ url: string; stop: () => Promise<void> }> {
  const http = createServer(handler);
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/graphql`;
  const stop = () =>
    new Promise<void>((resolve) => {
      http.closeAllConnections();
      http.close(() => resolve());
    });
  return { url, stop };
}
