import { fileURLToPath } from 'node:url';
import { ROOT } from './paths.js';

/** The part of a V8 CPU profile (`.cpuprofile`, `Profiler.stop`) the breakdowns read. */
export interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; hitCount?: number }[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas?: number[];
}

/** Self time of a profile per place and per function of the package, in µs per request. */
export interface Breakdown {
  requests: number;
  /** µs per request, by package (`pkg/<name>`), file of this repository, or V8's own label. */
  byPlace: Map<string, number>;
  /** µs per request, by function of the built package (`dist/…`) or of the places asked for (`file:line name`). */
  byFunction: Map<string, number>;
  /** All sampled time per request (µs), idle included. */
  total: number;
}

/** A frame's place: `pkg/<package>` for a dependency, the path for this repository's files, else the node's label. */
export function placeOf(url: string, functionName: string): string {
  const path = url.startsWith('file://') ? fileURLToPath(url) : url;
  const inModules = path.lastIndexOf('node_modules/');
  if (inModules >= 0) {
    const parts = path.slice(inModules + 'node_modules/'.length).split('/');
    return `pkg/${parts[0]?.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]}`;
  }
  if (path.startsWith(`${ROOT}/`)) return path.slice(ROOT.length + 1);
  return path === '' ? `(${functionName || 'program'})` : path;
}

/**
 * Sums each node's self time (its samples, each weighted by the time to the next sample) per
 * place and per function of `dist/`, divided by the `requests` the profiled time answered. With
 * `keep`, only the samples taken at the instants it accepts count (µs on the profile's clock,
 * the monotonic clock of `process.hrtime`). Functions are listed for `dist/` and for the places
 * that start with one of `places` (e.g. `pkg/ioredis`).
 */
export function breakdown(
  profile: CpuProfile,
  requests: number,
  keep?: (atUs: number) => boolean,
  places: readonly string[] = [],
): Breakdown {
  const selfUs = new Map<number, number>();
  const deltas = profile.timeDeltas;
  if (deltas !== undefined && deltas.length === profile.samples.length) {
    let at = profile.startTime;
    for (let index = 0; index < profile.samples.length; index++) {
      at += deltas[index]!;
      if (keep !== undefined && !keep(at)) continue;
      // A sample stands for the time until the next one (the last: the mean interval).
      const next = deltas[index + 1] ?? (profile.endTime - profile.startTime) / profile.samples.length;
      const id = profile.samples[index]!;
      selfUs.set(id, (selfUs.get(id) ?? 0) + next);
    }
  } else {
    if (keep !== undefined) throw new Error('the profile has no sample times (timeDeltas)');
    const perSample = (profile.endTime - profile.startTime) / Math.max(1, profile.samples.length);
    for (const node of profile.nodes) selfUs.set(node.id, (node.hitCount ?? 0) * perSample);
  }
  const byPlace = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let total = 0;
  for (const node of profile.nodes) {
    const us = (selfUs.get(node.id) ?? 0) / requests;
    if (us === 0) continue;
    total += us;
    const { url, functionName, lineNumber } = node.callFrame;
    const place = placeOf(url, functionName);
    byPlace.set(place, (byPlace.get(place) ?? 0) + us);
    if (place.startsWith('dist/') || places.some((prefix) => place.startsWith(prefix))) {
      // A package's file is named after the package: `pkg/ioredis built/Command.js:120 toWritable`.
      const inPackage = url.lastIndexOf('node_modules/');
      const file =
        inPackage < 0
          ? place
          : `${place} ${url.slice(inPackage + 'node_modules/'.length + place.length - 'pkg/'.length + 1)}`;
      const name = `${file}:${lineNumber + 1} ${functionName || '(anonymous)'}`;
      byFunction.set(name, (byFunction.get(name) ?? 0) + us);
    }
  }
  return { requests, byPlace, byFunction, total };
}

/** Two breakdowns side by side, by place (largest difference first), then the second's package functions. */
export function printComparison(base: Breakdown, baseName: string, other: Breakdown, otherName: string): void {
  const fmt = (us: number | undefined): string => (us ?? 0).toFixed(2).padStart(9);
  console.log(
    `µs per request (profiler samples): ${baseName} ${base.total.toFixed(1)}, ${otherName} ${other.total.toFixed(1)} ` +
      `(${other.total - base.total >= 0 ? '+' : ''}${(other.total - base.total).toFixed(1)})`,
  );
  console.log(`${baseName.padStart(9)} ${otherName.padStart(9)} ${'added'.padStart(9)}  place`);
  const places = [...new Set([...base.byPlace.keys(), ...other.byPlace.keys()])]
    .map((place) => ({ place, added: (other.byPlace.get(place) ?? 0) - (base.byPlace.get(place) ?? 0) }))
    .sort((a, b) => Math.abs(b.added) - Math.abs(a.added))
    .slice(0, 30);
  for (const { place, added } of places) {
    console.log(`${fmt(base.byPlace.get(place))} ${fmt(other.byPlace.get(place))} ${fmt(added)}  ${place}`);
  }
  const functions = [...other.byFunction].sort((a, b) => b[1] - a[1]);
  const sum = functions.reduce((total, [, us]) => total + us, 0);
  console.log(
    `\n${otherName}: functions of the built package (and of the places asked for), self time (µs per request; ${sum.toFixed(1)} in all), ` +
      `beside ${baseName}'s`,
  );
  console.log(`${baseName.padStart(9)} ${otherName.padStart(9)} ${'added'.padStart(9)}  function`);
  for (const [name, us] of functions.slice(0, 40)) {
    const baseUs = base.byFunction.get(name) ?? 0;
    console.log(`${fmt(baseUs)} ${fmt(us)} ${fmt(us - baseUs)}  ${name}`);
  }
}
