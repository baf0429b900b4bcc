import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, fixtureDir } from './run-cli.js';

const readRelay = (dir: string) => readFileSync(join(dir, 'relay.graphql'), 'utf8');

// `graphql-budget lint` run in this process on files in a temporary directory.

const fixture = fixtureDir({
  'schema/query.graphql': [
    'type Query {',
    '  "Every shelf."',
    '  shelves: [Shelf!]!',
    '  books(first: Int = 10): [Book!]! @listSize(slicingArguments: ["first"])',
    '}',
    '',
  ].join('\n'),
  'schema/types.graphql': 'type Shelf { name: String! }\ntype Book { title: String! @cost(weight: "-1") }\n',
  'clean.graphql':
    'type Query { books(first: Int = 10): [String!]! @cost(weight: "1") @listSize(slicingArguments: ["first"]) }\n',
  'bad-cost.graphql': 'type Query {\n  books(first: Int): [String] @listSize(sizedFields: ["x"])\n}\n',
});
afterAll(() => fixture.remove());
const lint = (...args: string[]) => cli(['lint', ...args], fixture.dir);

describe('lint', () => {
  it('prints one line per rule, with its count and coordinates at their place, then what fixes the most', () => {
    expect(lint('--schema', 'schema')).toEqual({
      code: 0,
      err: '',
      out: [
        'warning list-without-list-size ×1: lists that no @listSize sizes, each priced at defaultListSize (10) items whatever it returns: Query.shelves (schema/query.graphql:3:3).',
        'warning negative-weight ×1: negative @cost weights, which lower the price of work that still happens: Book.title (schema/types.graphql:2:13).',
        '',
        '2 findings in schema/query.graphql, schema/types.graphql; --verbose or --json lists each with its message.',
        'Fixes the most (1 of 2 warnings): a @listSize(assumedSize: …) or a slicing argument on each list no @listSize sizes.',
        '',
      ].join('\n'),
    });
  });

  it('names the first three coordinates of a rule, and counts the others', () => {
    const many = fixtureDir({
      'many.graphql': `type Query { ${['a', 'b', 'c', 'd', 'e'].map((name) => `${name}: [Shelf]`).join(' ')} }\ntype Shelf { n: Int }\n`,
    });
    try {
      expect(cli(['lint', '-s', 'many.graphql'], many.dir).out.split('\n')[0]).toBe(
        'warning list-without-list-size ×5: lists that no @listSize sizes, each priced at defaultListSize (10) items whatever it returns: Query.a (many.graphql:1:14), Query.b (many.graphql:1:25), Query.c (many.graphql:1:36) and 2 more.',
      );
    } finally {
      many.remove();
    }
  });

  it('prints each finding at the file, line and column of its coordinate with --verbose', () => {
    expect(lint('--schema', 'schema', '--verbose')).toEqual({
      code: 0,
      err: '',
      out: [
        'schema/query.graphql:3:3: warning: Query.shelves: a list that no @listSize sizes, so it is priced at defaultListSize (10) items before it runs, whatever it returns (a longer list is charged for the excess after it ran, but maxCost and the budget check only see the estimate). Give it @listSize(assumedSize: …) or a slicing argument. (list-without-list-size)',
        "schema/types.graphql:2:13: warning: Book.title: @cost weight -1 is negative: it lowers the price of work the server still does (down to 0 for its own field or object, never below: it cannot lower a sibling's). Use 0 unless the discount is deliberate. (negative-weight)",
        '',
        '2 findings in schema/query.graphql, schema/types.graphql.',
        'Fixes the most (1 of 2 warnings): a @listSize(assumedSize: …) or a slicing argument on each list no @listSize sizes.',
        '',
      ].join('\n'),
    });
  });

  it('--infer-list-sizes relay: reports the inferred connections as information, and recommends itself when it fixes most', () => {
    const relay = fixtureDir({
      'relay.graphql': [
        'type Query { issues(first: Int, last: Int): IssueConnection tags: [Tag] }',
        'type IssueConnection { edges: [IssueEdge] nodes: [Issue] pageInfo: PageInfo! }',
        'type IssueEdge { node: Issue }',
        'type Issue { title: String }',
        'type Tag { name: String }',
        'type PageInfo { hasNextPage: Boolean! }',
        '',
      ].join('\n'),
    });
    try {
      const plain = cli(['lint', '-s', 'relay.graphql', '--strict'], relay.dir);
      expect(plain.code).toBe(1);
      expect(plain.out.split('\n').at(-2)).toBe(
        "Fixes the most (2 of 3 warnings): --infer-list-sizes relay (the plugin's inferListSizes: 'relay'), which prices each Relay connection by its first or last; graphql-budget annotate --infer-list-sizes relay writes the same @listSize into the SDL.",
      );
      const inferred = cli(['lint', '-s', 'relay.graphql', '--infer-list-sizes', 'relay'], relay.dir);
      expect(inferred.out.split('\n')).toEqual([
        'warning list-without-list-size ×1: lists that no @listSize sizes, each priced at defaultListSize (10) items whatever it returns: Query.tags (relay.graphql:1:61).',
        'info inferred-list-size ×1: Relay connections priced by first and last (--infer-list-sizes relay): Query.issues (relay.graphql:1:14).',
        '',
        '2 findings (1 warning) in relay.graphql; --verbose or --json lists each with its message.',
        'Fixes the most (1 of 1 warning): a @listSize(assumedSize: …) or a slicing argument on each list no @listSize sizes.',
        '',
      ]);
      // Information is no warning: --strict passes once only information is left.
      const clean = fixtureDir({ 'relay.graphql': readRelay(relay.dir).replace(' tags: [Tag]', '') });
      try {
        expect(cli(['lint', '-s', 'relay.graphql', '--infer-list-sizes', 'relay', '--strict'], clean.dir).code).toBe(0);
        expect(cli(['lint', '-s', 'relay.graphql', '--strict'], clean.dir).code).toBe(1);
      } finally {
        clean.remove();
      }
      expect(cli(['lint', '-s', 'relay.graphql', '--infer-list-sizes', 'apollo'], relay.dir)).toMatchObject({
        code: 2,
        err: 'graphql-budget: --infer-list-sizes must be relay; got "apollo" (see graphql-budget lint --help).\n',
      });
    } finally {
      relay.remove();
    }
  });

  it('exits 1 with --strict when there is a finding, and 0 without one', () => {
    expect(lint('--strict', '-s', 'schema').code).toBe(1);
    expect(lint('--strict', '-s', 'clean.graphql')).toEqual({
      code: 0,
      err: '',
      out: '0 findings in clean.graphql.\n',
    });
  });

  it('--json prints the findings with their places, and nothing else', () => {
    const run = lint('--json', '-s', 'schema/*.graphql', '--default-list-size', '25', '--max-list-size', 'Infinity');
    expect(JSON.parse(run.out)).toEqual([
      expect.objectContaining({
        rule: 'list-without-list-size',
        severity: 'warning',
        coordinate: 'Query.shelves',
        file: 'schema/query.graphql',
        line: 3,
        column: 3,
        message: expect.stringContaining('defaultListSize (25)'),
      }),
      expect.objectContaining({
        rule: 'unbounded-slicing-argument',
        coordinate: 'Query.books(first:)',
        line: 4,
        column: 9,
      }),
      expect.objectContaining({
        rule: 'negative-weight',
        coordinate: 'Book.title',
        file: 'schema/types.graphql',
        line: 2,
      }),
    ]);
    expect(run.err).toBe('');
  });

  it('refuses cost directives the plugin would refuse, at their place', () => {
    expect(lint('-s', 'bad-cost.graphql')).toEqual({
      code: 2,
      out: '',
      err: 'bad-cost.graphql:2:3: Query.books: @listSize(sizedFields:) needs an object or interface return type, not String.\n',
    });
  });

  it('refuses what it cannot use', () => {
    expect(lint()).toMatchObject({
      code: 2,
      err: 'graphql-budget: lint needs --schema <path or glob> (see graphql-budget lint --help).\n',
    });
    expect(lint('-s', 'schema', 'ops.graphql')).toMatchObject({
      code: 2,
      err: expect.stringMatching(/^graphql-budget: lint takes no operations/),
    });
    expect(lint('-s', 'schema', '--top', '1')).toMatchObject({
      code: 2,
      err: expect.stringMatching(/Unknown option '--top'/),
    });
    expect(lint('--help')).toMatchObject({ code: 0, out: expect.stringMatching(/^Usage: graphql-budget lint/) });
  });
});
