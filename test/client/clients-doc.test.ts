/**
 * The snippets of docs/clients.md, run as written, each against an example bookstore of its own
 * (so each is an anonymous caller with a full bucket): the block marked `<!-- client-example: NAME -->`
 * must print the block marked `<!-- output: NAME -->`, line for line, numbers within one. The Apollo
 * Client snippet runs with Apollo Client 4 and with Apollo Client 3. `graphql-budget/client` is this
 * repository's sources, `http://localhost:4000/` the bookstore's address.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createBookstoreServer, type BookstoreServer } from '../../examples/bookstore/server.js';
import { MemoryBucketStore } from '../../src/index.js';
import { docBlocks } from '../example/doc-blocks.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PAGE = readFileSync(join(ROOT, 'docs/clients.md'), 'utf8');
const SCRATCH = join(ROOT, '.scratch', `clients-doc-${process.pid}`);

const blocks = docBlocks(PAGE);
const marked = (marker: string, name: string): string => {
  const block = blocks.find((candidate) => candidate.markers.get(marker) === name);
  if (!block) throw new Error(`docs/clients.md has no block marked <!-- ${marker}: ${name} -->`);
  return block.text;
};

/** Each run: the snippet, and what its imports become. */
const RUNS: { label: string; example: string; imports?: Record<string, string> }[] = [
  { label: 'Apollo Client 4', example: 'apollo' },
  { label: 'Apollo Client 3', example: 'apollo', imports: { '@apollo/client': 'apollo-client-3/core/index.js' } },
  { label: 'urql', example: 'urql' },
  { label: 'graphql-request', example: 'graphql-request' },
  { label: 'fetch, paced', example: 'fetch' },
];

/** Lines that differ: the words must match, each number may move by one. */
function differences(shown: string[], printed: string[]): string[] {
  const found: string[] = [];
  const NUMBER = /\d+(?:\.\d+)?/g;
  for (let i = 0; i < Math.max(shown.length, printed.length); i++) {
    const [want, got] = [shown[i] ?? '(nothing)', printed[i] ?? '(nothing)'];
    const wantNumbers = (want.match(NUMBER) ?? []).map(Number);
    const gotNumbers = (got.match(NUMBER) ?? []).map(Number);
    const sameWords = want.replace(NUMBER, '#') === got.replace(NUMBER, '#');
    const closeNumbers = wantNumbers.every((number, j) => Math.abs(number - (gotNumbers[j] ?? Number.NaN)) <= 1);
    if (!sameWords || !closeNumbers) found.push(`line ${i + 1}: shown "${want}", printed "${got}"`);
  }
  return found;
}

const servers: BookstoreServer[] = [];
mkdirSync(SCRATCH, { recursive: true });
afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop()));
  rmSync(SCRATCH, { recursive: true, force: true });
});

describe.concurrent('the snippets of docs/clients.md, against the example bookstore', () => {
  it.each(RUNS)('$label prints what the page shows', async ({ label, example, imports = {} }) => {
    const server = await createBookstoreServer({ store: new MemoryBucketStore(), port: 0, host: '127.0.0.1' });
    servers.push(server);
    const printed: string[] = [];
    const sink = `__clientsDoc${RUNS.findIndex((run) => run.label === label)}`;
    (globalThis as Record<string, unknown>)[sink] = (...parts: unknown[]) => printed.push(parts.join(' '));

    let code = marked('client-example', example)
      .replaceAll("'graphql-budget/client'", `'${relative(SCRATCH, join(ROOT, 'src/client/index.js'))}'`)
      .replaceAll('http://localhost:4000/', server.url)
      .replaceAll('console.log(', `(globalThis as unknown as Record<string, (...parts: unknown[]) => void>).${sink}(`);
    for (const [from, to] of Object.entries(imports)) code = code.replaceAll(`'${from}'`, `'${to}'`);
    expect(code).toContain(server.url);
    const file = join(SCRATCH, `${example}-${label.replace(/\W+/g, '-')}.ts`);
    writeFileSync(file, `${code}\nexport {};\n`);

    await import(pathToFileURL(file).href);

    const shown = marked('output', example).trimEnd().split('\n');
    expect(differences(shown, printed), printed.join('\n')).toEqual([]);
  });
});
