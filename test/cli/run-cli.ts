import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { runCli } from '../../src/cli/cli.js';

/** What one in-process run of the command printed, and its exit code. */
export interface CliRun {
  code: number;
  out: string;
  err: string;
}

/** Runs `graphql-budget …` in this process, in `cwd`. */
export function cli(args: readonly string[], cwd: string): CliRun {
  let out = '';
  let err = '';
  const code = runCli(args, { cwd, out: (text) => (out += text), err: (text) => (err += text) });
  return { code, out, err };
}

/** A temporary directory with these files (paths relative to it); `remove` deletes it. */
export function fixtureDir(files: Readonly<Record<string, string>>): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'graphql-budget-cli-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
