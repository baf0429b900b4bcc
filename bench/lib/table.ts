import { formatGoal, formatRatio, type Row, type RunResult, type SectionResult } from './report.js';

const HEADER = ['Variant', 'Result', 'Ratio', 'Goal', 'Verdict'];

function cells(row: Row): string[] {
  const ratio = row.ratio ? `${formatRatio(row.ratio.value)} ${row.ratio.of}` : '';
  const goal = row.goal ? formatGoal(row.goal) : '';
  const verdict = row.met === undefined ? '' : row.met ? 'met' : 'SHORT';
  return [row.variant, row.value, ratio, goal, verdict];
}

/** A section as a fixed-width text table, followed by its notes. */
export function textTable(section: SectionResult): string {
  const lines = [HEADER, ...section.rows.map(cells)];
  const widths = HEADER.map((_, column) => Math.max(...lines.map((line) => line[column]!.length)));
  const render = (line: string[]): string =>
    line.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd();
  const rule = widths.map((width) => '-'.repeat(width)).join('  ');
  const out = [`${section.title}  (${section.seconds.toFixed(1)} s)`, render(HEADER), rule];
  for (const line of lines.slice(1)) out.push(render(line));
  for (const note of section.notes) out.push(`  * ${note}`);
  return out.join('\n');
}

function escapeCell(text: string): string {
  return text.replaceAll('|', '\\|');
}

/** The whole run as Markdown: one table with a section column, then every section's notes. */
export function markdownTable(run: RunResult): string {
  const out = ['| Section | Variant | Result | Ratio | Goal | Verdict |', '|---|---|---|---|---|---|'];
  for (const section of run.sections) {
    section.rows.forEach((row, index) => {
      const line = [index === 0 ? section.title : '', ...cells(row)].map(escapeCell);
      out.push(`| ${line.join(' | ')} |`);
    });
  }
  const notes = run.sections.flatMap((section) => section.notes);
  if (notes.length > 0) {
    out.push('');
    for (const note of notes) out.push(`- ${note}`);
  }
  return out.join('\n');
}
