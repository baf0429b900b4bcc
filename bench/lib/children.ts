import type { ChildProcess } from 'node:child_process';

const live = new Set<ChildProcess>();
let listening = false;

/** SIGKILLs `child` if this process exits first (one exit listener for all of them). */
export function killOnExit(child: ChildProcess): void {
  live.add(child);
  child.once('exit', () => live.delete(child));
  if (listening) return;
  listening = true;
  process.once('exit', () => {
    for (const each of live) each.kill('SIGKILL');
  });
}
