import { buildSchema, parse } from 'graphql';
import { afterAll, describe, expect, it } from 'vitest';
import { pluginPrice } from '../../src/cli/plugin-price.js';
import { costDirectivesTypeDefs } from '../../src/cost/directives.js';
import { cli, fixtureDir } from './run-cli.js';

// `graphql-budget price` run in this process on files in a temporary directory.

const schemaSdl = `
type Query {
  books(first: Int = 10): [Book!]! @listSize(slicingArguments: ["first"])
  book(id: ID!): Book
  shelves: [Shelf!]!
}
type Book {
  title: String!
  similar(first: Int = 3): [Book!]! @cost(weight: "5") @listSize(slicingArguments: ["first"])
}
type Shelf { name: String! }
`;
const fixture = fixtureDir({
  'schema.graphql': schemaSdl,
  'ops/books.graphql': `
query TwoBooks { books(first: 2) { ...Card similar(first: 2) { title } } }
query Shelves { shelves { name } }
`,
  'ops/card.graphql': 'fragment Card on Book { title }\n',
  'ops/nested/one.graphql': 'query OneBook($id: ID!) { book(id: $id) { title } }\n',
  'vars.json': '{ "id": "1" }',
  'anonymous.graphql': '{ books { title } }\n',
});
afterAll(() => fixture.remove());
const { dir } = fixture;
const price = (...args: string[]) => cli(['price', ...args], dir);

describe('price: a table for people', () => {
  it('has one row per operation, most expensive first, then the options it priced with', () => {
    const run = price('--schema', 'schema.graphql', '--variables', 'vars.json', 'ops');
    expect(run).toEqual({
      code: 0,
      err: '',
      out: [
        'file                    operation  typeCost  fieldCost  cost',
        'ops/books.graphql       TwoBooks          7         11    18',
        'ops/books.graphql       Shelves          11          1    12',
        'ops/nested/one.graphql  OneBook           2          1     3',
        '',
        '3 operations priced against schema.graphql (costModel ibm, defaultListSize 10, maxListSize 10000).',
        '',
      ].join('\n'),
    });
  });

  it('lists the fields that add the most under each operation with --top', () => {
    const run = price('-s', 'schema.graphql', '--top', '2', 'ops/books.graphql', 'ops/card.graphql');
    expect(run.out.split('\n').slice(0, 7)).toEqual([
      'file               operation  typeCost  fieldCost  cost',
      'ops/books.graphql  TwoBooks          7         11    18',
      '    14  books.similar  2 × (typeCost 2 + fieldCost 5)',
      '     3  books          1 × (typeCost 2 + fieldCost 1)',
      'ops/books.graphql  Shelves          11          1    12',
      '    11  shelves  1 × (typeCost 10 + fieldCost 1)',
      '',
    ]);
  });

  it('names an anonymous operation, and reads globs', () => {
    const run = price('--schema', 'sch*.graphql', 'anon*.graphql');
    expect(run.out).toContain('anonymous.graphql  (anonymous)        11          1    12');
  });
});

describe('price --json', () => {
  it('prints [{ file, operation, typeCost, fieldCost, cost }] and nothing else on standard output', () => {
    const run = price('--json', '-s', 'schema.graphql', '--variables', 'vars.json', 'ops', 'anonymous.graphql');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.out)).toEqual([
      { file: 'ops/books.graphql', operation: 'TwoBooks', typeCost: 7, fieldCost: 11, cost: 18 },
      { file: 'anonymous.graphql', operation: null, typeCost: 11, fieldCost: 1, cost: 12 },
      { file: 'ops/books.graphql', operation: 'Shelves', typeCost: 11, fieldCost: 1, cost: 12 },
      { file: 'ops/nested/one.graphql', operation: 'OneBook', typeCost: 2, fieldCost: 1, cost: 3 },
    ]);
  });

  it('adds the top fields with --top, and writes --max-cost findings to standard error', () => {
    const run = price(
      '--json',
      '--top',
      '1',
      '--max-cost',
      '15',
      '-s',
      'schema.graphql',
      'ops/books.graphql',
      'ops/card.graphql',
    );
    expect(run.code).toBe(1);
    const [first] = JSON.parse(run.out) as { fields: unknown[] }[];
    expect(first?.fields).toEqual([{ path: 'books.similar', typeCost: 2, fieldCost: 5, multiplier: 2, cost: 14 }]);
    expect(run.err).toBe('over --max-cost 15: ops/books.graphql TwoBooks costs 18\n');
  });
});

