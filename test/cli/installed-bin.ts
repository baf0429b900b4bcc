import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** What one run of the command printed, and its exit code. */
export interface BinRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The `graphql-budget` command installed in a throw-away project. */
export interface InstalledBin {
  /** The project directory (it holds only node_modules). */
  readonly project: string;
  /** `node_modules/.bin/graphql-budget`, as npm links it. */
  readonly path: string;
  /** Runs the command (through its `#!` line) in `cwd`, bounded to 30 s. */
  run(args: readonly string[], cwd: string): Promise<BinRun>;
  remove(): void;
}

/**
 * Builds `dist/esm` from the sources with the build's own tsc settings (tsconfig.build.json,
 * under a second with TypeScript 7) into a fresh project's `node_modules/graphql-budget`, next to
 * the package's package.json, links the `bin` as npm does, and gives the project `graphql` and
 * `tinyglobby` only (links to this repository's copies): the command then runs as it does in a
 * project with only graphql-budget and graphql installed, and fails to load if it imports
 * anything else (`@apollo/server`, `ioredis`). Call once per test file.
 */
export function installBin(): InstalledBin {
  const project = mkdtempSync(join(tmpdir(), 'graphql-budget-bin-'));
  const modules = join(project, 'node_modules');
  const pkg = join(modules, 'graphql-budget');
  mkdirSync(pkg, { recursive: true });
  const tsc = spawnSync(
    join(root, 'node_modules/.bin/tsc'),
    ['-p', join(root, 'tsconfig.build.json'), '--outDir', join(pkg, 'dist/esm')],
    { encoding: 'utf8' },
  );
  if (tsc.status !== 0) throw new Error(`tsc failed:\n${tsc.stdout}${tsc.stderr}`);
  copyFileSync(join(root, 'package.json'), join(pkg, 'package.json'));
  for (const dependency of ['graphql', 'tinyglobby'])
    symlinkSync(join(root, 'node_modules', dependency), join(modules, dependency));
  const manifest = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')) as { bin: Record<string, string> };
  const target = join(pkg, manifest.bin['graphql-budget'] as string);
  chmodSync(target, 0o755);
  const path = join(modules, '.bin/graphql-budget');
  mkdirSync(dirname(path));
  symlinkSync(target, path);
  return {
    project,
    path,
    run: (args, cwd) => run(path, args, cwd),
    remove: () => rmSync(project, { recursive: true, force: true }),
  };
}

function run(path: string, args: readonly string[], cwd: string): Promise<BinRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(path, [...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
