/**
 * `npm run bench` measures the built package: scripts/build-bench.ts compiles `bench/` so that
 * every import of the library (its entry or any other file of `src/`) is loaded from `dist/`, and
 * nothing of `src/` is compiled into the benchmarks. Compiles them into a temporary folder (without
 * requiring `dist/` to exist) and reads the import specifiers of every module it wrote.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BENCH_ENTRIES, buildBench } from '../../scripts/build-bench.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const out = mkdtempSync(join(tmpdir(), 'graphql-budget-bench-build-'));

/** Every module written under `out`, relative to it. */
function modules(): string[] {
  return readdirSync(out, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.js'));
}

/** The specifiers of a module's static and dynamic imports and re-exports. */
function specifiers(file: string): string[] {
  const text = readFileSync(join(out, file), 'utf8');
  return [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)["']([^"']+)["']/g)].map((match) => match[1]!);
}

describe('the benchmarks, compiled', () => {
  beforeAll(async () => {
    await buildBench({ out, checkBuilt: false });
  }, 60_000);
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('holds every entry, at the path of its source', () => {
    const written = new Set(modules());
    for (const entry of BENCH_ENTRIES) expect(written).toContain(entry.replace(/\.ts$/, '.js'));
  });

  it('compiles nothing of src/', () => {
    const fromSrc = modules().filter((file) => file.startsWith('src/'));
    expect(fromSrc).toEqual([]);
  });

  it('loads the package from dist/: graphql-budget, or a file of dist/esm', () => {
    let toPackage = 0;
    let toDist = 0;
    for (const file of modules()) {
      for (const specifier of specifiers(file)) {
        if (specifier === 'graphql-budget') {
          toPackage++;
          continue;
        }
        if (!specifier.startsWith('.')) continue;
        const target = resolve(dirname(join(out, file)), specifier);
        if (target.startsWith(out)) continue;
        // Out of the compiled tree: only the built package may be reached.
        expect(relative(root, target), `${file} imports ${specifier}`).toMatch(/^dist\/esm\/.+\.js$/);
        toDist++;
      }
    }
    expect(toPackage).toBeGreaterThan(0);
    expect(toDist).toBeGreaterThan(0);
  });

  it('imports the package by name from the run and the servers it starts', () => {
    for (const entry of ['bench/run.js', 'bench/http/server.js', 'bench/in-process/apollo-server.js']) {
      expect(specifiers(entry), entry).toContain('graphql-budget');
    }
  });
});