describe('price: the options are the plugin options of the same names', () => {
  const schema = buildSchema(costDirectivesTypeDefs + schemaSdl);
  const query =
    'query TwoBooks { books(first: 2) { ...Card similar(first: 2) { title } } } fragment Card on Book { title }';
  const expected = (options: Parameters<typeof pluginPrice>[2]) => {
    const { typeCost, fieldCost, cost } = pluginPrice(schema, undefined, options, {
      document: parse(query),
      operationName: 'TwoBooks',
    });
    return { typeCost, fieldCost, cost };
  };
  const priced = (...args: string[]) => {
    const rows = JSON.parse(
      price('--json', '-s', 'schema.graphql', 'ops/books.graphql', 'ops/card.graphql', ...args).out,
    );
    const { typeCost, fieldCost, cost } = rows.find((row: { operation: string }) => row.operation === 'TwoBooks');
    return { typeCost, fieldCost, cost };
  };

  it('--model, --default-list-size', () => {
    expect(priced('--model', 'apollo')).toEqual(expected({ costModel: 'apollo' }));
    expect(priced('--model', 'apollo')).not.toEqual(expected({}));
    // Two connections-to-be (books, and similar per book): 1 + 2 requests, 1 point.
    expect(priced('--model', 'github')).toEqual({ typeCost: 0, fieldCost: 1, cost: 1 });
    expect(priced('--model', 'github')).toEqual(expected({ costModel: 'github' }));
    const shelves = (...args: string[]) =>
      (
        JSON.parse(price('--json', '-s', 'schema.graphql', 'ops/books.graphql', 'ops/card.graphql', ...args).out) as {
          operation: string;
          cost: number;
        }[]
      ).find((row) => row.operation === 'Shelves')?.cost;
    expect(shelves('--default-list-size', '40')).toBe(1 + 40 + 1);
    expect(shelves('--default-list-size', 'Infinity')).toBeNull(); // JSON has no Infinity
  });

  it('--max-list-size: the size a client may ask for', () => {
    const big = fixtureDir({ 'schema.graphql': schemaSdl, 'big.graphql': '{ books(first: 20000) { title } }' });
    try {
      const refused = cli(['price', '-s', 'schema.graphql', 'big.graphql'], big.dir);
      expect(refused.code).toBe(2);
      expect(refused.err).toBe(
        'big.graphql:1:3: Query.books was asked for 20000 items through its slicing argument first; a list size must be between 0 and 10000 (maxListSize).\n',
      );
      const allowed = cli(
        ['price', '--json', '--max-list-size', '20000', '-s', 'schema.graphql', 'big.graphql'],
        big.dir,
      );
      expect(JSON.parse(allowed.out)[0].cost).toBe(1 + 20_000 + 1);
    } finally {
      big.remove();
    }
  });
});

describe('price: exit codes', () => {
  it('exits 1 naming every operation over --max-cost', () => {
    const run = price('-s', 'schema.graphql', '--max-cost', '10', 'ops/books.graphql', 'ops/card.graphql');
    expect(run.code).toBe(1);
    expect(run.out).toContain(
      'over --max-cost 10: ops/books.graphql TwoBooks costs 18\nover --max-cost 10: ops/books.graphql Shelves costs 12\n',
    );
    expect(price('-s', 'schema.graphql', '--max-cost', '18', 'ops/books.graphql', 'ops/card.graphql').code).toBe(0);
  });

  it('exits 2 when an operation cannot be priced, and still reports the others', () => {
    const run = price('-s', 'schema.graphql', 'ops');
    expect(run.code).toBe(2);
    expect(run.out).toContain('ops/books.graphql  TwoBooks');
    expect(run.err).toBe(
      'ops/nested/one.graphql:1:15: Variable "$id" of required type "ID!" was not provided. Give the values with --variables <file>.\n',
    );
  });
});

