/**
 * The shape of a benchmark run's results, shared by the sections, the table printer and the
 * JSON/SVG writers.
 */

/** A goal from the benchmark issue, checked against a row's ratio. */
export interface Goal {
  /** `>=`: the ratio must be at least `target`; `<=`: at most; `=`: exactly. */
  op: '>=' | '<=' | '=';
  target: number;
  /** How the goal is printed when it is not a ratio, e.g. `0 keys`. */
  label?: string;
}

/** One measured variant inside a section. */
export interface Row {
  /** What was measured, e.g. `RedisBucketStore.consume`. */
  variant: string;
  /** The headline figure as printed, e.g. `41,200 ops/s`. */
  value: string;
  /** The raw numbers behind `value` (and more), for the JSON file. */
  metrics: Record<string, number>;
  /** The figure compared with a baseline measured side by side in the same run. */
  ratio?: { value: number; of: string; unit?: string };
  goal?: Goal;
  /** Whether the goal was met (absent when there is no goal). */
  met?: boolean;
}

export interface SectionResult {
  id: string;
  title: string;
  /** How it was measured, in one or two sentences. */
  method: string;
  rows: Row[];
  /** Plain-language remarks, including every goal that was missed and by how much. */
  notes: string[];
  /** Wall-clock seconds the section took. */
  seconds: number;
  /** `goals`: the goals table (a measure per row, its figure, goal and verdict; no ratio column). */
  layout?: 'goals';
}

export interface MachineInfo {
  nproc: number;
  cpuModel: string;
  node: string;
  redis: string;
  os: string;
  /** NODE_ENV of the run and of the HTTP server processes. */
  nodeEnv: string;
  /** 1-minute load average at the start and at the end of the run. */
  loadStart: number;
  loadEnd: number;
}

export interface RunResult {
  /** `full` runs are the ones the README quotes; `quick` runs are CI smoke runs with tiny samples. */
  mode: 'full' | 'quick';
  startedAt: string;
  command: string;
  seconds: number;
  machine: MachineInfo;
  sections: SectionResult[];
}

/**
 * Whether `ratio` satisfies `goal`. `>=` and `<=` compare the ratio rounded to 2 decimals, as printed;
 * `=` compares exactly.
 */
export function meets(ratio: number, goal: Goal): boolean {
  if (goal.op === '=') return ratio === goal.target;
  const shown = Math.round(ratio * 100) / 100;
  if (goal.op === '>=') return shown >= goal.target;
  return shown <= goal.target;
}

/** Builds a row with a ratio and, when given, a goal and its verdict. */
export function ratioRow(
  variant: string,
  value: string,
  metrics: Record<string, number>,
  ratio: { value: number; of: string; unit?: string },
  goal?: Goal,
): Row {
  const row: Row = { variant, value, metrics, ratio };
  if (goal) {
    row.goal = goal;
    row.met = meets(ratio.value, goal);
  }
  return row;
}

/** `≥ 0.90×`, `≤ 1.05×`, or the goal's own label. */
export function formatGoal(goal: Goal): string {
  return goal.label ?? `${goal.op === '>=' ? '≥' : goal.op === '<=' ? '≤' : '='} ${formatRatio(goal.target)}`;
}

/** A sentence describing a goal's outcome, saying plainly where we fall short. */
export function goalNote(subject: string, row: Row): string | undefined {
  if (!row.goal || !row.ratio) return undefined;
  const goal = `${formatGoal(row.goal)} ${row.ratio.of}`;
  const got = `${formatRatio(row.ratio.value)} ${row.ratio.of}`;
  if (row.met) return `${subject}: goal ${goal} met (${got}).`;
  return `${subject}: missed the goal ${goal}: measured ${got}.`;
}

export function formatRatio(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  if (value !== 0 && Math.abs(value) < 0.1) return `${value.toPrecision(2)}×`;
  return `${value.toFixed(2)}×`;
}

/** Thousands separators, no decimals. */
export function formatInt(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

/** Milliseconds with a sensible number of decimals. */
export function formatMs(value: number): string {
  if (Math.abs(value) >= 100) return `${value.toFixed(0)} ms`;
  if (Math.abs(value) >= 10) return `${value.toFixed(1)} ms`;
  return `${value.toFixed(2)} ms`;
}

/** Microseconds for per-call CPU times. */
export function formatUs(value: number): string {
  const sign = value < 0 ? '−' : '';
  const size = Math.abs(value);
  if (size >= 1000) return `${sign}${(size / 1000).toFixed(2)} ms`;
  if (size >= 10) return `${sign}${size.toFixed(0)} µs`;
  return `${sign}${size.toFixed(2)} µs`;
}

/** A signed difference in milliseconds: `+0.21 ms`, `−0.03 ms`. */
export function formatDeltaMs(value: number): string {
  return `${value < 0 ? '−' : '+'}${formatMs(Math.abs(value))}`;
}

/** `1 alternating round`, `7 alternating rounds`. */
export function alternatingRounds(count: number): string {
  return `${count} alternating round${count === 1 ? '' : 's'}`;
}

/** A signed percentage: `+19%`, `−1%`. */
export function formatPercent(fraction: number): string {
  const percent = Math.round(fraction * 100);
  return `${percent < 0 ? '−' : '+'}${Math.abs(percent)}%`;
}
