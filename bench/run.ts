/**
 * `npm run bench`: side-by-side benchmarks of graphql-budget against the floor and the alternatives,
 * on a redis-server this run starts (never the shared 6379). Prints one table per section and the
 * goals table, and writes the run as JSON, Markdown and an SVG chart.
 *
 * It runs as users run the library: `npm run bench` builds the package (`dist/`), compiles this
 * folder to `.build/` (scripts/build-bench.ts), and starts `.build/bench/run.js` in plain `node`
 * with NODE_ENV=production; every import of the package resolves to `dist/` (package.json
 * `exports`), and the HTTP servers it starts are compiled scripts too.
 *
 *   npm run bench                  full run (about 7 minutes): bench/results/latest.{json,md,svg}
 *   npm run bench -- --quick       CI smoke run with tiny samples: bench/results/partial.tmp/
 *   npm run bench -- --only in-process,store-throughput   some sections: bench/results/partial.tmp/
 *   npm run bench -- --out DIR     write the results to DIR instead
 *   npm run bench -- --readme      full run, then put its tables in docs/performance.md
 *
 * A missed goal is reported, never an exit code; a wrong answer from any server is an error.
 */
import { nodeEnv } from './lib/production-env.js';
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { RedisBucketStore } from 'graphql-budget';
import { startVariantServer, type VariantServer } from './http/servers.js';
import { HTTP_VARIANTS, type HttpVariant } from './http/variants.js';
import { machineInfo } from './lib/machine.js';
import { updateReadme } from './lib/readme.js';
import { connect, startBenchRedis } from './lib/redis.js';
import type { RunResult, SectionResult } from './lib/report.js';
import { renderSvg } from './lib/svg.js';
import { markdownReport, textTable } from './lib/table.js';
import { costEstimate } from './sections/cost-estimate.js';
import { inProcess } from './sections/in-process.js';
import { denyCache } from './sections/deny-cache.js';
import { goals } from './sections/goals.js';
import { httpLatency, httpThroughput } from './sections/http.js';
import { redisMemory } from './sections/redis-memory.js';
import { storeThroughput } from './sections/store-throughput.js';

/** The page whose bench block `--readme` replaces (the option keeps the name it had when the tables were in the README). */
const PERFORMANCE_PAGE = 'docs/performance.md';

const SECTION_IDS = [
  'in-process',
  'store-throughput',
  'redis-memory',
  'cost-estimate',
  'http-throughput',
  'http-latency',
  'deny-cache',
] as const;
type SectionId = (typeof SECTION_IDS)[number];

/** Sample sizes. `full` finishes in about 7 minutes on a quiet 2-core machine, `quick` in about 30 s. */
const SETTINGS = {
  full: {
    inProcess: {
      inFlight: 8,
      operations: {
        small: { rounds: 40, requests: 300, warmUp: 2000 },
        large: { rounds: 120, requests: 10, warmUp: 100 },
        variable: { rounds: 24, requests: 3, warmUp: 6 },
      },
    },
    store: { inFlight: 64, keys: 1000, rounds: 7, seconds: 1.25 },
    memory: { keys: 200_000 },
    cost: { rounds: 21, callsPerRound: 40 },
    http: { connections: 16, rounds: 3, seconds: 5, warmUpSeconds: 1.5 },
    latency: { connections: 8, rate: 200, rounds: 5, seconds: 4 },
    denyCache: { connections: 8, rounds: 3, seconds: 5 },
  },
  quick: {
    inProcess: {
      inFlight: 8,
      operations: {
        small: { rounds: 4, requests: 100, warmUp: 200 },
        large: { rounds: 2, requests: 10, warmUp: 10 },
        variable: { rounds: 2, requests: 1, warmUp: 1 },
      },
    },
    store: { inFlight: 64, keys: 1000, rounds: 2, seconds: 0.25 },
    memory: { keys: 5_000 },
    cost: { rounds: 3, callsPerRound: 5 },
    http: { connections: 16, rounds: 1, seconds: 0.5, warmUpSeconds: 0 },
    latency: { connections: 8, rate: 100, rounds: 1, seconds: 0.5 },
    denyCache: { connections: 4, rounds: 1, seconds: 0.5 },
  },
} as const;

