/**
 * Typechecks the TypeScript snippets of the documentation: every ```ts or ```typescript block of a
 * page becomes a module of a scratch project, compiled by `tsc` under `strict`, where
 * `graphql-budget` is this repository's sources. A block that is a fragment says what it assumes
 * with a marker naming a prelude under docs/snippets/ (see CONTRIBUTING.md):
 *
 *     <!-- assumes: snippets/plugin-context.ts -->
 *     ```ts
 *
 * The names the prelude exports are imported into the block. A block marked `<!-- file: NAME.ts -->`
 * is written under that name, so the page's other blocks import it as `./NAME.js`; another relative
 * import `./NAME.js` finds docs/snippets/NAME.ts.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { docBlocks } from './doc-blocks.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const PRELUDES = join(ROOT, 'docs/snippets');

/** One TypeScript block of a page, as it is compiled. */
export interface Snippet {
  /** The page, relative to the repository: `docs/observability.md`. */
  page: string;
  /** 1-based line of the block's first line of code in the page. */
  line: number;
  /** The module's file name in the page's directory of the project. */
  file: string;
  /** The prelude it assumes (a file name under docs/snippets/), if any. */
  prelude: string | undefined;
  /** The block's code. */
  code: string;
}

/** Every TypeScript block of `markdown` (the page at `page`), in document order. */
export function pageSnippets(page: string, markdown: string): Snippet[] {
  return docBlocks(markdown)
    .filter((block) => block.lang === 'ts' || block.lang === 'typescript')
    .map((block) => {
      const assumes = block.markers.get('assumes');
      let prelude: string | undefined;
      if (assumes !== undefined) {
        const path = resolve(ROOT, dirname(page), assumes);
        if (dirname(path) !== PRELUDES || !path.endsWith('.ts')) {
          throw new SyntaxError(
            `${page}:${block.line - 1}: "assumes: ${assumes}" must name a .ts file of docs/snippets/.`,
          );
        }
        if (!existsSync(path)) throw new SyntaxError(`${page}:${block.line - 1}: docs/snippets/ has no ${assumes}.`);
        prelude = relative(PRELUDES, path);
      }
      const named = block.markers.get('file');
      if (named !== undefined && !named.endsWith('.ts')) {
        throw new SyntaxError(`${page}:${block.line - 1}: a TypeScript block's file name ends in .ts, not "${named}".`);
      }
      return { page, line: block.line, file: named ?? `block-${block.line}.ts`, prelude, code: block.text };
    });
}

/** The names a prelude exports (`export [declare] const|function|class|interface|type|enum NAME`, `export { … }`). */
export function exportedNames(source: string): string[] {
  const names = [
    ...source.matchAll(
      /^export\s+(?:declare\s+)?(?:async\s+)?(?:const|let|var|function|class|interface|type|enum)\s+(\w+)/gm,
    ),
  ].map((match) => match[1] as string);
  for (const list of source.matchAll(/^export\s+(?:type\s+)?\{([^}]*)\}/gm)) {
    for (const entry of (list[1] as string).split(',')) {
      const name = entry
        .trim()
        .replace(/^type\s+/, '')
        .split(/\s+as\s+/)
        .at(-1);
      if (name) names.push(name);
    }
  }
  return names;
}

/**
 * The names a block imports or declares at the start of a line (`import { a, type B } from`,
 * `import c from`, `const d =`, `interface E`): those its prelude must not bring in again.
 */
export function ownNames(code: string): Set<string> {
  const names = new Set<string>();
  for (const match of code.matchAll(/^import\s+(?:type\s+)?([\s\S]*?)\s+from\s/gm)) {
    const clause = match[1] as string;
    const braces = /\{([^}]*)\}/.exec(clause);
    for (const entry of braces?.[1]?.split(',') ?? []) {
      const name = entry
        .trim()
        .replace(/^type\s+/, '')
        .split(/\s+as\s+/)
        .at(-1);
      if (name) names.add(name);
    }
    const outside = clause.replace(/\{[^}]*\}/, '').replace(/\*\s+as\s+/, '');
    for (const name of outside.split(',').map((part) => part.trim())) if (/^\w+$/.test(name)) names.add(name);
  }
  for (const match of code.matchAll(
    /^(?:export\s+)?(?:declare\s+)?(?:async\s+)?(?:const|let|var|function|class|interface|type|enum)\s+(\w+)/gm,
  )) {
    names.add(match[1] as string);
  }
  return names;
}

/** A compiler message, placed back in its page. */
export interface SnippetError {
  page: string;
  /** The line in the page. */
  line: number;
  code: string;
  message: string;
}

export interface SnippetProject {
  dir: string;
  snippets: Snippet[];
  /** Runs `tsc` over the project: the errors in snippets by page and line, and every other error as is. */
  typecheck(): Promise<{ inSnippets: SnippetError[]; elsewhere: string[] }>;
  remove(): void;
}

/** The compiler options of the project: strict, as the README's tsconfig.json, plus Nest's decorators. */
function tsconfig(sources: string): object {
  return {
    compilerOptions: {
      module: 'nodenext',
      target: 'es2022',
      lib: ['es2023'],
      strict: true,
      types: ['node'],
      skipLibCheck: true,
      noEmit: true,
      experimentalDecorators: true,
      emitDecoratorMetadata: true,
      paths: {
        'graphql-budget': [sources],
        'graphql-budget/client': [sources.replace(/index\.ts$/, 'client/index.ts')],
      },
    },
    include: ['pages/**/*.ts'],
  };
}

