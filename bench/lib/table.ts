import { formatGoal, formatRatio, type Row, type RunResult, type SectionResult } from './report.js';

const HEADER = ['Variant', 'Result', 'Ratio', 'Goal', 'Verdict'];
/** The goals table: a measure per row, no ratio. */
const GOALS_HEADER = ['Measure', 'Measured', 'Goal', 'Verdict'];

function headerOf(section: SectionResult): string[] {
  return section.layout === 'goals' ? GOALS_HEADER : HEADER;
}

function cells(section: SectionResult, row: Row): string[] {
  const ratio = row.ratio ? `${formatRatio(row.ratio.value)} ${row.ratio.of}` : '';
  const goal = row.goal ? formatGoal(row.goal) : '';
  const verdict = row.met === undefined ? '' : row.met ? 'met' : 'missed';
  if (section.layout === 'goals') return [row.variant, row.value, goal, verdict];
  return [row.variant, row.value, ratio, goal, verdict];
}

/** A section as a fixed-width text table, followed by its notes. */
export function textTable(section: SectionResult): string {
  const header = headerOf(section);
  const lines = [header, ...section.rows.map((row) => cells(section, row))];
  const widths = header.map((_, column) => Math.max(...lines.map((line) => line[column]!.length)));
  const render = (line: string[]): string =>
    line
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join('  ')
      .trimEnd();
  const rule = widths.map((width) => '-'.repeat(width)).join('  ');
  const out = [`${section.title}  (${section.seconds.toFixed(1)} s)`, render(header), rule];
  for (const line of lines.slice(1)) out.push(render(line));
  for (const note of section.notes) out.push(`  * ${note}`);
  return out.join('\n');
}

function escapeCell(text: string): string {
  return text.replaceAll('|', '\\|');
}

/** Where and how the run was made, in one paragraph; a quick run says it is not to be quoted. */
export function runSummary(run: RunResult): string {
  const { machine } = run;
  const when = `${run.startedAt.slice(0, 16).replace('T', ' ')} UTC`;
  const summary =
    `Measured ${when} with \`${run.command}\` (${run.seconds.toFixed(0)} s) on ${machine.nproc} cores (\`nproc\`) of ` +
    `${machine.cpuModel}, Node ${machine.node}, Redis ${machine.redis}, ${machine.os}, NODE_ENV=${machine.nodeEnv}; ` +
    `1-minute load average ${machine.loadStart.toFixed(2)} at the start, ${machine.loadEnd.toFixed(2)} at the end.`;
  if (run.mode === 'full') return summary;
  return `**Quick smoke run: samples far too small to quote; not the figures in docs/performance.md.** ${summary}`;
}

/** The whole run as Markdown: per section, how it was measured, a table, and the notes. */
export function markdownReport(run: RunResult, chartPath?: string): string {
  const out: string[] = [runSummary(run), ''];
  if (chartPath !== undefined) out.push(`![Benchmark ratios](${chartPath})`, '');
  for (const section of run.sections) {
    out.push(`**${section.title}.** ${section.method}`, '');
    const header = headerOf(section);
    out.push(`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`);
    for (const row of section.rows) out.push(`| ${cells(section, row).map(escapeCell).join(' | ')} |`);
    out.push('');
    for (const note of section.notes) out.push(`- ${note}`);
    if (section.notes.length > 0) out.push('');
  }
  return out.join('\n').trimEnd();
}
