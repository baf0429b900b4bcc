import { copyFileSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shellWords } from '../example/readme-examples.js';
import { installBin, type InstalledBin } from './installed-bin.js';
import { fixtureDir } from './run-cli.js';

// Every command of docs/cli.md, run with the installed bin from the repository's root: each ```sh
// block that starts with `npx graphql-budget` is followed by a ```text block with what it prints
// (standard output, then standard error), and `<!-- cli: exit=N -->` before it gives a non-zero
// exit code. A command that ends with `> FILE` writes its standard output to FILE (the text block
// then holds its standard error); it and the commands that read FILE run in a scratch directory
// that links to the repository's node_modules, examples and test, so that the paths they print
// are the same. The GitHub Actions snippet's graphql-budget steps run on the bookstore's files.

const root = new URL('../../', import.meta.url).pathname;
const page = readFileSync(join(root, 'docs/cli.md'), 'utf8');

interface DocCommand {
  line: number;
  command: string;
  exit: number;
  output: string;
}

/** The fenced blocks of a Markdown page: language, text, 1-based line of the fence, and the line before it. */
function fencedBlocks(markdown: string): { lang: string; text: string; line: number; before: string }[] {
  const lines = markdown.split('\n');
  const blocks: { lang: string; text: string; line: number; before: string }[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w*)\s*$/.exec(lines[i] as string);
    if (open === null) continue;
    const end = lines.findIndex((line, j) => j > i && /^```\s*$/.test(line));
    blocks.push({
      lang: open[1] ?? '',
      text: lines.slice(i + 1, end).join('\n'),
      line: i + 1,
      before: lines[i - 1] ?? '',
    });
    i = end;
  }
  return blocks;
}

function docCommands(markdown: string): DocCommand[] {
  const blocks = fencedBlocks(markdown);
  const commands: DocCommand[] = [];
  blocks.forEach((block, index) => {
    if (block.lang !== 'sh' || !block.text.startsWith('npx graphql-budget ')) return;
    const shown = blocks[index + 1];
    if (shown?.lang !== 'text')
      throw new Error(`docs/cli.md:${block.line}: the command must be followed by a \`\`\`text block.`);
    const exit = /^<!-- cli: exit=(\d) -->$/.exec(block.before.trim());
    commands.push({
      line: block.line,
      command: block.text,
      exit: exit === null ? 0 : Number(exit[1]),
      output: `${shown.text}\n`,
    });
  });
  return commands;
}

let bin: InstalledBin;
/** Where the files the commands write go, beside links to what they read. */
const scratch = mkdtempSync(join(tmpdir(), 'graphql-budget-docs-cli-'));
for (const entry of ['node_modules', 'examples', 'test']) symlinkSync(join(root, entry), join(scratch, entry));
/** The files the page's commands wrote. */
const written = new Set<string>();
beforeAll(() => {
  bin = installBin();
});
afterAll(() => {
  bin?.remove();
  rmSync(scratch, { recursive: true, force: true });
});

const commands = docCommands(page);

describe('docs/cli.md', () => {
  it('shows a command in each section, and no shell block that is not replayed but the install line', () => {
    expect(commands).toHaveLength(18);
    const others = fencedBlocks(page).filter(
      (block) => block.lang === 'sh' && !block.text.startsWith('npx graphql-budget '),
    );
    expect(others.map((block) => block.text)).toEqual(['npm install --save-dev graphql-budget graphql']);
  });

  it.each(commands.map((command) => [`line ${command.line}`, command] as const))('%s', async (_line, shown) => {
    let words = shellWords(shown.command);
    expect(words.slice(0, 2)).toEqual(['npx', 'graphql-budget']);
    const target = words.at(-2) === '>' ? (words.at(-1) as string) : undefined;
    if (target !== undefined) words = words.slice(0, -2);
    const inScratch = target !== undefined || words.some((word) => written.has(word));
    const run = await bin.run(words.slice(2), inScratch ? scratch : root);
    if (target !== undefined) {
      writeFileSync(join(scratch, target), run.stdout);
      written.add(target);
    }
    expect((target === undefined ? run.stdout : '') + run.stderr).toBe(shown.output);
    expect(run.code).toBe(shown.exit);
  });
});

describe("docs/cli.md's GitHub Actions workflow", () => {
  const yaml = fencedBlocks(page).find((block) => block.lang === 'yaml')?.text ?? '';
  const steps = [...yaml.matchAll(/^\s+- run: (npx graphql-budget .*)$/gm)].map((match) =>
    shellWords(match[1] as string).slice(2),
  );
  const files = fixtureDir({});
  afterAll(() => files.remove());

  it('runs a lint step and a price step', () => {
    expect(steps.map((step) => step[0])).toEqual(['lint', 'price']);
  });

  it("passes on the bookstore's schema and persisted operations, and fails after a change that makes one too expensive", async () => {
    copyFileSync(join(root, 'examples/bookstore/schema.graphql'), join(files.dir, 'schema.graphql'));
    copyFileSync(
      join(root, 'examples/bookstore/persisted-query-manifest.json'),
      join(files.dir, 'persisted-query-manifest.json'),
    );
    copyFileSync(join(root, 'examples/bookstore/operations/variables.json'), join(files.dir, 'cost-variables.json'));
    for (const step of steps) expect((await bin.run(step, files.dir)).code).toBe(0);

    // Bestsellers (10 books, 32 tokens) becomes a list of 500.
    const schema = readFileSync(join(files.dir, 'schema.graphql'), 'utf8');
    const changed = schema.replace(
      'bestsellers: [Book!]! @listSize(assumedSize: 10)',
      'bestsellers: [Book!]! @listSize(assumedSize: 500)',
    );
    expect(changed).not.toBe(schema);
    writeFileSync(join(files.dir, 'schema.graphql'), changed);
    const price = await bin.run(steps[1] as string[], files.dir);
    expect(price.code).toBe(1);
    expect(price.stdout).toContain('over --max-cost 1000: persisted-query-manifest.json Bestsellers costs 1502\n');
  });
});

describe("the bookstore's persisted query manifest", () => {
  it('holds the operations of examples/bookstore/operations, each id the SHA-256 of its body', async () => {
    const { createHash } = await import('node:crypto');
    const { parse, print, Kind } = await import('graphql');
    const manifest = JSON.parse(
      readFileSync(join(root, 'examples/bookstore/persisted-query-manifest.json'), 'utf8'),
    ) as {
      format: string;
      operations: { id: string; name: string; type: string; body: string }[];
    };
    expect(manifest.format).toBe('apollo-persisted-query-manifest');
    const sources = ['book-page', 'catalogue', 'fragments'].map((name) =>
      parse(readFileSync(join(root, `examples/bookstore/operations/${name}.graphql`), 'utf8')),
    );
    const definitions = sources.flatMap((document) => document.definitions);
    const operations = definitions.filter((definition) => definition.kind === Kind.OPERATION_DEFINITION);
    expect(manifest.operations.map((entry) => entry.name).sort()).toEqual(
      operations.map((operation) => operation.name?.value).sort(),
    );
    for (const entry of manifest.operations) {
      expect(entry.id).toBe(createHash('sha256').update(entry.body).digest('hex'));
      const operation = operations.find((candidate) => candidate.name?.value === entry.name);
      expect(print(parse(entry.body).definitions[0] as never)).toBe(print(operation as never));
    }
  });
});
