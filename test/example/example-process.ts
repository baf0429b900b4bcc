import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { freePort } from '../support/redis-server.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** tsx's loader, by absolute URL so scripts can run from any working directory. */
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

/** A process running one of the example's scripts the way `npm start` / `npm run demo` do (through tsx). */
export interface ScriptRun {
  readonly child: ChildProcess;
  /** stdout and stderr lines so far. */
  readonly lines: string[];
  /** Resolves with the exit code. */
  readonly exited: Promise<number | null>;
}

/** Runs `node --import tsx <script> ...args` (what the tsx binary does) from the repository root. */
export function runScript(
  script: string,
  args: string[],
  options: { env?: Record<string, string>; cwd?: string } = {},
): ScriptRun {
  const child = spawn(process.execPath, ['--import', TSX, `${ROOT}${script}`, ...args], {
    cwd: options.cwd ?? ROOT,
    // INIT_CWD is where `npm run` was typed; here, the directory the script runs in.
    env: { ...process.env, NO_COLOR: '1', INIT_CWD: options.cwd ?? ROOT, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const collect = (chunk: Buffer): void => {
    lines.push(
      ...chunk
        .toString()
        .split('\n')
        .filter((line) => line !== ''),
    );
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  live.add(child);
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      live.delete(child);
      resolve(code);
    }),
  );
  return { child, lines, exited };
}

export interface RunningExample extends ScriptRun {
  /** e.g. `http://127.0.0.1:41234/` */
  url: string;
  stop(): Promise<void>;
}

/**
 * Starts examples/bookstore/server.ts on a free port with `env` and `args` (`--server yoga`), and
 * waits for its "Ready at" line.
 */
export async function startExample(
  env: Record<string, string> = {},
  timeoutMs = 30_000,
  args: readonly string[] = [],
): Promise<RunningExample> {
  const port = await freePort();
  const run = runScript('examples/bookstore/server.ts', [...args], {
    env: { PORT: String(port), REDIS_URL: '', REDIS_CLUSTER_NODES: '', ...env },
  });
  const deadline = Date.now() + timeoutMs;
  while (!run.lines.some((line) => line.startsWith('Ready at '))) {
    if (run.child.exitCode !== null)
      throw new Error(`The example exited (${run.child.exitCode}):\n${run.lines.join('\n')}`);
    if (Date.now() > deadline) {
      run.child.kill('SIGKILL');
      throw new Error(`The example did not say "Ready at" within ${timeoutMs} ms:\n${run.lines.join('\n')}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    ...run,
    url: `http://127.0.0.1:${port}/`,
    stop: async () => {
      if (run.child.exitCode === null && run.child.signalCode === null) {
        run.child.kill('SIGTERM');
        const timer = setTimeout(() => run.child.kill('SIGKILL'), 5_000);
        await run.exited;
        clearTimeout(timer);
      }
    },
  };
}
