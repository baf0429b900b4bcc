import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { installBlock, installBlocks, npmInstallPackages, withVariant } from './readme-install.js';

// The consumer check (check.ts) runs the README's install blocks in fresh projects; this file checks,
// without the network, that it reads and composes them as the README describes.
const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

describe('reading the install blocks', () => {
  it('finds every block the consumer check runs', () => {
    const names = [...installBlocks(README).keys()].sort();
    expect(names).toEqual(
      [
        'npm',
        'npm, TypeScript',
        'request',
        'response',
        'server.js',
        'server.js, CommonJS imports',
        'server.ts',
        'server.ts, node-redis',
        'server.ts, without Redis',
        'tsconfig.json',
      ].sort(),
    );
  });

  it('refuses a marker without a code block, and a name used twice', () => {
    expect(() => installBlocks('<!-- install: a -->\ntext\n')).toThrow(/not followed by a code block/);
    expect(() => installBlocks('<!-- install: a -->\n```js\nx\n```\n<!-- install: a -->\n```js\ny\n```\n')).toThrow(
      /second block/,
    );
  });

  it('lists the packages of npm install lines, without options', () => {
    expect(npmInstallPackages('npm init -y\nnpm install a @b/c\nnpm install --save-dev d\n')).toEqual([
      'a',
      '@b/c',
      'd',
    ]);
  });
});

describe('composing a variant', () => {
  const base = [
    "import { a } from 'a';",
    "import { b } from 'b';",
    '',
    '// The store.',
    "const store = new B('x');",
    'use(store);',
  ].join('\n');

  it('replaces the imports, and a const with the comment above it', () => {
    const variant = "import { a } from 'a';\n\n// Another store.\nconst store = new A();\n";
    expect(withVariant(base, variant)).toBe(
      ["import { a } from 'a';", '', '// Another store.', 'const store = new A();', 'use(store);'].join('\n'),
    );
  });

  it('takes require lines as imports', () => {
    const variant = "const { a } = require('a');\nconst { b } = require('b');\n";
    expect(withVariant(base, variant).split('\n').slice(0, 2)).toEqual([
      "const { a } = require('a');",
      "const { b } = require('b');",
    ]);
  });

  it('puts a const the file does not have before the next const it replaces', () => {
    const variant = '// A client.\nconst client = new C();\n// Another store.\nconst store = new A(client);\n';
    expect(withVariant(base, variant).split('\n').slice(2)).toEqual([
      '',
      '// A client.',
      'const client = new C();',
      '// Another store.',
      'const store = new A(client);',
      'use(store);',
    ]);
  });

  it('refuses a new const that nothing follows, and a statement it cannot place', () => {
    expect(() => withVariant(base, 'const other = 1;\n')).toThrow(
      /"const other = 1;" is new and no const of the file follows it/,
    );
    expect(() => withVariant("import { a } from 'a';\nlet store = 1;\n", 'const store = 2;\n')).toThrow(
      /is new and no const/,
    );
    expect(() => withVariant(base, 'use(store);\n')).toThrow(/neither an import nor a one-line const/);
  });

  it('turns the README servers into a CommonJS file and a TypeScript file without ioredis', () => {
    const blocks = installBlocks(README);
    const cjs = withVariant(
      installBlock(blocks, 'server.js').text,
      installBlock(blocks, 'server.js, CommonJS imports').text,
    );
    expect(cjs).not.toMatch(/^import /m);
    expect(cjs).toContain("require('graphql-budget');");
    const memory = withVariant(
      installBlock(blocks, 'server.ts').text,
      installBlock(blocks, 'server.ts, without Redis').text,
    );
    expect(memory).not.toMatch(/ioredis|Redis\(/);
    expect(memory).toMatch(/^const store = new MemoryBucketStore\(\);$/m);
    const nodeRedis = withVariant(
      installBlock(blocks, 'server.ts').text,
      installBlock(blocks, 'server.ts, node-redis').text,
    );
    expect(nodeRedis).not.toMatch(/ioredis/);
    expect(nodeRedis).toMatch(/^import \{ createClient \} from 'redis';$/m);
    expect(nodeRedis).toMatch(/^const redis = await createClient\(.*\.connect\(\);$/m);
    expect(nodeRedis.indexOf('const redis =')).toBeLessThan(
      nodeRedis.indexOf('const store = new RedisBucketStore(redis);'),
    );
  });
});