/**
 * Writes the pages' snippets into `.scratch/<name>-<pid>/pages/<page>/`, each with the preludes it
 * uses beside it.
 */
export function writeSnippetProject(
  name: string,
  pages: readonly { page: string; markdown: string }[],
): SnippetProject {
  const dir = join(ROOT, '.scratch', `${name}-${process.pid}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify(tsconfig(relative(dir, join(ROOT, 'src/index.ts'))), null, 2),
  );
  const preludes = new Set(readdirSync(PRELUDES).filter((file) => file.endsWith('.ts')));
  const snippets: Snippet[] = [];
  /** Generated file (relative to dir) → its snippet and the lines added above its code. */
  const origins = new Map<string, { snippet: Snippet; added: number }>();

  for (const { page, markdown } of pages) {
    const pageDir = join(dir, 'pages', page.replace(/\.md$/, '').replaceAll('/', '-'));
    mkdirSync(pageDir, { recursive: true });
    const pageSnippetsList = pageSnippets(page, markdown);
    const named = new Set(pageSnippetsList.map((snippet) => snippet.file));
    const used = new Set<string>();
    for (const snippet of pageSnippetsList) {
      if (snippet.prelude !== undefined) used.add(snippet.prelude);
      for (const match of snippet.code.matchAll(/from '\.\/([\w.-]+)\.js'/g)) {
        const file = `${match[1]}.ts`;
        if (!named.has(file) && preludes.has(file)) used.add(file);
      }
    }
    for (const prelude of used) {
      if (named.has(prelude))
        throw new SyntaxError(`${page}: a block named ${prelude} hides docs/snippets/${prelude}.`);
      writeFileSync(join(pageDir, prelude), readFileSync(join(PRELUDES, prelude), 'utf8'));
    }
    for (const snippet of pageSnippetsList) {
      if (snippets.some((other) => other.page === page && other.file === snippet.file)) {
        throw new SyntaxError(`${page}:${snippet.line}: a second block named ${snippet.file}.`);
      }
      const own = ownNames(snippet.code);
      const assumed =
        snippet.prelude === undefined
          ? []
          : exportedNames(readFileSync(join(PRELUDES, snippet.prelude), 'utf8')).filter((name) => !own.has(name));
      const header =
        assumed.length === 0
          ? ''
          : `import { ${assumed.join(', ')} } from './${(snippet.prelude as string).replace(/\.ts$/, '.js')}';\n`;
      // `export {}` makes a block without imports a module, so that blocks never share a scope.
      writeFileSync(join(pageDir, snippet.file), `${header}${snippet.code}export {};\n`);
      snippets.push(snippet);
      origins.set(relative(dir, join(pageDir, snippet.file)), { snippet, added: header === '' ? 0 : 1 });
    }
  }

  return {
    dir,
    snippets,
    remove: () => rmSync(dir, { recursive: true, force: true }),
    async typecheck() {
      const inSnippets: SnippetError[] = [];
      const elsewhere: string[] = [];
      const parse = (output: string): Set<string> => {
        const broken = new Set<string>();
        for (const entry of output.split(/\n(?=\S)/).filter((text) => text.trim() !== '')) {
          const match = /^(.+?)\((\d+),(\d+)\): error (TS\d+): ([\s\S]*)$/.exec(entry.trim());
          const origin = match === null ? undefined : origins.get(match[1] as string);
          if (match === null || origin === undefined) {
            elsewhere.push(entry.trim());
            continue;
          }
          // TS1xxx: a syntax error, which stops tsc from reporting any type error of the program.
          if (/^TS1\d{3}$/.test(match[4] as string)) broken.add(match[1] as string);
          const line = Number(match[2]) - origin.added;
          inSnippets.push({
            page: origin.snippet.page,
            line: line >= 1 ? origin.snippet.line + line - 1 : origin.snippet.line,
            code: match[4] as string,
            message: (match[5] as string).replace(/\s+/g, ' ').trim(),
          });
        }
        return broken;
      };
      const broken = parse(await runTsc(dir, 'tsconfig.json'));
      if (broken.size > 0) {
        // Once more without the blocks that do not parse, for the type errors of the others.
        const config = { extends: './tsconfig.json', exclude: [...broken] };
        writeFileSync(join(dir, 'tsconfig.parsed.json'), JSON.stringify(config, null, 2));
        parse(await runTsc(dir, 'tsconfig.parsed.json'));
      }
      return { inSnippets, elsewhere };
    },
  };
}

/** `tsc -p` over `dir` (TypeScript 7's compiler from node_modules), its output; at most 2 minutes. */
function runTsc(dir: string, config: string): Promise<string> {
  const tsc = join(ROOT, 'node_modules/.bin/tsc');
  return new Promise((resolvePromise, reject) => {
    execFile(
      tsc,
      ['-p', join(dir, config), '--pretty', 'false'],
      { cwd: dir, timeout: 120_000 },
      (error, stdout, stderr) => {
        // tsc exits 1 or 2 when it reports errors; anything else (a crash, the time-out) fails the check.
        const code = (error as { code?: unknown } | null)?.code;
        if (error !== null && !((code === 1 || code === 2) && /error TS\d+/.test(stdout))) {
          reject(new Error(`tsc failed: ${error.message}\n${stdout}${stderr}`));
          return;
        }
        resolvePromise(`${stdout}${stderr}`);
      },
    );
  });
}
