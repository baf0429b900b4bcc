import { readFileSync, writeFileSync } from 'node:fs';

export const README_START = '<!-- bench:start (written by `npm run bench -- --readme`) -->';
export const README_END = '<!-- bench:end -->';

/** Replaces what lies between the bench markers of the Markdown page at `path` (docs/performance.md) with `block`. */
export function updateReadme(path: string, block: string): void {
  const text = readFileSync(path, 'utf8');
  const start = text.indexOf(README_START);
  const end = text.indexOf(README_END);
  if (start < 0 || end < start) {
    throw new Error(`${path} has no "${README_START}" … "${README_END}" block to replace`);
  }
  writeFileSync(path, `${text.slice(0, start + README_START.length)}\n${block}\n${text.slice(end)}`);
}
