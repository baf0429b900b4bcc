/**
 * `npm run build`: the published shape, for ES module and CommonJS consumers alike.
 *
 * 1. `src/bucket/bucket-lua.ts` from `lua/bucket.lua` (scripts/embed-lua.ts).
 * 2. `dist/esm/`: tsc (tsconfig.build.json), one ES module and one declaration file per source file.
 * 3. `dist/cjs/index.js`: the same code as one CommonJS file, bundled from `dist/esm` by rolldown
 *    (every package, peer or not, stays an external `require`, so `graphql` remains the
 *    application's one instance), next to a copy of the declarations and a `package.json` that
 *    marks the folder as CommonJS: TypeScript then reads those declarations as CommonJS types, which
 *    resolve `@apollo/server` and `graphql` the way `require` does.
 *
 * 4. `dist/esm/cli/main.js`, the `graphql-budget` command (package.json `bin`), made executable:
 *    it runs as an ES module only, and loads the cost engine alone.
 *
 * The CommonJS bundle rejects a top-level await (rolldown fails the build) and turns
 * `import.meta.url` into the bundle's own file URL. The build ends by loading both entry points
 * and comparing their exports.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, isAbsolute, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'rolldown';
import { embedLua } from './embed-lua.js';

const root = join(dirname(new URL(import.meta.url).pathname), '..');
const dist = join(root, 'dist');
const esm = join(dist, 'esm');
const cjs = join(dist, 'cjs');

function step(label: string): void {
  console.log(`build: ${label}`);
}

/** Every file under `dir` whose name ends with `suffix`, as paths relative to `dir`. */
function filesUnder(dir: string, suffix: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith(suffix));
}

if (embedLua(root)) step('src/bucket/bucket-lua.ts rewritten from lua/bucket.lua (commit it)');
rmSync(dist, { recursive: true, force: true });

step('dist/esm (tsc)');
const tsc = spawnSync(join(root, 'node_modules/.bin/tsc'), ['-p', join(root, 'tsconfig.build.json')], {
  stdio: 'inherit',
});
if (tsc.status !== 0) process.exit(tsc.status ?? 1);
// The command's file starts with `#!/usr/bin/env node` (tsc keeps it); npm links it as the bin.
chmodSync(join(esm, 'cli/main.js'), 0o755);

/**
 * The package's entry points (package.json `exports`), as paths under dist/esm and dist/cjs.
 * `client/index` (`graphql-budget/client`) shares no code with the others: it is what API
 * clients import, and loads nothing but its own files.
 */
const ENTRIES = ['index', 'apollo/index', 'envelop/index', 'client/index'];

step('dist/cjs (rolldown)');
await build({
  input: Object.fromEntries(ENTRIES.map((entry) => [entry, join(esm, `${entry}.js`)])),
  platform: 'node',
  // Only our own files are bundled: dependencies and peers are required at run time.
  external: (id) => !id.startsWith('.') && !isAbsolute(id),
  // One bundle per entry point over shared chunks: the entries share one copy of the core.
  output: {
    format: 'cjs',
    dir: cjs,
    entryFileNames: '[name].js',
    chunkFileNames: 'chunks/[name]-[hash].js',
    strict: true,
  },
  logLevel: 'warn',
});
for (const file of filesUnder(esm, '.d.ts')) {
  mkdirSync(dirname(join(cjs, file)), { recursive: true });
  copyFileSync(join(esm, file), join(cjs, file));
}
writeFileSync(join(cjs, 'package.json'), `${JSON.stringify({ type: 'commonjs' }, null, 2)}\n`);

let exported = 0;
for (const entry of ENTRIES) {
  const fromImport = Object.keys(await import(pathToFileURL(join(esm, `${entry}.js`)).href)).sort();
  const fromRequire = Object.keys(createRequire(import.meta.url)(join(cjs, `${entry}.js`))).sort();
  if (fromImport.join() !== fromRequire.join()) {
    console.error(`build: the CommonJS build of ${entry} exports ${fromRequire.join(', ')}`);
    console.error(`build: the ES module build of ${entry} exports ${fromImport.join(', ')}`);
    process.exit(1);
  }
  exported += fromImport.length;
}
step(
  `done: ${ENTRIES.length} entry points, ${exported} exports alike in both builds, ${relative(root, dist)}/{esm,cjs}`,
);
