import { VARIANT_LABELS } from '../http/variants.js';
import {
  LARGE_OPERATION,
  SMALL_OPERATION,
  VARIABLE_OPERATION,
  type BookstoreOperation,
} from '../in-process/bookstore.js';
import { IN_PROCESS_VARIANTS } from '../in-process/variants.js';
import { formatInt, formatRatio, formatUs, type Goal, type Row, type SectionResult } from '../lib/report.js';
import { rowLabel } from './in-process.js';

/** Where a goal's figure comes from: a row's metrics in one section of the same run. */
interface Source {
  section: string;
  variant: string;
}

interface GoalSpec {
  measure: string;
  goal: Goal;
  /** The rows the figure is read from; the goal is not judged unless every one was measured. */
  sources: readonly Source[];
  /** The figure the goal is judged on, from the rows' metrics (in the order of `sources`). */
  figure(metrics: readonly Record<string, number>[]): number;
  /** The figure as printed, with its spread. */
  text(metrics: readonly Record<string, number>[]): string;
}

/** The in-process section's row of a variant (by id) on `operation`. */
const inProcessRow = (operation: BookstoreOperation, id: string): Source => ({
  section: 'in-process',
  variant: rowLabel(operation, IN_PROCESS_VARIANTS.find((variant) => variant.id === id)!),
});

const signedUs = (us: number): string => `${us >= 0 ? '+' : ''}${formatUs(us)}`;

/** `+12 µs (IQR +8 µs to +15 µs)`: a row's added CPU. */
const added = (m: Record<string, number>): string =>
  `${signedUs(m.addedMicrosMedian!)} (IQR ${signedUs(m.addedMicrosQ1!)} to ${signedUs(m.addedMicrosQ3!)})`;

/**
 * The absolute goal on the small operation's added CPU (the first goals). A Redis variant's
 * figure is printed beside rate-limiter-flexible's on the same framework (`redisPeer`): one
 * `RateLimiterRedis.consume` per request, what one Redis call costs this process.
 */
function addedGoal(measure: string, id: string, target: number, redisPeer?: string): GoalSpec {
  return {
    measure,
    goal: { op: '<=', target, label: `≤ ${target} µs` },
    sources: [
      inProcessRow(SMALL_OPERATION, id),
      ...(redisPeer === undefined ? [] : [inProcessRow(SMALL_OPERATION, redisPeer)]),
    ],
    figure: ([m]) => m!.addedMicrosMedian!,
    text: ([m, peer]) =>
      peer === undefined
        ? `${added(m!)}; bare ${formatUs(m!.baselineCpuMicrosMedian!)}`
        : `${added(m!)}; redis-server ${formatUs(m!.redisServerMicrosPerRequest!)} per request besides; ` +
          `rate-limiter-flexible's one consume ${signedUs(peer.addedMicrosMedian!)}`,
  };
}

/** The plugin's added CPU as a multiple of graphql-query-complexity's on the same framework and operation. */
function referenceGoal(
  framework: string,
  store: string,
  operation: BookstoreOperation,
  id: string,
  target: number,
): GoalSpec {
  return {
    measure: `in-process CPU the ${framework} plugin adds, ${store}, ${operation.label}, to graphql-query-complexity's`,
    goal: { op: '<=', target, label: `≤ ${formatRatio(target)} graphql-query-complexity` },
    sources: [inProcessRow(operation, id)],
    // No ratio when graphql-query-complexity added nothing measurable: the goal is then missed.
    figure: ([m]) => m!.referenceRatio ?? Number.NaN,
    text: ([m]) =>
      m!.referenceRatio === undefined
        ? `${added(m!)} (graphql-query-complexity's ${signedUs(m!.referenceAddedMicrosMedian!)}: no ratio)`
        : `${added(m!)} (${formatRatio(m!.referenceRatio)} graphql-query-complexity's ${signedUs(m!.referenceAddedMicrosMedian!)})`,
  };
}

