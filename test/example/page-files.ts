/**
 * Writes the files a documentation page shows (its `<!-- file: NAME -->` blocks) into a scratch
 * directory of the repository, so that a test can import and run them as a user would run them:
 * the code is the page's, except that `'graphql-budget'` is this repository's sources, and that a
 * test may append an `export { … }` line to reach what a file starts (to stop it).
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DocBlock } from './doc-blocks.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The compiler options the files run under (Nest's decorators need the legacy ones, with metadata). */
const TSCONFIG = {
  extends: '../../tsconfig.json',
  compilerOptions: { experimentalDecorators: true, emitDecoratorMetadata: true },
  include: ['**/*.ts'],
};

export interface PageFiles {
  dir: string;
  /** The `file://` URL of one written file, for `import()`. */
  url(name: string): string;
  remove(): void;
}

/**
 * Writes every block of `files` into `.scratch/<name>-<pid>/`; `exports` names, per file, the
 * top-level bindings to export from it.
 */
export function writePageFiles(
  name: string,
  files: ReadonlyMap<string, DocBlock>,
  exports: Readonly<Record<string, readonly string[]>> = {},
): PageFiles {
  const dir = join(ROOT, '.scratch', `${name}-${process.pid}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const sources = relative(dir, join(ROOT, 'src/index.js'));
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(TSCONFIG, null, 2));
  for (const [file, block] of files) {
    const exported = exports[file];
    const text = block.text.replaceAll("from 'graphql-budget'", `from '${sources}'`);
    writeFileSync(join(dir, file), exported === undefined ? text : `${text}export { ${exported.join(', ')} };\n`);
  }
  for (const file of Object.keys(exports)) {
    if (!files.has(file)) throw new Error(`the page has no block marked file: ${file}`);
  }
  return {
    dir,
    url: (file) => new URL(`file://${join(dir, file)}`).href,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
