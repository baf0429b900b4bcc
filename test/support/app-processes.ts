import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const appServer = fileURLToPath(new URL('./app-server.ts', import.meta.url));

/** Environment of `test/support/app-server.ts` (see its header for the meaning of each). */
export interface AppServerEnv {
  REDIS_URL?: string;
  REDIS_CLUSTER_NODES?: string;
  REDIS_CLIENT?: 'ioredis' | 'node-redis';
  KEY_PREFIX?: string;
  CAPACITY?: number;
  REFILL_PER_SECOND?: number;
  ON_STORE_ERROR?: 'allow' | 'deny' | 'local';
  STORE_TIMEOUT_MS?: number;
  BREAKER_COOLDOWN_MS?: number;
  MODE?: 'enforce' | 'measure';
  /** '1': no budget plugin (a baseline). */
  BARE?: '1';
}

/** One app server running in its own OS process. */
export interface AppServerProcess {
  readonly url: string;
  readonly pid: number;
  /** Everything the process wrote to stdout and stderr. */
  output(): string;
  /** SIGTERM, and wait for the exit code (SIGKILL after 3 s). */
  stop(): Promise<number | null>;
}

const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

/** Spawns `count` app servers with the same settings and resolves once all of them listen. */
export function startAppServers(count: number, env: AppServerEnv): Promise<AppServerProcess[]> {
  return Promise.all(Array.from({ length: count }, () => startAppServer(env)));
}

export async function startAppServer(env: AppServerEnv): Promise<AppServerProcess> {
  const vars: Record<string, string> = { PORT: '0' };
  for (const [name, value] of Object.entries(env)) if (value !== undefined) vars[name] = String(value);
  const child = spawn(process.execPath, ['--import', 'tsx', appServer], {
    env: { ...process.env, ...vars },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  let output = '';
  let exitCode: number | null | undefined;
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      live.delete(child);
      exitCode = code;
      resolve(code);
    }),
  );
  child.stdout!.setEncoding('utf8');
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => (output += chunk));

  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`app server did not listen within 20 s:\n${output}`)), 20_000);
    child.stdout!.on('data', (chunk: string) => {
      output += chunk;
      const match = /^listening (\d+)$/m.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`app server exited (code ${code}) before listening:\n${output}`));
    });
  });

  return {
    url: `http://127.0.0.1:${port}/`,
    pid: child.pid ?? -1,
    output: () => output,
    stop: async () => {
      if (exitCode !== undefined) return exitCode;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}