/** The plugin's added CPU on the big-variable operation as a share of the bare server's own. */
function variableGoal(framework: string, id: string): GoalSpec {
  return {
    measure: `in-process CPU the ${framework} plugin adds, MemoryBucketStore, ${VARIABLE_OPERATION.label}, to the bare server's`,
    goal: { op: '<=', target: 0.1, label: '≤ 10 % of bare' },
    sources: [inProcessRow(VARIABLE_OPERATION, id)],
    figure: ([m]) => m!.addedMicrosMedian! / m!.baselineCpuMicrosMedian!,
    text: ([m]) =>
      `${added(m!)}; bare ${formatUs(m!.baselineCpuMicrosMedian!)} (${(
        (100 * m!.addedMicrosMedian!) / m!.baselineCpuMicrosMedian!
      ).toFixed(1)} %)`,
  };
}

/** No measured request of the variant refused because the store missed its deadline, on either operation. */
function missesGoal(framework: string, id: string, client: string): GoalSpec {
  const operations = [SMALL_OPERATION, LARGE_OPERATION];
  return {
    measure: `store-deadline misses, ${framework} + RedisBucketStore${client}, default deadline`,
    goal: { op: '=', target: 0, label: '0' },
    sources: operations.map((operation) => inProcessRow(operation, id)),
    figure: (rows) => rows.reduce((sum, m) => sum + m.storeMisses!, 0),
    text: (rows) =>
      rows
        .map((m, index) => `${formatInt(m.storeMisses!)} of ${formatInt(m.requests!)} (${operations[index]!.label})`)
        .join(', '),
  };
}

/** The goals of the benchmark issues ("Measure what users run", then the peers'), each judged on figures of this run. */
const GOALS: readonly GoalSpec[] = [
  addedGoal('in-process CPU the plugin adds per request, MemoryBucketStore', 'apollo-memory', 12),
  addedGoal(
    'in-process CPU the plugin adds per request, RedisBucketStore (client side)',
    'apollo-redis',
    25,
    'apollo-rate-limiter-flexible',
  ),
  addedGoal('in-process CPU the Yoga plugin adds per request, MemoryBucketStore', 'yoga-memory', 12),
  addedGoal(
    'in-process CPU the Yoga plugin adds per request, RedisBucketStore (client side)',
    'yoga-redis',
    25,
    'yoga-rate-limiter-flexible',
  ),
  referenceGoal('Apollo', 'MemoryBucketStore', SMALL_OPERATION, 'apollo-memory', 0.6),
  referenceGoal('Apollo', 'RedisBucketStore', SMALL_OPERATION, 'apollo-redis', 1.2),
  referenceGoal('Apollo', 'MemoryBucketStore', LARGE_OPERATION, 'apollo-memory', 1.0),
  referenceGoal('Apollo', 'RedisBucketStore', LARGE_OPERATION, 'apollo-redis', 1.5),
  referenceGoal('Yoga', 'MemoryBucketStore', SMALL_OPERATION, 'yoga-memory', 0.6),
  referenceGoal('Yoga', 'RedisBucketStore', SMALL_OPERATION, 'yoga-redis', 1.2),
  referenceGoal('Yoga', 'MemoryBucketStore', LARGE_OPERATION, 'yoga-memory', 1.0),
  referenceGoal('Yoga', 'RedisBucketStore', LARGE_OPERATION, 'yoga-redis', 1.5),
  {
    measure: `in-process CPU the Yoga plugin adds, to the Apollo plugin's, MemoryBucketStore, ${SMALL_OPERATION.label}`,
    goal: { op: '<=', target: 1.2, label: '≤ 1.20× Apollo' },
    sources: [inProcessRow(SMALL_OPERATION, 'yoga-memory'), inProcessRow(SMALL_OPERATION, 'apollo-memory')],
    // A ratio of the medians; Apollo's at or below 0 leaves no ratio, and the goal missed.
    figure: ([yoga, apollo]) =>
      apollo!.addedMicrosMedian! > 0 ? yoga!.addedMicrosMedian! / apollo!.addedMicrosMedian! : Number.NaN,
    text: ([yoga, apollo]) =>
      `${signedUs(yoga!.addedMicrosMedian!)} on Yoga, ${signedUs(apollo!.addedMicrosMedian!)} on Apollo` +
      (apollo!.addedMicrosMedian! > 0
        ? ` (${formatRatio(yoga!.addedMicrosMedian! / apollo!.addedMicrosMedian!)})`
        : ' (no ratio)'),
  },
  variableGoal('Apollo', 'apollo-memory'),
  variableGoal('Yoga', 'yoga-memory'),
  missesGoal('Apollo Server', 'apollo-redis', ''),
  missesGoal('Apollo Server', 'apollo-redis-unpipelined', ', ioredis without auto-pipelining'),
  missesGoal('GraphQL Yoga', 'yoga-redis', ''),
  {
    measure: 'HTTP throughput, MemoryBucketStore',
    goal: { op: '>=', target: 0.95, label: '≥ 0.95× bare' },
    sources: [{ section: 'http-throughput', variant: VARIANT_LABELS['plugin-memory'] }],
    figure: ([m]) => m!.ratioMedian!,
    text: ([m]) =>
      `${formatRatio(m!.ratioMedian!)} bare (${formatRatio(m!.ratioLow!)} to ${formatRatio(m!.ratioHigh!)} over the rounds)`,
  },
  {
    measure: 'p99 added at 200 req/s, RedisBucketStore',
    goal: { op: '<=', target: 1000, label: '≤ 1 ms' },
    sources: [{ section: 'http-latency', variant: VARIANT_LABELS['plugin-redis'] }],
    figure: ([m]) => m!.addedP99UsMedian!,
    text: ([m]) =>
      `${signedUs(m!.addedP99UsMedian!)} (IQR ${signedUs(m!.addedP99UsQ1!)} to ${signedUs(m!.addedP99UsQ3!)}); bare p99 ${formatUs(m!.bareP99Us!)}`,
  },
  {
    measure: 'redis-server CPU per batched consume',
    goal: { op: '<=', target: 4, label: '≤ 4 µs' },
    sources: [{ section: 'store-throughput', variant: 'RedisBucketStore.consume (batched)' }],
    figure: ([m]) => m!.redisScriptMicrosPerCall!,
    text: ([m]) =>
      `${formatUs(m!.redisScriptMicrosPerCall!)} running the script (INFO commandstats); ` +
      `${formatUs(m!.redisCpuMicrosPerCall!)} of redis-server CPU in all`,
  },
];

