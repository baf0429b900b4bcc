import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The nearest folder at or above `dir` that holds graphql-budget's package.json. */
function packageRoot(dir: string): string {
  for (let at = dir; ; at = dirname(at)) {
    const manifest = join(at, 'package.json');
    if (
      existsSync(manifest) &&
      (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'graphql-budget'
    ) {
      return at;
    }
    if (dirname(at) === at) throw new Error(`no graphql-budget package.json above ${dir}`);
  }
}

/**
 * The repository's root, found the same way from the sources (`bench/`) and from their compiled
 * twins (`.build/bench/`), which sit at another depth.
 */
export const ROOT: string = packageRoot(dirname(fileURLToPath(import.meta.url)));

/** The absolute path of a file of the repository, e.g. `examples/bookstore/schema.graphql`. */
export function repoFile(path: string): string {
  return join(ROOT, path);
}

/**
 * The compiled script of a benchmark source file (`bench/http/server.ts` →
 * `.build/bench/http/server.js`), which a benchmark starts with plain `node`
 * (scripts/build-bench.ts compiles it).
 */
export function builtScript(source: string): string {
  return join(ROOT, '.build', source.replace(/\.ts$/, '.js'));
}
