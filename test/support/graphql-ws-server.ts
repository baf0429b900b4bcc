import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ServerOptions } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';

/** A graphql-ws server on a free loopback port: its `ws://` URL, and how to stop it. */
export async function startGraphqlWsServer(
  options: ServerOptions,
): Promise<{ url: string; close: () => Promise<void> }> {
  const http = createServer();
  const disposable = useServer(options, new WebSocketServer({ server: http }));
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const url = `ws://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const close = async () => {
    await disposable.dispose();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  };
  return { url, close };
}
