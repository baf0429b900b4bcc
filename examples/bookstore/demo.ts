/**
 * `npm run demo -- [--quick] [--out file.svg] [url]`: drives the running bookstore example as two
 * callers of different tiers, members of one organisation, through a burst, a throttle (obeying
 * Retry-After) and a refill, prints one line per request, and writes `demo-budget.svg` (tokens
 * remaining over time: each caller's own burst bucket, and the organisation's shared bucket) where
 * it was run. The pro caller runs into the organisation's budget while their own still has tokens.
 * The URL defaults to `DEMO_URL`, then http://localhost:4000/; `DEMO_QUICK=1` is the same as --quick.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { renderBudgetChart, type CallerSeries, type Phase, type Sample } from './chart.js';

export interface DemoOptions {
  /** The example's GraphQL endpoint. @default 'http://localhost:4000/' */
  url?: string;
  /** Short run (a few seconds) for CI. @default false */
  quick?: boolean;
  /** Where to write the chart (relative to the directory the command was typed in). @default 'demo-budget.svg' */
  out?: string;
  /** Receives each printed line. @default console.log */
  print?: (line: string) => void;
}

export interface DemoResult {
  series: CallerSeries[];
  phases: Phase[];
  svgPath: string;
}

interface DemoCaller {
  name: string;
  tier: string;
  apiKey: string;
  /** What the caller sends during the burst and the throttle. */
  heavy: { label: string; query: string };
  burstRequests: number;
}

const CALLERS: DemoCaller[] = [
  {
    name: 'alice',
    tier: 'free',
    apiKey: 'free-key-alice',
    heavy: { label: '5 books + authors', query: '{ books(first: 5) { edges { node { title author { name } } } } }' },
    burstRequests: 5,
  },
  {
    name: 'bob',
    tier: 'pro',
    apiKey: 'pro-key-bob',
    heavy: {
      label: '40 books + 3 reviews',
      query: '{ books(first: 40) { edges { node { title reviews(first: 3) { rating } } } } }',
    },
    burstRequests: 6,
  },
];

/** The cheapest operation (1 token: the root object; `__typename` itself is free), to watch the buckets refill. */
const PROBE = { label: 'probe { __typename }', query: '{ __typename }' };

/** The shared bucket the demo charts beside the callers' own (examples/bookstore/callers.ts, ORGS). */
const ORG = { name: 'org', label: 'acme (shared)' };

interface BucketStatus {
  name?: string;
  maximumAvailable: number;
  currentlyAvailable: number | null;
  restoreRate: number;
}

interface CostExtension {
  requestedQueryCost?: number;
  actualQueryCost?: number;
  throttleStatus?: BucketStatus | null;
  budgets?: BucketStatus[];
}

interface GraphQLBody {
  errors?: { message: string; extensions?: { code?: string } }[];
  extensions?: { cost?: CostExtension };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, Math.max(0, ms)));

const useColor = process.stdout.isTTY === true && process.env.NO_COLOR === undefined;
const paint = (code: string, text: string): string => (useColor ? `\x1b[${code}m${text}\x1b[0m` : text);