function parseCommandLine(): { quick: boolean; out: string; only: Set<SectionId>; readme: boolean } {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      out: { type: 'string' },
      only: { type: 'string' },
      readme: { type: 'boolean', default: false },
    },
  });
  const only = new Set<SectionId>();
  for (const id of (values.only ?? SECTION_IDS.join(',')).split(',')) {
    const trimmed = id.trim();
    if (!(SECTION_IDS as readonly string[]).includes(trimmed)) {
      throw new RangeError(`--only: unknown section "${trimmed}"; sections: ${SECTION_IDS.join(', ')}`);
    }
    only.add(trimmed as SectionId);
  }
  const quick = values.quick ?? false;
  // Only a full run of every section replaces the committed results.
  const partial = quick || values.only !== undefined;
  const readme = values.readme ?? false;
  if (readme && partial) throw new RangeError('--readme takes a full run of every section (no --quick, no --only)');
  return { quick, out: values.out ?? (partial ? 'bench/results/partial.tmp' : 'bench/results'), only, readme };
}

async function main(): Promise<void> {
  const { quick, out, only, readme } = parseCommandLine();
  const settings = quick ? SETTINGS.quick : SETTINGS.full;
  const started = performance.now();
  const startedAt = new Date().toISOString();
  const redis = await startBenchRedis();
  const client = await connect(redis.port);
  const servers = new Map<HttpVariant, VariantServer>();
  const sections: SectionResult[] = [];
  const report = (section: SectionResult): void => {
    sections.push(section);
    console.log(`\n${textTable(section)}\n`);
  };
  try {
    const machine = await machineInfo(client);
    console.log(
      `graphql-budget benchmarks (${quick ? 'quick smoke run: samples too small to quote' : 'full run'}) on ` +
        `${machine.nproc} × ${machine.cpuModel}, Node ${machine.node}, Redis ${machine.redis} (port ${redis.port}); ` +
        `NODE_ENV=${nodeEnv}; load average ${machine.loadStart.toFixed(2)}`,
    );
    const store = new RedisBucketStore(client, { prefix: 'bench:' });

    if (only.has('in-process')) {
      report(await inProcess({ redisUrl: redis.url, redisPid: redis.pid, ...settings.inProcess }));
    }
    if (only.has('store-throughput')) report(await storeThroughput({ client, store, ...settings.store }));
    if (only.has('redis-memory')) report(await redisMemory({ client, store, ...settings.memory }));
    if (only.has('cost-estimate')) report(await costEstimate(settings.cost));
    if (only.has('http-throughput') || only.has('http-latency')) {
      await client.flushall();
      const started = await Promise.all(HTTP_VARIANTS.map((variant) => startVariantServer(variant, redis.url)));
      for (const server of started) servers.set(server.variant, server);
      if (only.has('http-throughput'))
        report(await httpThroughput({ servers, redis: client, lenient: quick, ...settings.http }));
      if (only.has('http-latency')) report(await httpLatency({ servers, lenient: quick, ...settings.latency }));
    }
    if (only.has('deny-cache')) report(await denyCache({ redisUrl: redis.url, ...settings.denyCache }));

    // The goals table, from the figures above; first in the written report.
    const verdicts = goals(sections);
    console.log(`\n${textTable(verdicts)}\n`);
    sections.unshift(verdicts);

    machine.loadEnd = loadavg()[0]!;
    const run: RunResult = {
      mode: quick ? 'quick' : 'full',
      startedAt,
      command: ['npm run bench', ...(process.argv.length > 2 ? ['--', ...process.argv.slice(2)] : [])].join(' '),
      seconds: (performance.now() - started) / 1000,
      machine,
      sections,
    };
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, 'latest.json'), `${JSON.stringify(run, null, 2)}\n`);
    writeFileSync(join(out, 'latest.md'), `${markdownReport(run, 'latest.svg')}\n`);
    writeFileSync(join(out, 'latest.svg'), renderSvg(run));
    if (readme) {
      // The chart's path is relative to the page that shows it.
      updateReadme(PERFORMANCE_PAGE, markdownReport(run, relative(dirname(PERFORMANCE_PAGE), join(out, 'latest.svg'))));
      console.log(`${PERFORMANCE_PAGE}: tables replaced with this run.`);
    }
    const missed = sections.flatMap((section) =>
      section.rows.filter((row) => row.met === false).map((row) => `${section.title}: ${row.variant}`),
    );
    console.log(
      `${sections.length} section${sections.length === 1 ? '' : 's'} in ${run.seconds.toFixed(0)} s; load average ${machine.loadStart.toFixed(2)} → ${machine.loadEnd.toFixed(2)}; ` +
        `results in ${out}/latest.{json,md,svg}`,
    );
    console.log(missed.length === 0 ? 'Every goal met.' : `Goals missed (${missed.length}): ${missed.join('; ')}`);
    if (quick) console.log('Quick mode: tiny samples for a smoke test; do not quote these figures.');
  } finally {
    await Promise.all([...servers.values()].map((server) => server.stop()));
    client.disconnect();
    await redis.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
