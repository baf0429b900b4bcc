/**
 * Writes `src/bucket/bucket-lua.ts` from `lua/bucket.lua`: the script's text as a string constant,
 * so that both builds (ES module and CommonJS) carry it and nothing reads a file at run time.
 * `npm run build` runs this first; `test/bucket/bucket-lua.test.ts` fails when the two differ.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const SOURCE = 'lua/bucket.lua';
const TARGET = 'src/bucket/bucket-lua.ts';

/** The TypeScript module that holds `lua` as `BUCKET_LUA` (a template literal: the text stays readable). */
export function luaModule(lua: string): string {
  const escaped = lua.replaceAll('\\', '\\\\').replaceAll('`', '\\`').replaceAll('${', '\\${');
  return [
    `// Generated from ${SOURCE} by scripts/embed-lua.ts (run by \`npm run build\`): edit the .lua file, not`,
    '// this one. test/bucket/bucket-lua.test.ts checks that the two hold the same text.',
    '',
    `/** The text of \`${SOURCE}\`, embedded so that both builds carry it without reading a file. */`,
    `export const BUCKET_LUA = \`${escaped}\`;`,
    '',
  ].join('\n');
}

/** Rewrites the module under `root` when the script changed; returns whether it did. */
export function embedLua(root: string): boolean {
  const text = luaModule(readFileSync(join(root, SOURCE), 'utf8'));
  const target = join(root, TARGET);
  let current: string | undefined;
  try {
    current = readFileSync(target, 'utf8');
  } catch {
    current = undefined;
  }
  if (current === text) return false;
  writeFileSync(target, text);
  return true;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const changed = embedLua(process.cwd());
  console.log(changed ? `${TARGET} rewritten from ${SOURCE}: commit it.` : `${TARGET} matches ${SOURCE}.`);
}
