/**
 * Where a variant's server CPU goes per request, next to bare Apollo Server: each server runs under
 * `node --cpu-prof` (its own process, the bench's bookstore server), takes 2 s of warm-up and 8 s of
 * the HTTP section's autocannon load, and the profile's samples are summed per package or source
 * file (self time) and divided by the requests answered (10 s in all). Prints both variants side by side, then the
 * variant's own source functions. Times are wall time in the profiler's samples, idle included, and
 * run 20–30 % larger than without the profiler; compare the two columns, not absolute figures.
 *
 *   npx tsx bench/profile-http.ts [variant]     (default plugin-memory; see bench/http/variants.ts)
 */
import { fork } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { isHttpVariant, REQUEST_BODY, REQUEST_HEADERS, type HttpVariant } from './http/variants.js';

const SERVER = fileURLToPath(new URL('./http/server.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('..', import.meta.url));

interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount: number;
}

interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
}

interface Breakdown {
  requests: number;
  /** µs per request, by package or file. */
  byPlace: Map<string, number>;
  /** µs per request, by source function of this project. */
  byFunction: Map<string, number>;
  total: number;
}

/** A frame's place: `pkg/<package>` for a dependency, the path for this project's files, else the node's label. */
function placeOf(url: string, functionName: string): string {
  const path = url.startsWith('file://') ? fileURLToPath(url) : url;
  const inModules = path.lastIndexOf('node_modules/');
  if (inModules >= 0) {
    const parts = path.slice(inModules + 'node_modules/'.length).split('/');
    return `pkg/${parts[0]?.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]}`;
  }
  if (path.startsWith(ROOT)) return path.slice(ROOT.length);
  return path === '' ? `(${functionName})` : path;
}

async function profile(variant: HttpVariant): Promise<Breakdown> {
  const dir = mkdtempSync(join(tmpdir(), 'profile-http-'));
  try {
    const child = fork(SERVER, [variant], { execArgv: ['--import', 'tsx', '--cpu-prof', `--cpu-prof-dir=${dir}`] });
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
    const data = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Profile;
    const usPerSample = (data.endTime - data.startTime) / data.samples.length;
    const requests = Math.max(1, warmUp['2xx'] + measured['2xx']);
    const byPlace = new Map<string, number>();
    const byFunction = new Map<string, number>();
    for (const node of data.nodes) {
      const us = (node.hitCount * usPerSample) / requests;
      const place = placeOf(node.callFrame.url, node.callFrame.functionName);
      byPlace.set(place, (byPlace.get(place) ?? 0) + us);
      if (place.startsWith('src/')) {
        const name = `${place} ${node.callFrame.functionName || '(anonymous)'}`;
        byFunction.set(name, (byFunction.get(name) ?? 0) + us);
      }
    }
    // The profile covers the process's whole life: per request is over every request it answered,
    // and the server's start-up lands in its own rows (module loading).
    return { requests, byPlace, byFunction, total: (data.samples.length * usPerSample) / requests };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const variant = process.argv[2] ?? 'plugin-memory';
if (!isHttpVariant(variant)) throw new RangeError(`unknown variant ${variant}`);
const bare = await profile('bare');
const other = await profile(variant);
const fmt = (us: number | undefined) => (us ?? 0).toFixed(1).padStart(8);
console.log(
  `µs per request (profiler samples, over the process's life): bare ${bare.total.toFixed(0)}, ${variant} ${other.total.toFixed(0)}`,
);
console.log(`${'bare'.padStart(8)} ${variant.padStart(8)}  place`);
const places = [...new Set([...bare.byPlace.keys(), ...other.byPlace.keys()])]
  .map((place) => [place, other.byPlace.get(place) ?? 0] as const)
  .sort((a, b) => b[1] - a[1])
  .slice(0, 30);
for (const [place, us] of places) console.log(`${fmt(bare.byPlace.get(place))} ${fmt(us)}  ${place}`);
console.log(`\n${variant}: this project's functions (self time, µs per request)`);
for (const [name, us] of [...other.byFunction].sort((a, b) => b[1] - a[1]).slice(0, 25))
  console.log(`${fmt(us)}  ${name}`);
