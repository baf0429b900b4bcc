import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg, release, type as osType } from 'node:os';
import type { Redis } from 'ioredis';
import type { MachineInfo } from './report.js';

function cpuModel(): string {
  try {
    const line = readFileSync('/proc/cpuinfo', 'utf8')
      .split('\n')
      .find((entry) => entry.startsWith('model name'));
    return line?.split(':')[1]?.trim() ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

/** One field of `INFO <section>`, or undefined. */
export async function infoField(client: Redis, section: string, field: string): Promise<string | undefined> {
  const info = await client.info(section);
  const line = info.split('\r\n').find((entry) => entry.startsWith(`${field}:`));
  return line?.slice(field.length + 1);
}

/** CPU time redis-server has used so far, user + system (µs). */
export async function redisCpuMicros(client: Redis): Promise<number> {
  const info = await client.info('cpu');
  const seconds = (field: string): number => Number(new RegExp(`^${field}:([0-9.]+)`, 'm').exec(info)?.[1]);
  return (seconds('used_cpu_user') + seconds('used_cpu_sys')) * 1e6;
}

/** The facts the README quotes next to the table. `loadEnd` is filled in when the run ends. */
export async function machineInfo(client: Redis): Promise<MachineInfo> {
  return {
    nproc: availableParallelism(),
    cpuModel: cpuModel(),
    node: process.versions.node,
    redis: (await infoField(client, 'server', 'redis_version')) ?? 'unknown',
    os: `${osType()} ${release()}`,
    nodeEnv: process.env.NODE_ENV ?? '',
    loadStart: loadavg()[0]!,
    loadEnd: Number.NaN,
  };
}
