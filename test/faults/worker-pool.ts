import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { WorkerConfig } from './consume-worker.js';

const workerScript = fileURLToPath(new URL('./consume-worker.ts', import.meta.url));

export interface WorkerTally {
  admitted: number;
  denied: number;
  errorCount: number;
  errors: string[];
}

/**
 * Starts `count` consume-worker processes, waits until every one is connected and warmed up, then
 * calls `beforeGo` (e.g. to read Redis TIME), releases them all at once, and collects their tallies.
 */
export async function runWorkers(
  count: number,
  config: WorkerConfig,
  beforeGo: () => Promise<void> = async () => undefined,
): Promise<WorkerTally[]> {
  const children: ChildProcess[] = [];
  try {
    const outputs = Array.from({ length: count }, () => {
      const child = spawn(process.execPath, ['--import', 'tsx', workerScript, JSON.stringify(config)], {
        stdio: ['pipe', 'pipe', 'pipe'],
        env: { ...process.env, NODE_OPTIONS: '' },
      });
      children.push(child);
      let out = '';
      let err = '';
      child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
      child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
      const ready = new Promise<void>((resolve, reject) => {
        const check = (): void => {
          if (out.includes('ready\n')) resolve();
        };
        child.stdout!.on('data', check);
        child.once('exit', (code) => reject(new Error(`worker exited (${code}) before ready: ${err}`)));
      });
      const done = new Promise<WorkerTally>((resolve, reject) => {
        child.once('exit', (code) => {
          const line = out.split('\n').find((l) => l.startsWith('{'));
          if (code === 0 && line) resolve(JSON.parse(line) as WorkerTally);
          else reject(new Error(`worker exited with ${code}: ${err}`));
        });
      });
      done.catch(() => undefined);
      return { child, ready, done };
    });
    await Promise.all(outputs.map((o) => o.ready));
    await beforeGo();
    for (const { child } of outputs) child.stdin!.end('go\n');
    return await Promise.all(outputs.map((o) => o.done));
  } finally {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}
