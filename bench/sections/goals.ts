import { VARIANT_LABELS } from '../http/variants.js';
import { SMALL_OPERATION } from '../in-process/bookstore.js';
import { IN_PROCESS_VARIANTS } from '../in-process/variants.js';
import { formatRatio, formatUs, type Goal, type Row, type SectionResult } from '../lib/report.js';
import { rowLabel } from './in-process.js';

/** Where a goal's figure comes from: a row's metrics in one section of the same run. */
interface Source {
  section: string;
  variant: string;
}

interface GoalSpec {
  measure: string;
  goal: Goal;
  source: Source;
  /** The figure the goal is judged on, from the row's metrics. */
  figure(metrics: Record<string, number>): number;
  /** The figure as printed, with its spread. */
  text(metrics: Record<string, number>): string;
}

/** The in-process section's row of a variant (by id) on the operation. */
const label = (id: string): string =>
  rowLabel(SMALL_OPERATION, IN_PROCESS_VARIANTS.find((variant) => variant.id === id)!);

const signedUs = (us: number): string => `${us >= 0 ? '+' : ''}${formatUs(us)}`;

/** The goals of the benchmark issue ("Measure what users run"), each judged on one figure of this run. */
const GOALS: readonly GoalSpec[] = [
  {
    measure: 'in-process CPU the plugin adds per request, MemoryBucketStore',
    goal: { op: '<=', target: 12, label: '≤ 12 µs' },
    source: { section: 'in-process', variant: label('apollo-memory') },
    figure: (m) => m.addedMicrosMedian!,
    text: (m) =>
      `${signedUs(m.addedMicrosMedian!)} (IQR ${signedUs(m.addedMicrosQ1!)} to ${signedUs(m.addedMicrosQ3!)}); bare ${formatUs(m.baselineCpuMicrosMedian!)}`,
  },
  {
    measure: 'in-process CPU the plugin adds per request, RedisBucketStore (client side)',
    goal: { op: '<=', target: 25, label: '≤ 25 µs' },
    source: { section: 'in-process', variant: label('apollo-redis') },
    figure: (m) => m.addedMicrosMedian!,
    text: (m) =>
      `${signedUs(m.addedMicrosMedian!)} (IQR ${signedUs(m.addedMicrosQ1!)} to ${signedUs(m.addedMicrosQ3!)}); ` +
      `redis-server ${formatUs(m.redisServerMicrosPerRequest!)} per request besides`,
  },
  {
    measure: 'in-process CPU the Yoga plugin adds per request, MemoryBucketStore',
    goal: { op: '<=', target: 12, label: '≤ 12 µs' },
    source: { section: 'in-process', variant: label('yoga-memory') },
    figure: (m) => m.addedMicrosMedian!,
    text: (m) =>
      `${signedUs(m.addedMicrosMedian!)} (IQR ${signedUs(m.addedMicrosQ1!)} to ${signedUs(m.addedMicrosQ3!)}); bare ${formatUs(m.baselineCpuMicrosMedian!)}`,
  },
  {
    measure: 'in-process CPU the Yoga plugin adds per request, RedisBucketStore (client side)',
    goal: { op: '<=', target: 25, label: '≤ 25 µs' },
    source: { section: 'in-process', variant: label('yoga-redis') },
    figure: (m) => m.addedMicrosMedian!,
    text: (m) =>
      `${signedUs(m.addedMicrosMedian!)} (IQR ${signedUs(m.addedMicrosQ1!)} to ${signedUs(m.addedMicrosQ3!)}); ` +
      `redis-server ${formatUs(m.redisServerMicrosPerRequest!)} per request besides`,
  },
  {
    measure: 'HTTP throughput, MemoryBucketStore',
    goal: { op: '>=', target: 0.95, label: '≥ 0.95× bare' },
    source: { section: 'http-throughput', variant: VARIANT_LABELS['plugin-memory'] },
    figure: (m) => m.ratioMedian!,
    text: (m) =>
      `${formatRatio(m.ratioMedian!)} bare (${formatRatio(m.ratioLow!)} to ${formatRatio(m.ratioHigh!)} over the rounds)`,
  },
  {
    measure: 'p99 added at 200 req/s, RedisBucketStore',
    goal: { op: '<=', target: 1000, label: '≤ 1 ms' },
    source: { section: 'http-latency', variant: VARIANT_LABELS['plugin-redis'] },
    figure: (m) => m.addedP99UsMedian!,
    text: (m) =>
      `${signedUs(m.addedP99UsMedian!)} (IQR ${signedUs(m.addedP99UsQ1!)} to ${signedUs(m.addedP99UsQ3!)}); bare p99 ${formatUs(m.bareP99Us!)}`,
  },
  {
    measure: 'redis-server CPU per batched consume',
    goal: { op: '<=', target: 4, label: '≤ 4 µs' },
    source: { section: 'store-throughput', variant: 'RedisBucketStore.consume (batched)' },
    figure: (m) => m.redisScriptMicrosPerCall!,
    text: (m) =>
      `${formatUs(m.redisScriptMicrosPerCall!)} running the script (INFO commandstats); ` +
      `${formatUs(m.redisCpuMicrosPerCall!)} of redis-server CPU in all`,
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
    const section = sections.find((candidate) => candidate.id === spec.source.section);
    const row = section?.rows.find((candidate) => candidate.variant === spec.source.variant);
    if (row === undefined) {
      return {
        variant: spec.measure,
        value: `not measured (section ${spec.source.section} not run)`,
        metrics: {},
        goal: spec.goal,
      };
    }
    const figure = spec.figure(row.metrics);
    return {
      variant: spec.measure,
      value: spec.text(row.metrics),
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
      'Each goal of the issue "Measure what users run", with the figure this run measured for it (the sections below say how) and its verdict. A missed goal is reported here, never as an exit code.',
    rows,
    notes: [`${judged - missed} of ${judged} goals met.`],
    seconds: 0,
    layout: 'goals',
  };
}
