/**
 * Every TypeScript snippet of README.md and docs/*.md typechecks under `strict`, as a reader's
 * project would compile it (doc-snippets.ts: one `tsc` run over all of them, `graphql-budget` being
 * the sources). A new ```ts block is picked up by being there; a fragment names its prelude
 * (`<!-- assumes: snippets/NAME.ts -->`, see CONTRIBUTING.md).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docBlocks, fileBlocks } from './doc-blocks.js';
import {
  exportedNames,
  ownNames,
  PRELUDES,
  writeSnippetProject,
  type SnippetError,
  type SnippetProject,
} from './doc-snippets.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PAGES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
];

/**
 * A page of mistakes, compiled with the others, so that the check is seen to catch them: a wrong
 * type, a fragment without the prelude it needs, and the same fragment with it.
 */
const CANARY = 'docs/canary-of-the-snippet-check.md';
const CANARY_MARKDOWN = [
  '# Canary', // 1
  '', // 2
  '```ts', // 3
  "const count: number = 'three';", // 4
  '```', // 5
  '', // 6
  '```typescript', // 7
  'queryBudgetPlugin<MyContext>({ identify: ({ contextValue }) => contextValue.apiKeyOwner });', // 8
  '```', // 9
  '', // 10
  '<!-- assumes: snippets/server-parts.ts -->', // 11
  '```ts', // 12
  'queryBudgetPlugin<MyContext>({ identify: ({ contextValue }) => contextValue.apiKeyOwner });', // 13
  '```', // 14
  '', // 15
].join('\n');

const pages = PAGES.map((page) => ({ page, markdown: readFileSync(join(ROOT, page), 'utf8') }));
const project: SnippetProject = writeSnippetProject('doc-snippets', [
  ...pages,
  { page: CANARY, markdown: CANARY_MARKDOWN },
]);
const documented = project.snippets.filter((snippet) => snippet.page !== CANARY);
let result: { inSnippets: SnippetError[]; elsewhere: string[] };

beforeAll(async () => {
  result = await project.typecheck();
}, 120_000);
afterAll(() => project.remove());

describe('the TypeScript snippets of README.md and docs/', () => {
  it('are all found, the indented ones too', () => {
    expect(documented.length).toBeGreaterThanOrEqual(28);
    expect(documented.some((snippet) => snippet.page === 'docs/operations.md' && snippet.line > 100)).toBe(true);
  });

  it.each(documented.map((snippet) => [`${snippet.page}:${snippet.line}`, snippet] as const))(
    '%s typechecks under strict',
    (_, snippet) => {
      const errors = result.inSnippets.filter((error) => error.page === snippet.page && error.line >= snippet.line);
      const next = documented.find((other) => other.page === snippet.page && other.line > snippet.line);
      const own = errors.filter((error) => next === undefined || error.line < next.line);
      expect(own.map((error) => `${error.page}:${error.line} ${error.code} ${error.message}`)).toEqual([]);
    },
  );

  it('leave no error elsewhere (the preludes, the sources they reach)', () => {
    expect(result.elsewhere).toEqual([]);
  });

  it('use every prelude of docs/snippets/', () => {
    const preludes = readdirSync(PRELUDES).filter((file) => file.endsWith('.ts'));
    const used = new Set(documented.flatMap((snippet) => (snippet.prelude === undefined ? [] : [snippet.prelude])));
    for (const snippet of documented) {
      for (const match of snippet.code.matchAll(/from '\.\/([\w.-]+)\.js'/g)) used.add(`${match[1]}.ts`);
    }
    expect(preludes.filter((prelude) => !used.has(prelude))).toEqual([]);
  });
});

describe('the snippet check', () => {
  const canary = () => result.inSnippets.filter((error) => error.page === CANARY);

  it('reports a wrong type at its line of the page', () => {
    expect(canary().filter((error) => error.line === 4)).toEqual([
      expect.objectContaining({ code: 'TS2322', message: "Type 'string' is not assignable to type 'number'." }),
    ]);
  });

  it('reports a fragment without its prelude, and none with it', () => {
    expect(
      canary()
        .filter((error) => error.line === 8)
        .map((error) => error.code),
    ).toContain('TS2304');
    expect(canary().filter((error) => error.line >= 12)).toEqual([]);
  });

  it('reads the names a prelude exports', () => {
    const source = [
      'export interface A { a: 1 }',
      'export declare const b: number;',
      'export type C = string;',
      'export async function d(): Promise<void> {}',
      "export { e, type F, g as h } from './x.js';",
    ].join('\n');
    expect(exportedNames(source)).toEqual(['A', 'b', 'C', 'd', 'e', 'F', 'h']);
  });
});

describe('reading the blocks of a page', () => {
  it('takes the markers right above a fence, and dedents an indented block', () => {
    const markdown = [
      '<!-- file: a.ts -->',
      'text',
      '<!-- assumes: snippets/x.ts -->',
      '<!-- file: b.ts -->',
      '```ts',
      'const b = 1;',
      '```',
      '- item',
      '',
      '  ```typescript',
      '  const c = 2;',
      '  ```',
    ].join('\n');
    expect(docBlocks(markdown)).toEqual([
      {
        lang: 'ts',
        text: 'const b = 1;\n',
        line: 6,
        markers: new Map([
          ['file', 'b.ts'],
          ['assumes', 'snippets/x.ts'],
        ]),
      },
      { lang: 'typescript', text: 'const c = 2;\n', line: 11, markers: new Map() },
    ]);
  });

  it('refuses a block that is never closed, and a file name used twice', () => {
    expect(() => docBlocks('```ts\nconst a = 1;\n')).toThrow(/never closed/);
    expect(() => fileBlocks('<!-- file: a.ts -->\n```ts\n```\n<!-- file: a.ts -->\n```ts\n```\n')).toThrow(
      /second block/,
    );
  });

  it('names what a block imports or declares, so that its prelude does not bring it in again', () => {
    const code =
      "import { a, type B as C } from 'x';\nimport d, * as e from 'y';\nconst f = 1;\nexport interface G {}\n";
    expect([...ownNames(code)].sort()).toEqual(['C', 'G', 'a', 'd', 'e', 'f']);
  });
});
