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
