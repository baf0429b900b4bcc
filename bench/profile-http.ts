/**
 * Where a variant's server CPU goes per request over HTTP, next to bare Apollo Server, on the
 * built package: each server (the compiled bench/http/server.ts, plain `node` on `dist/`) runs
 * under `node --cpu-prof` in its own process, takes 2 s of warm-up and 8 s of the HTTP section's
 * autocannon load, and the profile's samples are summed per package or file (self time) and
 * divided by the requests answered (10 s in all). Prints both variants side by side, then the
 * built package's own functions. Times are wall time in the profiler's samples, idle included, and
 * run 20–30 % larger than without the profiler; compare the two columns, not absolute figures.
 * `npm run bench:profile-in-process` does the same without sockets, on the measured requests only.
 *
 *   npm run bench:profile-http -- [variant]     (default plugin-memory; see bench/http/variants.ts)
 */
import { fork } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { isHttpVariant, REQUEST_BODY, REQUEST_HEADERS, type HttpVariant } from './http/variants.js';
import { breakdown, printComparison, type Breakdown, type CpuProfile } from './lib/cpu-profile.js';
import { builtScript } from './lib/paths.js';

const SERVER = builtScript('bench/http/server.ts');

async function profile(variant: HttpVariant): Promise<Breakdown> {
  const dir = mkdtempSync(join(tmpdir(), 'profile-http-'));
  try {
    const child = fork(SERVER, [variant], { execArgv: ['--cpu-prof', `--cpu-prof-dir=${dir}`] });
    const url = await new Promise<string>((resolve, reject) => {
      child.once('message', (message: { url?: string }) =>
        typeof message.url === 'string' ? resolve(message.url) : reject(new Error('server sent no url')),
      );
      child.once('exit', (code) => reject(new Error(`server exited with code ${code}`)));
    });
    const load = (seconds: number) =>
      autocannon({
        url,
        method: 'POST',
        headers: REQUEST_HEADERS,
        body: REQUEST_BODY,
        connections: 16,
        duration: seconds,
      });
    const warmUp = await load(2);
    const measured = await load(8);
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.disconnect();
    await exited;
    const file = readdirSync(dir).find((name) => name.endsWith('.cpuprofile'));
    if (file === undefined) throw new Error('no CPU profile written');
    const data = JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile;
    // The profile covers the process's whole life: per request is over every request it answered,
    // and the server's start-up lands in its own rows (module loading).
    return breakdown(data, Math.max(1, warmUp['2xx'] + measured['2xx']));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const variant = process.argv[2] ?? 'plugin-memory';
if (!isHttpVariant(variant)) throw new RangeError(`unknown variant ${variant}`);
const bare = await profile('bare');
const other = await profile(variant);
printComparison(bare, 'bare', other, variant);
