import { fork, type ChildProcess } from 'node:child_process';
import { killOnExit } from '../lib/children.js';
import { builtScript } from '../lib/paths.js';
import type { HttpVariant } from './variants.js';

/** The compiled bench/http/server.ts, run by plain `node` on the built package. */
const ENTRY = builtScript('bench/http/server.ts');

/** A variant of the example server running in its own process. */
export interface VariantServer {
  variant: HttpVariant;
  url: string;
  /** User + system CPU time the server process has used so far (µs). */
  cpuMicros(): Promise<number>;
  stop(): Promise<void>;
}

/** Forks the compiled bench/http/server.ts for `variant` and resolves once it listens. */
export function startVariantServer(variant: HttpVariant, redisUrl: string, timeoutMs = 30_000): Promise<VariantServer> {
  const child: ChildProcess = fork(ENTRY, [variant, redisUrl], {
    execArgv: [],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const force = setTimeout(() => child.kill('SIGKILL'), 5_000);
    if (child.connected) child.disconnect();
    else child.kill('SIGTERM');
    await exited;
    clearTimeout(force);
  };
  killOnExit(child);
  const cpuMicros = (): Promise<number> =>
    new Promise((resolve, reject) => {
      const onMessage = (message: { cpuMicros?: number }): void => {
        if (typeof message.cpuMicros !== 'number') return;
        child.off('message', onMessage);
        resolve(message.cpuMicros);
      };
      child.on('message', onMessage);
      if (!child.send('cpu')) reject(new Error(`${variant} server is gone`));
    });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`${variant} server did not start within ${timeoutMs} ms`));
    }, timeoutMs);
    child.once('message', (message: { url?: string }) => {
      clearTimeout(timer);
      if (typeof message.url !== 'string') reject(new Error(`${variant} server sent no url`));
      else resolve({ variant, url: message.url, cpuMicros, stop });
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${variant} server exited with code ${code} before listening`));
    });
  });
}