describe('price: bad input is one line naming the file, the line and the field', () => {
  const bad = fixtureDir({
    'schema.graphql': schemaSdl,
    'no-build.graphql': 'type Query {\n  books: [Book]\n  title: String @auth\n}\n',
    'bad-cost.graphql': 'type Query {\n  books(first: Int): [String] @listSize(slicingArguments: ["frist"])\n}\n',
    'no-query.graphql': 'type Book { title: String }\n',
    'syntax.graphql': 'type Query {\n  books: [String\n}\n',
    'typo.graphql': 'query Typo {\n  books { titel }\n}\n',
    'unclosed.graphql': '{ books { title }\n',
    'types.graphql': 'type Extra { a: Int }\n',
    'manifest.json':
      '{ "format": "apollo-persisted-query-manifest", "version": 1, "operations": [{ "id": "1", "name": "Shelf", "type": "query", "body": "query Shelf { shelves { size } }" }] }',
    'not-manifest.json': '{ "operations": [] }',
    'broken.json': '{ "id": 1,\n  "x": }',
    'list.json': '[1]',
  });
  afterAll(() => bad.remove());
  const run = (...args: string[]) => cli(['price', ...args], bad.dir);
  const ok = 'schema.graphql';

  it.each([
    [
      ['-s', 'no-build.graphql', 'typo.graphql'],
      'no-build.graphql:2:11: Unknown type "Book".\nno-build.graphql:3:17: Unknown directive "@auth".\n',
    ],
    [
      ['-s', 'bad-cost.graphql', 'typo.graphql'],
      'bad-cost.graphql:2:3: Query.books: @listSize slicing argument "frist" is not an argument of Query.books.\n',
    ],
    [['-s', 'no-query.graphql', 'typo.graphql'], 'no-query.graphql: Query root type must be provided.\n'],
    [['-s', 'syntax.graphql', 'typo.graphql'], 'syntax.graphql:3:1: Syntax Error: Expected "]", found "}".\n'],
    [
      ['-s', ok, 'typo.graphql'],
      'typo.graphql:2:11: Cannot query field "titel" on type "Book". Did you mean "title"?\n',
    ],
    [['-s', ok, 'unclosed.graphql'], 'unclosed.graphql:2:1: Syntax Error: Expected Name, found <EOF>.\n'],
    [
      ['-s', ok, 'types.graphql'],
      'types.graphql:1:1: types.graphql holds schema definitions, not operations; give schema files to --schema.\n',
    ],
    [['-s', ok, 'manifest.json'], 'manifest.json#Shelf:1:25: Cannot query field "size" on type "Shelf".\n'],
    [
      ['-s', ok, 'not-manifest.json'],
      'not-manifest.json: not an Apollo persisted query manifest (its "format" must be "apollo-persisted-query-manifest").\n',
    ],
    [
      ['-s', ok, '--variables', 'broken.json', 'typo.graphql'],
      expect.stringMatching(/^broken\.json(:2:8)?: not valid JSON \(Unexpected token '?\}'?\)\.\n$/),
    ],
    [
      ['-s', ok, '--variables', 'list.json', 'typo.graphql'],
      'list.json: --variables must be a JSON object of variable values.\n',
    ],
    [['-s', ok, '--variables', 'missing.json', 'typo.graphql'], 'missing.json: cannot be read (ENOENT).\n'],
    [['-s', 'missing.graphql', 'typo.graphql'], 'missing.graphql: no such file or directory (schema).\n'],
    [['-s', ok, 'ops/*.graphql'], 'ops/*.graphql: matches no file (operations).\n'],
    [
      ['-s', 'broken.json', 'typo.graphql'],
      expect.stringMatching(/^broken\.json(:2:8)?: not valid JSON \(Unexpected token '?\}'?\)\.\n$/),
    ],
    [
      ['-s', 'list.json', 'typo.graphql'],
      'list.json: not an introspection result (no "__schema", nor "data.__schema").\n',
    ],
    [
      ['-s', ok, '-s', 'list.json', 'typo.graphql'],
      expect.stringMatching(/^schema\.graphql, list\.json: an introspection result \(list\.json\) is a whole schema/),
    ],
  ])('%j', (args, message) => {
    const result = run(...(args as string[]));
    expect(result.code).toBe(2);
    expect(result.err).toEqual(message);
    expect(result.err).not.toMatch(/\n\s+at /);
  });

  it.each([
    [[], 'graphql-budget: price needs --schema <path or glob> (see graphql-budget price --help).\n'],
    [
      ['-s', ok],
      'graphql-budget: price needs operations: .graphql files, directories, globs or a persisted query manifest (see graphql-budget price --help).\n',
    ],
    [['-s', ok, '--bogus', 'x'], "graphql-budget: Unknown option '--bogus' (see graphql-budget price --help).\n"],
    [
      ['-s', ok, '--top', '0', 'x'],
      'graphql-budget: --top must be an integer ≥ 1; got "0" (see graphql-budget price --help).\n',
    ],
    [
      ['-s', ok, '--max-cost', 'lots', 'x'],
      'graphql-budget: --max-cost must be a number ≥ 0; got "lots" (see graphql-budget price --help).\n',
    ],
    [
      ['-s', ok, '--default-list-size=-1', 'x'],
      'graphql-budget: --default-list-size must be a number ≥ 0 (or Infinity); got "-1" (see graphql-budget price --help).\n',
    ],
    [
      ['-s', ok, '--max-list-size', '-1', 'x'],
      expect.stringMatching(
        /^graphql-budget: Option '--max-list-size' argument is ambiguous\. [^\n]*\(see graphql-budget price --help\)\.\n$/,
      ),
    ],
    [
      ['-s', ok, '--model', 'router', 'x'],
      'graphql-budget: --model must be ibm, apollo or github; got "router" (see graphql-budget price --help).\n',
    ],
    [
      ['-s', ok, '--infer-list-sizes', 'graphql', 'x'],
      'graphql-budget: --infer-list-sizes must be relay; got "graphql" (see graphql-budget price --help).\n',
    ],
    [['-s'], "graphql-budget: Option '-s, --schema <value>' argument missing (see graphql-budget price --help).\n"],
  ])('usage: %j', (args, message) => {
    expect(run(...(args as string[]))).toEqual({ code: 2, out: '', err: message });
  });
});