/** Runs the demo against a running example and writes the chart. */
export async function runDemo(options: DemoOptions = {}): Promise<DemoResult> {
  const url = options.url ?? 'http://localhost:4000/';
  const quick = options.quick ?? false;
  const print = options.print ?? ((line: string) => console.log(line));
  // `npm run` moves to the package root; INIT_CWD is where the user typed the command.
  const svgPath = resolve(process.env.INIT_CWD ?? process.cwd(), options.out ?? 'demo-budget.svg');
  const throttleSeconds = quick ? 2.5 : 10;
  const refillSeconds = quick ? 2 : 21;
  const probeEverySeconds = quick ? 0.5 : 2;
  const burstGapSeconds = quick ? 0.05 : 0.3;

  const started = performance.now();
  const now = (): number => (performance.now() - started) / 1000;
  const series = new Map<string, CallerSeries>(
    CALLERS.map((c) => [c.name, { name: c.name, tier: c.tier, capacity: 0, refillPerSecond: 0, samples: [] }]),
  );
  const org: CallerSeries = { name: ORG.label, tier: 'org', capacity: 0, refillPerSecond: 0, samples: [] };

  const send = async (caller: DemoCaller, request: { label: string; query: string }): Promise<Sample> => {
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${caller.apiKey}` },
        body: JSON.stringify({ query: request.query }),
        signal: AbortSignal.timeout(10_000),
      });
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(`Cannot reach the example at ${url} (${reason}). Start it first with: npm start`);
    }
    const text = await response.text();
    let body: GraphQLBody;
    try {
      body = JSON.parse(text) as GraphQLBody;
    } catch {
      throw new Error(
        `${url} answered ${response.status} with something that is not GraphQL JSON: is it the bookstore example?`,
      );
    }
    const cost = body.extensions?.cost;
    // The caller's own burst bucket, and the organisation's: extensions.cost.budgets lists each by name.
    const own = cost?.budgets?.find((bucket) => bucket.name === 'burst') ?? cost?.throttleStatus ?? null;
    const shared = cost?.budgets?.find((bucket) => bucket.name === ORG.name);
    const retryHeader = response.headers.get('retry-after');
    const sample: Sample = {
      t: now(),
      status: response.status,
      cost: cost?.requestedQueryCost ?? 0,
      remaining: own?.currentlyAvailable ?? null,
      retryAfter: retryHeader === null ? null : Number(retryHeader),
    };
    const entry = series.get(caller.name) as CallerSeries;
    if (own) {
      entry.capacity = own.maximumAvailable;
      entry.refillPerSecond = own.restoreRate;
    }
    entry.samples.push(sample);
    if (shared && shared.currentlyAvailable !== null) {
      org.capacity = shared.maximumAvailable;
      org.refillPerSecond = shared.restoreRate;
      org.samples.push({ ...sample, remaining: shared.currentlyAvailable });
    }
    // On a 429 the RateLimit field names the bucket that refused: "org";r=…
    const refusedBy =
      response.status === 429 ? /^"([^"]+)"/.exec(response.headers.get('ratelimit') ?? '')?.[1] : undefined;
    print(describe(caller, request.label, sample, cost, body, shared?.currentlyAvailable ?? null, refusedBy));
    return sample;
  };

  const describe = (
    caller: DemoCaller,
    label: string,
    s: Sample,
    cost: CostExtension | undefined,
    body: GraphQLBody,
    shared: number | null,
    refusedBy: string | undefined,
  ): string => {
    const who = `${caller.name.padEnd(5)} ${caller.tier.padEnd(4)}`;
    // After a refund (the lists were shorter than asked for), show what was finally charged.
    const refunded = s.status === 200 && cost?.actualQueryCost !== undefined && cost.actualQueryCost !== s.cost;
    const charged = refunded ? `${s.cost}→${cost.actualQueryCost}` : String(s.cost);
    const capacity = series.get(caller.name)?.capacity ?? 0;
    const left = s.remaining === null ? 'n/a' : `${Math.floor(s.remaining)}/${capacity}`;
    const orgLeft = shared === null ? '' : `  org ${`${shared}/${org.capacity}`.padStart(7)}`;
    let decision: string;
    if (s.status === 200) decision = paint('32', '200 allowed');
    else if (s.status === 429) {
      const by = refusedBy === undefined ? '' : ` by ${refusedBy}`;
      decision = paint('31', `429 throttled${by}  Retry-After: ${s.retryAfter ?? '?'} s`);
    } else
      decision = paint(
        '33',
        `${s.status} ${body.errors?.[0]?.extensions?.code ?? ''} ${body.errors?.[0]?.message ?? ''}`.trim(),
      );
    return `${paint('2', `[${s.t.toFixed(2).padStart(6)} s]`)} ${who}  ${label.padEnd(20)} cost ${charged.padStart(7)}  own ${left.padStart(9)}${orgLeft}  ${decision}`;
  };

  print(
    `Driving ${url} as ${CALLERS.map((c) => `${c.name} (${c.tier})`).join(' and ')}${quick ? ' (quick run)' : ''}.`,
  );

  // 1. Burst: each caller fires its heavy query back to back.
  const phases: Phase[] = [];
  print(
    paint(
      '1',
      `— burst: ${CALLERS.map((c) => `${c.name} sends ${c.burstRequests}`).join(', ')} heavy requests, ${burstGapSeconds} s apart`,
    ),
  );
  await Promise.all(
    CALLERS.map(async (caller) => {
      for (let i = 0; i < caller.burstRequests; i++) {
        if (i > 0) await sleep(burstGapSeconds * 1000);
        await send(caller, caller.heavy);
      }
    }),
  );
  phases.push({ name: 'burst', start: 0, end: now() });

  // 2. Throttle: keep asking, but wait as long as Retry-After says after each 429.
  print(paint('1', `— throttle: keep sending, sleeping Retry-After seconds after each 429 (${throttleSeconds} s)`));
  const throttleEnd = now() + throttleSeconds;
  await Promise.all(
    CALLERS.map(async (caller) => {
      while (now() < throttleEnd - 0.1) {
        const sample = await send(caller, caller.heavy);
        const wait = sample.status === 429 ? (sample.retryAfter ?? 1) : 0.25;
        await sleep(Math.min(wait, Math.max(0, throttleEnd - now())) * 1000);
      }
    }),
  );
  phases.push({ name: 'throttle (obeying Retry-After)', start: phases[0]?.end ?? 0, end: now() });

  // 3. Refill: stop spending and watch the buckets fill back up with a cheap probe.
  print(paint('1', `— refill: stop spending; a free probe every ${probeEverySeconds} s (${refillSeconds} s)`));
  const refillStart = now();
  const refillEnd = refillStart + refillSeconds;
  await Promise.all(
    CALLERS.map(async (caller) => {
      await sleep(probeEverySeconds * 1000);
      while (now() < refillEnd) {
        await send(caller, PROBE);
        await sleep(Math.min(probeEverySeconds, Math.max(0, refillEnd - now())) * 1000);
      }
    }),
  );
  phases.push({ name: 'refill', start: refillStart, end: now() });

  const result = [...series.values(), org];
  writeFileSync(
    svgPath,
    renderBudgetChart({ title: 'graphql-budget demo: tokens remaining per caller', series: result, phases }),
  );
  for (const s of series.values()) {
    const rejected = s.samples.filter((x) => x.status === 429).length;
    print(
      `${s.name} (${s.tier}): ${s.samples.length} requests, ${s.samples.length - rejected} allowed, ${rejected} rejected`,
    );
  }
  print(`Chart written to ${svgPath}`);
  return { series: result, phases, svgPath };
}

function parseArgs(argv: readonly string[]): DemoOptions {
  const options: DemoOptions = { quick: process.env.DEMO_QUICK === '1' };
  if (process.env.DEMO_URL) options.url = process.env.DEMO_URL;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--quick') options.quick = true;
    else if (arg === '--out') options.out = argv[++i];
    else if (arg.startsWith('--out=')) options.out = arg.slice('--out='.length);
    else if (/^https?:\/\//.test(arg)) options.url = arg;
    else throw new RangeError(`Unknown argument "${arg}". Usage: npm run demo -- [--quick] [--out file.svg] [url]`);
  }
  return options;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runDemo(parseArgs(process.argv.slice(2))).catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
