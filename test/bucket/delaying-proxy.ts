import { createConnection, createServer, type Socket } from 'node:net';

/** A loopback TCP proxy that can hold back what the server sends, as a slow network would. */
export interface DelayingProxy {
  readonly port: number;
  /** Each chunk from the server reaches the client this long after it arrived (ms); 0: at once. */
  replyDelayMs: number;
  close(): Promise<void>;
}

/** Forwards every connection to 127.0.0.1:`targetPort`; requests at once, replies after `replyDelayMs`. */
export async function startDelayingProxy(targetPort: number): Promise<DelayingProxy> {
  const open = new Set<Socket>();
  const track = (socket: Socket): void => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
    socket.on('error', () => undefined);
  };
  const proxy = { port: 0, replyDelayMs: 0, close: async () => undefined };
  const server = createServer((client) => {
    const upstream = createConnection({ host: '127.0.0.1', port: targetPort });
    track(client);
    track(upstream);
    client.pipe(upstream);
    upstream.on('data', (chunk) => {
      if (proxy.replyDelayMs === 0) client.write(chunk);
      else setTimeout(() => client.write(chunk), proxy.replyDelayMs);
    });
    client.once('close', () => upstream.destroy());
    upstream.once('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  proxy.port = typeof address === 'object' && address ? address.port : 0;
  proxy.close = () =>
    new Promise<undefined>((resolve) => {
      for (const socket of open) socket.destroy();
      server.close(() => resolve(undefined));
    });
  return proxy;
}