describe('graphql-budget', () => {
  it('prints its help, per command, and its version', () => {
    expect(cli(['--help'], dir)).toMatchObject({
      code: 0,
      out: expect.stringMatching(/^Usage: graphql-budget <command>/),
    });
    expect(cli(['price', '--help'], dir)).toMatchObject({
      code: 0,
      out: expect.stringMatching(/^Usage: graphql-budget price/),
    });
    expect(cli(['help', 'lint'], dir)).toMatchObject({
      code: 0,
      out: expect.stringMatching(/^Usage: graphql-budget lint/),
    });
    expect(cli(['annotate', '--help'], dir)).toMatchObject({
      code: 0,
      out: expect.stringMatching(/^Usage: graphql-budget annotate/),
    });
    expect(cli(['--version'], dir)).toMatchObject({ code: 0, out: expect.stringMatching(/^\d+\.\d+\.\d+\n$/) });
    expect(cli([], dir)).toMatchObject({
      code: 2,
      out: '',
      err: expect.stringMatching(/^Usage: graphql-budget <command>/),
    });
    expect(cli(['frob'], dir)).toEqual({
      code: 2,
      out: '',
      err: 'graphql-budget: unknown command "frob": use price, lint or annotate (see graphql-budget --help).\n',
    });
  });
});
