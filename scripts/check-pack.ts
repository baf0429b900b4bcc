/**
 * `npm run pack:check`: what a publisher packs from a fresh clone holds the package. Removes
 * `dist/`, runs `npm pack` (whose `prepack` builds), and checks that the tarball holds every file
 * that package.json names: each target of `exports`, `main`, `types` and `bin`, and that the
 * client entry's built files load only each other. Prints the files missing and exits 1, or the
 * tarball's size and file count.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const root = join(dirname(new URL(import.meta.url).pathname), '..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Record<string, unknown>;

/** Every path string under `value` (the targets of a conditional exports map, a bin map, …). */
function targets(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (value === null || typeof value !== 'object') return [];
  return Object.values(value).flatMap(targets);
}

const named = [
  ...targets(manifest.exports),
  ...targets(manifest.main),
  ...targets(manifest.types),
  ...targets(manifest.bin),
].map((path) => path.replace(/^\.\//, ''));

rmSync(join(root, 'dist'), { recursive: true, force: true });
const destination = mkdtempSync(join(tmpdir(), 'graphql-budget-pack-'));
const packed = spawnSync('npm', ['pack', '--json', '--pack-destination', destination], {
  cwd: root,
  encoding: 'utf8',
  stdio: ['ignore', 'pipe', 'inherit'],
});
if (packed.status !== 0) {
  console.error(`npm pack failed (exit ${packed.status})`);
  process.exit(1);
}
// npm prints the prepack script's output before the JSON.
const json = packed.stdout.slice(packed.stdout.indexOf('[\n'));
const [tarball] = JSON.parse(json) as { filename: string; size: number; files: { path: string }[] }[];
if (tarball === undefined) throw new Error('npm pack printed no tarball');
const files = new Set(tarball.files.map((file) => file.path));
const missing = [...new Set(named)].filter((path) => !files.has(path));
rmSync(destination, { recursive: true, force: true });
// `graphql-budget/client` is for API clients: its built files load nothing but each other.
const clientFiles = [...files].filter((path) => /^dist\/(esm|cjs)\/client\/.*\.js$/.test(path));
const reaching = clientFiles.flatMap((path) =>
  [
    ...readFileSync(join(root, path), 'utf8').matchAll(
      /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*)["']([^"']+)["']/g,
    ),
  ]
    .map((match) => match[1] as string)
    .filter((specifier) => !/^\.\/[\w-]+\.js$/.test(specifier))
    .map((specifier) => `${path} loads ${specifier}`),
);
if (clientFiles.length === 0) missing.push('dist/esm/client/*.js');
if (reaching.length > 0) {
  console.error(`graphql-budget/client loads files outside it:\n${reaching.map((line) => `  ${line}`).join('\n')}`);
  process.exit(1);
}
if (missing.length > 0) {
  console.error(`the packed tarball lacks files package.json names:\n${missing.map((path) => `  ${path}`).join('\n')}`);
  process.exit(1);
}
console.log(
  `pack: ${tarball.filename}, ${tarball.files.length} files, ${(tarball.size / 1024).toFixed(0)} kB; ` +
    `every file package.json names is in it (${new Set(named).size}).`,
);
