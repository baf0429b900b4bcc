/**
 * Compiles the benchmarks (`bench/`, with the example and test-support files they use) to plain
 * JavaScript under `.build/`, one file per source file at the same relative path, so that
 * `npm run bench` runs them in `node` on the built package, as users run it:
 *
 * - an import of the package's entry (`graphql-budget`, or `src/index.ts` from the example's files)
 *   stays `graphql-budget`, which Node resolves through package.json `exports` to `dist/`;
 * - an import of another file under `src/` becomes an import of its built twin under `dist/esm/`
 *   (the same module graph as the entry, so one instance of each module);
 * - every package stays an external import.
 *
 * Nothing under `src/` is compiled here: the build fails if `dist/esm` lacks a file the
 * benchmarks import (run `npm run build` first; `npm run bench` does). Types are checked by
 * `npm run typecheck`, which covers `bench/`; this step only strips them.
 *
 *   npx tsx scripts/build-bench.ts
 */
import { existsSync, rmSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Plugin } from 'rolldown';

const root = join(dirname(new URL(import.meta.url).pathname), '..');
const src = join(root, 'src');

/** The scripts `npm run bench` and the profiling tools start (each a process of its own). */
export const BENCH_ENTRIES = [
  'bench/run.ts',
  'bench/http/server.ts',
  'bench/http/deny-cache-server.ts',
  'bench/profile-http.ts',
  'bench/profile-in-process.ts',
  'bench/response-write.ts',
  'bench/response-walk.ts',
  'bench/script-time.ts',
  'bench/callgrind-script.ts',
] as const;

/**
 * Sends every import of the library's sources to the built package: `src/index.ts` to
 * `graphql-budget`, another file of `src/` to its twin under `dist/esm/`, as a path relative to
 * where the importer's compiled file lands under `out`. With `checkBuilt`, a twin that is not
 * built fails the build.
 */
function builtPackage(out: string, checkBuilt: boolean): Plugin {
  return {
    name: 'graphql-budget-built-package',
    resolveId(source, importer) {
      if (source === 'graphql-budget') return { id: 'graphql-budget', external: true };
      if (importer === undefined || !(source.startsWith('.') || isAbsolute(source))) return null;
      const target = resolve(dirname(importer), source).replace(/\.(ts|js)$/, '');
      const inSrc = relative(src, target);
      if (inSrc.startsWith('..') || isAbsolute(inSrc)) return null;
      if (inSrc === 'index') return { id: 'graphql-budget', external: true };
      const built = join(root, 'dist/esm', `${inSrc}.js`);
      if (checkBuilt && !existsSync(built))
        throw new Error(
          `${relative(root, importer)} imports ${source}: ${relative(root, built)} is not built (npm run build)`,
        );
      // The path from the importer's compiled file (at the same place under .build/) to dist/esm.
      const from = dirname(join(out, relative(root, importer)));
      const path = relative(from, built);
      return { id: path.startsWith('.') ? path : `./${path}`, external: true };
    },
  };
}

export interface BuildBenchOptions {
  /** Where the compiled files go. @default `.build` in the repository */
  out?: string;
  /** Whether an import of a file of `src/` that `dist/esm` lacks fails the build. @default true */
  checkBuilt?: boolean;
}

/** Compiles `BENCH_ENTRIES` and the modules they import (the package excepted) under `out`. */
export async function buildBench(options: BuildBenchOptions = {}): Promise<void> {
  const out = options.out ?? join(root, '.build');
  rmSync(out, { recursive: true, force: true });
  await build({
    input: BENCH_ENTRIES.map((entry) => join(root, entry)),
    platform: 'node',
    plugins: [builtPackage(out, options.checkBuilt ?? true)],
    // Packages (peers and dev dependencies alike) are loaded by Node from node_modules.
    external: (id) => !id.startsWith('.') && !isAbsolute(id) && !id.startsWith('\0'),
    resolve: { extensionAlias: { '.js': ['.ts', '.js'] } },
    output: {
      dir: out,
      format: 'esm',
      preserveModules: true,
      preserveModulesRoot: root,
      entryFileNames: '[name].js',
      sourcemap: true,
    },
    logLevel: 'warn',
  });
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await buildBench();
  console.log(`build-bench: ${BENCH_ENTRIES.length} entries compiled to .build/`);
}
