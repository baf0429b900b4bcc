import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** Clock ticks per second of `/proc/<pid>/stat`'s times (`getconf CLK_TCK`, 100 on Linux). */
const TICKS_PER_SECOND = ((): number => {
  try {
    const ticks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    return Number.isInteger(ticks) && ticks > 0 ? ticks : 100;
  } catch {
    return 100;
  }
})();

/** The resolution of `processCpuMicros` (µs): one clock tick. */
export const PROC_CPU_RESOLUTION_US = 1e6 / TICKS_PER_SECOND;

/**
 * User + system CPU time process `pid` has used so far (µs), from `/proc/<pid>/stat` (utime and
 * stime, fields 14 and 15). Counted in clock ticks (10 ms at 100 Hz): sum it over many requests.
 */
export function processCpuMicros(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) is in parentheses and may hold spaces: count fields after it.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / TICKS_PER_SECOND;
}
