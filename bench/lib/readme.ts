import { readFileSync, writeFileSync } from 'node:fs';
import type { RunResult } from './report.js';
import { markdownReport } from './table.js';

export const README_START = '<!-- bench:start (written by `npm run bench -- --readme`) -->';
export const README_END = '<!-- bench:end -->';

/** The machine line, chart and tables the README quotes from a full run. */
export function readmeBlock(run: RunResult, chartPath: string): string {
  const { machine } = run;
  const when = `${run.startedAt.slice(0, 16).replace('T', ' ')} UTC`;
  return [
    `Measured ${when} with \`${run.command}\` (${run.seconds.toFixed(0)} s) on ${machine.nproc} cores (\`nproc\`) of ` +
      `${machine.cpuModel}, Node ${machine.node}, Redis ${machine.redis}, ${machine.os}, NODE_ENV=${machine.nodeEnv}; ` +
      `1-minute load average ${machine.loadStart.toFixed(2)} at the start, ${machine.loadEnd.toFixed(2)} at the end.`,
    '',
    `![Benchmark ratios](${chartPath})`,
    '',
    markdownReport(run),
  ].join('\n');
}

/** Replaces what lies between the README's bench markers with `block`. */
export function updateReadme(path: string, block: string): void {
  const text = readFileSync(path, 'utf8');
  const start = text.indexOf(README_START);
  const end = text.indexOf(README_END);
  if (start < 0 || end < start) {
    throw new Error(`${path} has no "${README_START}" … "${README_END}" block to replace`);
  }
  writeFileSync(path, `${text.slice(0, start + README_START.length)}\n${block}\n${text.slice(end)}`);
}
