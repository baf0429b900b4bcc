import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';

/** A `redis-server` process this test run owns: it may kill, pause, flush or restart it. */
export interface RedisServer {
  readonly port: number;
  readonly url: string;
  readonly dir: string;
  /** The current process id (changes after `restart`). */
  readonly pid: number;
  /** SIGKILL the process and wait for it to exit. */
  kill(): Promise<void>;
  /** SIGSTOP: the port stays open but nothing answers. */
  pause(): void;
  /** SIGCONT after `pause`. */
  resume(): void;
  /** Start the process again on the same port (after `kill`). */
  restart(): Promise<void>;
  /** Stop for good and remove the working directory. */
  stop(): Promise<void>;
}

export interface StartRedisOptions {
  port?: number;
  /** Extra command-line arguments, e.g. ['--cluster-enabled', 'yes']. */
  args?: string[];
}

/** A TCP port nobody listens on right now (and, when `withBus`, port + 10000 too). */
export async function freePort(withBus = false): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = await new Promise<number>((resolve, reject) => {
      const server = createServer();
      server.unref();
      server.on('error', reject);
      server.listen(0, '127.0.0.1', () => {
        const address = server.address();
        server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
      });
    });
    if (!withBus) return port;
    if (port + 10000 < 65536 && (await portIsFree(port + 10000))) return port;
  }
  throw new Error('no free port found');
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** Resolves once something accepts TCP connections and answers PING on the port. */
export async function waitForPing(port: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ port, host: '127.0.0.1' });
      let reply = '';
      const done = (value: boolean): void => {
        socket.destroy();
        resolve(value);
      };
      socket.setTimeout(500, () => done(false));
      socket.on('error', () => done(false));
      socket.on('connect', () => socket.write('PING\r\n'));
      socket.on('data', (chunk) => {
        reply += chunk.toString();
        if (reply.includes('\r\n')) done(reply.startsWith('+PONG'));
      });
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`redis-server on port ${port} did not answer PING within ${timeoutMs} ms`);
}

const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

/** Starts a throw-away `redis-server` (no persistence) on a free loopback port. */
export async function startRedisServer(options: StartRedisOptions = {}): Promise<RedisServer> {
  const withBus = (options.args ?? []).includes('--cluster-enabled');
  const port = options.port ?? (await freePort(withBus));
  const dir = mkdtempSync(join(tmpdir(), `graphql-budget-redis-${port}-`));
  let child: ChildProcess | undefined;

  const launch = async (): Promise<void> => {
    const proc = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--dir',
        dir,
        '--logfile',
        '',
        '--loglevel',
        'warning',
        ...(options.args ?? []),
      ],
      { stdio: 'ignore' },
    );
    live.add(proc);
    proc.once('exit', () => live.delete(proc));
    child = proc;
    await waitForPing(port);
  };

  const kill = async (): Promise<void> => {
    const proc = child;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    proc.kill('SIGCONT');
    proc.kill('SIGKILL');
    await exited;
  };

  await launch();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    dir,
    get pid() {
      return child?.pid ?? -1;
    },
    kill,
    pause: () => void child?.kill('SIGSTOP'),
    resume: () => void child?.kill('SIGCONT'),
    restart: async () => {
      await kill();
      await launch();
    },
    stop: async () => {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Sends one command on a fresh connection (so a paused or restarted server cannot leave it stuck). */
export async function redisCommand(port: number, ...args: (string | number)[]): Promise<unknown> {
  const client = new Redis({
    host: '127.0.0.1',
    port,
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
    connectTimeout: 1000,
    commandTimeout: 2000,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return await client.call(String(args[0]), ...args.slice(1).map(String));
  } finally {
    client.disconnect();
  }
}
