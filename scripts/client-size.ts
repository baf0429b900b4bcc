/**
 * `npm run size:client`: what `graphql-budget/client` weighs. Runs `npm pack --dry-run` (whose
 * `prepack` builds dist/) for the client files' share of the tarball, then bundles what an
 * application imports, each helper with the parser, from dist/esm as a browser bundler would
 * (rolldown, minified, tree-shaken), and prints the sizes minified and gzipped (level 9), as the
 * table docs/clients.md shows.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'rolldown';

const root = join(dirname(new URL(import.meta.url).pathname), '..');

const packed = spawnSync('npm', ['pack', '--dry-run', '--json'], { cwd: root, encoding: 'utf8' });
if (packed.status !== 0) {
  console.error(packed.stderr);
  process.exit(1);
}
const [tarball] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('[\n'))) as {
  size: number;
  unpackedSize: number;
  files: { path: string; size: number }[];
}[];
if (tarball === undefined) throw new Error('npm pack printed no tarball');
const clientFiles = tarball.files.filter((file) => /^dist\/(esm|cjs)\/client\//.test(file.path));
const bytesOf = (pattern: RegExp): number =>
  clientFiles.filter((file) => pattern.test(file.path)).reduce((sum, file) => sum + file.size, 0);

const kB = (bytes: number): string => `${(bytes / 1000).toFixed(2)} kB`;
console.log('npm pack (unpacked bytes in the tarball):');
console.log(`  dist/esm/client/*.js   ${kB(bytesOf(/^dist\/esm\/client\/.*\.js$/))}`);
console.log(`  dist/cjs/client/*.js   ${kB(bytesOf(/^dist\/cjs\/client\/.*\.js$/))}`);
console.log(`  dist/*/client/*.d.ts   ${kB(bytesOf(/\.d\.ts$/))}`);
console.log(`  whole tarball          ${kB(tarball.size)} packed, ${kB(tarball.unpackedSize)} unpacked`);

const imports: [string, string][] = [
  ['readBudget', 'readBudget'],
  ['readBudget + budgetFetch', 'readBudget, budgetFetch'],
  ['readBudget + budgetLinkHandler', 'readBudget, budgetLinkHandler'],
  ['readBudget + budgetExchange', 'readBudget, budgetExchange'],
  ['readBudget + budgetFetch + budgetPacer', 'readBudget, budgetFetch, budgetPacer'],
  ['everything', '*'],
];
const dir = mkdtempSync(join(tmpdir(), 'graphql-budget-size-'));
console.log('\nBundled for a browser (rolldown, minified), then gzip -9:');
console.log('| Imported | Minified | Minified + gzip |\n| --- | --- | --- |');
try {
  for (const [label, names] of imports) {
    const entry = join(dir, 'entry.js');
    const from = JSON.stringify(join(root, 'dist/esm/client/index.js'));
    writeFileSync(entry, names === '*' ? `export * from ${from};\n` : `export { ${names} } from ${from};\n`);
    const { output } = await build({
      input: entry,
      platform: 'browser',
      write: false,
      output: { format: 'esm', minify: true },
      logLevel: 'warn',
    });
    const code = output.map((chunk) => (chunk.type === 'chunk' ? chunk.code : '')).join('');
    const gzipped = gzipSync(code, { level: 9 }).length;
    console.log(`| ${label} | ${kB(Buffer.byteLength(code))} | ${kB(gzipped)} |`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
