import { afterAll, describe, expect, it } from 'vitest';
import { cli, fixtureDir } from './run-cli.js';

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
  it('prints each finding at the file, line and column of its coordinate, as a warning', () => {
    expect(lint('--schema', 'schema')).toEqual({
      code: 0,
      err: '',
      out: [
        'schema/query.graphql:3:3: warning: Query.shelves: a list that no @listSize sizes, so it is priced at defaultListSize (10) items before it runs, whatever it returns (a longer list is charged for the excess after it ran, but maxCost and the budget check only see the estimate). Give it @listSize(assumedSize: …) or a slicing argument. (list-without-list-size)',
        "schema/types.graphql:2:13: warning: Book.title: @cost weight -1 is negative: it lowers the price of work the server still does (down to 0 for its own field or object, never below: it cannot lower a sibling's). Use 0 unless the discount is deliberate. (negative-weight)",
        '',
        '2 findings in schema/query.graphql, schema/types.graphql.',
        '',
      ].join('\n'),
    });
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
