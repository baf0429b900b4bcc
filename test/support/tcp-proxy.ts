import { createConnection, createServer, type Socket } from 'node:net';

/** A loopback TCP proxy in front of a server: lets a test cut a client's connection under it. */
export interface TcpProxy {
  readonly port: number;
  /** Destroys every open connection, on both sides, as a network failure would; new ones are accepted. */
  dropConnections(): void;
  close(): Promise<void>;
}

/** Forwards every connection to 127.0.0.1:`targetPort`, byte for byte. */
export async function startTcpProxy(targetPort: number): Promise<TcpProxy> {
  const open = new Set<Socket>();
  const track = (socket: Socket): void => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
    socket.on('error', () => undefined);
  };
  const server = createServer((client) => {
    const upstream = createConnection({ host: '127.0.0.1', port: targetPort });
    track(client);
    track(upstream);
    client.pipe(upstream);
    upstream.pipe(client);
    client.once('close', () => upstream.destroy());
    upstream.once('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : 0,
    dropConnections: () => {
      for (const socket of open) socket.destroy();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
