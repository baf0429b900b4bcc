import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const appServer = fileURLToPath(new URL('../support/app-server.ts', import.meta.url));
const healthProbe = fileURLToPath(new URL('./health-probe.ts', import.meta.url));

/** Settings of one app-server child, passed as environment variables. */
export interface AppEnv {
  REDIS_URL?: string;
  REDIS_CLUSTER_NODES?: string;
  /** The client of the store. @default 'ioredis' (the app server's) */
  REDIS_CLIENT?: 'ioredis' | 'node-redis';
  CAPACITY: number;
  REFILL_PER_SECOND: number;
  ON_STORE_ERROR?: 'allow' | 'deny' | 'local';
  STORE_TIMEOUT_MS?: number;
  MODE?: 'enforce' | 'measure';
  /** Bucket key prefix. @default 'gb:' (the app server's) */
  KEY_PREFIX?: string;
}

/** An Apollo Server with the budget plugin, running in its own OS process. */
export interface AppProcess {
  readonly url: string;
  readonly pid: number;
  /** Unhandled rejections and uncaught exceptions the process reported. */
  readonly faults: string[];
  /** Heap used after a full GC, in bytes, one per `sampleHeap()`. */
  readonly heapSamples: number[];
  /** Asks the process for its heap size after a full GC (bytes); also appended to `heapSamples`. */
  sampleHeap(): Promise<number>;
  /** Everything the process wrote that was not a health line (its logs). */
  readonly logs: string[];
  /** True while the process runs. */
  alive(): boolean;
  /** The exit code or signal, once it has exited. */
  exitStatus(): string | null;
  stop(): Promise<void>;
}

/** Every variable test/support/app-server.ts reads. */
const APP_VARIABLES = [
  'REDIS_URL',
  'REDIS_CLUSTER_NODES',
  'REDIS_CLIENT',
  'KEY_PREFIX',
  'CAPACITY',
  'REFILL_PER_SECOND',
  'ON_STORE_ERROR',
  'STORE_TIMEOUT_MS',
  'BREAKER_COOLDOWN_MS',
  'MODE',
  'PORT',
];

const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

/** Spawns `test/support/app-server.ts` with the health probe preloaded; resolves once it listens. */
export async function startApp(env: AppEnv): Promise<AppProcess> {
  // Only the settings given here: the test runner's own environment sets e.g. MODE=test.
  const vars: Record<string, string | undefined> = { ...process.env, NODE_OPTIONS: '', PORT: '0' };
  for (const name of APP_VARIABLES) delete vars[name];
  for (const [name, value] of Object.entries(env)) if (value !== undefined) vars[name] = String(value);
  const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', '--import', healthProbe, appServer], {
    env: vars,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  const faults: string[] = [];
  const heapSamples: number[] = [];
  const logs: string[] = [];
  const heapWaiters: ((bytes: number) => void)[] = [];
  let exit: string | null = null;
  child.once('exit', (code, signal) => {
    exit = signal ?? `code ${code}`;
    live.delete(child);
  });

  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`app server did not listen within 20 s:\n${logs.join('\n')}`)),
      20_000,
    );
    const onLine = (line: string): void => {
      const listening = /^listening (\d+)/.exec(line);
      const health = /^health (\S+) ?(.*)$/.exec(line);
      if (listening) {
        clearTimeout(timer);
        resolve(Number(listening[1]));
      } else if (health?.[1] === 'memory') {
        const bytes = Number(/heap=(\d+)/.exec(health[2] ?? '')?.[1]);
        heapSamples.push(bytes);
        heapWaiters.shift()?.(bytes);
      } else if (health) {
        faults.push(`${health[1]} ${health[2]}`);
      } else if (line.trim() !== '') {
        logs.push(line);
      }
    };
    lines(child.stdout!, onLine);
    lines(child.stderr!, onLine);
    child.once('exit', () => {
      clearTimeout(timer);
      reject(new Error(`app server exited before listening (${exit}):\n${logs.join('\n')}`));
    });
  });

  return {
    url: `http://127.0.0.1:${port}/`,
    pid: child.pid ?? -1,
    faults,
    heapSamples,
    logs,
    sampleHeap: () =>
      new Promise<number>((resolve, reject) => {
        if (exit !== null) return reject(new Error(`app server exited (${exit})`));
        const timer = setTimeout(() => reject(new Error('app server did not report its heap within 5 s')), 5000);
        heapWaiters.push((bytes) => {
          clearTimeout(timer);
          resolve(bytes);
        });
        child.kill('SIGUSR2');
      }),
    alive: () => exit === null,
    exitStatus: () => exit,
    stop: async () => {
      if (exit !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 2000);
      await exited;
      clearTimeout(timer);
    },
  };
}

function lines(stream: NodeJS.ReadableStream, onLine: (line: string) => void): void {
  let buffer = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    buffer += chunk;
    for (let newline = buffer.indexOf('\n'); newline >= 0; newline = buffer.indexOf('\n')) {
      onLine(buffer.slice(0, newline));
      buffer = buffer.slice(newline + 1);
    }
  });
}
