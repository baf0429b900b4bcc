import { afterAll, describe, expect, it } from 'vitest';
import { cli, fixtureDir } from './run-cli.js';

// Input built to break the command: it answers with one line naming the file and the place where
// the nesting is deepest (the innermost bracket), never a stack trace or "internal error", and
// still does the rest of its work.

const DEPTH = 20_000;
const deepSelections = `query Deep ${'{ shelf '.repeat(DEPTH)}{ name }${' }'.repeat(DEPTH)}\n`;
const deepValue = `${'['.repeat(DEPTH)}1${']'.repeat(DEPTH)}`;

const fixture = fixtureDir({
  'schema.graphql':
    'type Query { shelf: Shelf, shelves(ids: [Int]): [Shelf!]! }\ntype Shelf { name: String!, shelf: Shelf }\n',
  'deep.graphql': deepSelections,
  'deep-value.graphql': `query DeepValue {\n  shelves(ids: ${deepValue}) { name }\n}\n`,
  'ok.graphql': 'query Ok { shelf { name } }\n',
  'manifest.json': JSON.stringify({
    format: 'apollo-persisted-query-manifest',
    version: 1,
    operations: [{ id: '1', name: 'Deep', type: 'query', body: deepSelections }],
  }),
  'deep-schema.graphql': `type Query { a(x: Int = ${deepValue}): Int }\n`,
});
afterAll(() => fixture.remove());
const run = (...args: string[]) => cli(args, fixture.dir);

describe('a file nested 20,000 deep', () => {
  it('is one line naming the file, and the other files are still priced', () => {
    const result = run('price', '-s', 'schema.graphql', 'deep.graphql', 'ok.graphql');
    expect(result.code).toBe(2);
    expect(result.err).toBe('deep.graphql:1:160012: nested 20001 levels deep, too deep to parse.\n');
    expect(result.out).toMatch(/^ok\.graphql\s+Ok\s+2\s+1\s+3$/m);
    expect(result.out).toMatch(/^1 operation priced against schema\.graphql/m);
  });

  it('names the line of a deep value', () => {
    const result = run('price', '-s', 'schema.graphql', 'ok.graphql', 'deep-value.graphql', '--json');
    expect(result.code).toBe(2);
    expect(result.err).toBe('deep-value.graphql:2:20015: nested 20002 levels deep, too deep to parse.\n');
    expect(JSON.parse(result.out)).toEqual([
      { file: 'ok.graphql', operation: 'Ok', typeCost: 2, fieldCost: 1, cost: 3 },
    ]);
  });

  it('in a persisted query manifest entry is one line naming the entry', () => {
    const result = run('price', '-s', 'schema.graphql', 'manifest.json', 'ok.graphql');
    expect(result.code).toBe(2);
    expect(result.err).toBe('manifest.json#Deep:1:160012: nested 20001 levels deep, too deep to parse.\n');
    expect(result.out).toMatch(/^ok\.graphql\s+Ok/m);
  });

  it('as the schema, to price or to lint, is one line naming it', () => {
    const message = 'deep-schema.graphql:1:20024: nested 20002 levels deep, too deep to parse.\n';
    expect(run('price', '-s', 'deep-schema.graphql', 'ok.graphql')).toEqual({ code: 2, out: '', err: message });
    expect(run('lint', '-s', 'deep-schema.graphql')).toEqual({ code: 2, out: '', err: message });
  });
});

describe('numeric options are finite numbers (or the word Infinity where that means no bound)', () => {
  it.each([
    ['price', '--default-list-size', '1e400', 'a number ≥ 0 (or Infinity)'],
    ['price', '--max-list-size', '1e400', 'a number ≥ 0 (or Infinity)'],
    ['price', '--max-cost', '1e400', 'a number ≥ 0'],
    ['price', '--top', '1e400', 'an integer ≥ 1'],
    ['lint', '--default-list-size', '2e308', 'a number ≥ 0 (or Infinity)'],
    ['lint', '--max-list-size', '1e999', 'a number ≥ 0 (or Infinity)'],
  ])('%s %s %s is a usage error', (command, option, value, rule) => {
    const operations = command === 'price' ? ['ok.graphql'] : [];
    expect(run(command, '-s', 'schema.graphql', option, value, ...operations)).toEqual({
      code: 2,
      out: '',
      err: `graphql-budget: ${option} must be ${rule}; got "${value}", beyond the largest number (see graphql-budget ${command} --help).\n`,
    });
  });

  it('takes Infinity where it means no bound, and refuses it elsewhere', () => {
    expect(run('price', '-s', 'schema.graphql', '--max-list-size', 'Infinity', 'ok.graphql').code).toBe(0);
    expect(run('price', '-s', 'schema.graphql', '--max-cost', 'Infinity', 'ok.graphql')).toEqual({
      code: 2,
      out: '',
      err: 'graphql-budget: --max-cost must be a number ≥ 0; got "Infinity" (see graphql-budget price --help).\n',
    });
  });
});