/** Whether `value` meets `goal`, compared as measured (no rounding). */
function meets(value: number, goal: Goal): boolean {
  if (goal.op === '<=') return value <= goal.target;
  if (goal.op === '>=') return value >= goal.target;
  return value === goal.target;
}

/**
 * The goals table: each goal with the figure this run measured for it and a verdict. A goal whose
 * section did not run (`--only`) says so and has no verdict.
 */
export function goals(sections: readonly SectionResult[]): SectionResult {
  const rows: Row[] = GOALS.map((spec): Row => {
    const found = spec.sources.map(
      (source) =>
        sections
          .find((candidate) => candidate.id === source.section)
          ?.rows.find((candidate) => candidate.variant === source.variant)?.metrics,
    );
    const missing = spec.sources.find((_, index) => found[index] === undefined);
    if (missing !== undefined) {
      return {
        variant: spec.measure,
        value: `not measured (section ${missing.section} not run)`,
        metrics: {},
        goal: spec.goal,
      };
    }
    const metrics = found as Record<string, number>[];
    const figure = spec.figure(metrics);
    return {
      variant: spec.measure,
      value: spec.text(metrics),
      metrics: { figure },
      goal: spec.goal,
      met: meets(figure, spec.goal),
    };
  });
  const missed = rows.filter((row) => row.met === false).length;
  const judged = rows.filter((row) => row.met !== undefined).length;
  return {
    id: 'goals',
    title: 'Goals',
    method:
      'Each goal of the benchmark issues, with the figure this run measured for it (the sections below say how) and its verdict. A missed goal is reported here, never as an exit code.',
    rows,
    notes: [`${judged - missed} of ${judged} goals met.`],
    seconds: 0,
    layout: 'goals',
  };
}
