import { buildSchema } from 'graphql';
import type { GraphQLObjectType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { CostSchemaError } from '../../src/cost/errors.js';
import { sizedFieldTree } from '../../src/cost/sized-fields.js';
import { costSchema } from './support.js';

// `@listSize(sizedFields:)` entries as field names or paths in selection syntax (Apollo Router's
// demand control, 2.12). The schemas are built inside each test: the entries are read when the
// analyzer is created.

const types = `
  type Deep { page: [Item], items: [Item], results: Results, total: Int }
  type Results { page: [Item], recent: [Item] }
  type Item { id: ID }
`;

/** The schema with `sizedFields: [<sizedFields>]` on `Query.deep(first:)`. */
function deepSchema(sizedFields: string) {
  return costSchema(`
    type Query { deep(first: Int): Deep @listSize(slicingArguments: ["first"], sizedFields: [${sizedFields}]) }
    ${types}
  `);
}

function problemsOf(sizedFields: string): readonly string[] {
  try {
    deepSchema(sizedFields);
  } catch (error) {
    if (error instanceof CostSchemaError) return error.problems;
    throw error;
  }
  return [];
}

/** The one problem, checked to name the field's coordinate and the entry as written. */
function problemFor(sizedFields: string, entry: string): string {
  const problems = problemsOf(sizedFields);
  expect(problems).toHaveLength(1);
  expect(problems[0]).toMatch(/^Query\.deep: /);
  expect(problems[0]).toContain(`"${entry}"`);
  return problems[0] as string;
}

describe('entries that are not plain field names or paths', () => {
  it('rejects an entry that does not parse', () => {
    problemFor('"results { page"', 'results { page');
  });

  it('rejects text after the selection, even when each part names a list', () => {
    // Parsed inside `{…}`, this is two operations: `{page }` and `{ page}`.
    problemFor('"page } { page"', 'page } { page');
  });

  it('rejects an alias, an argument or a directive, at any depth', () => {
    problemFor('"all: page"', 'all: page');
    problemFor('"page @include(if: true)"', 'page @include(if: true)');
    problemFor('"results { first: page }"', 'results { first: page }');
  });

  it('rejects a fragment beside a field', () => {
    problemFor('"page ... on Deep { items }"', 'page ... on Deep { items }');
  });

  it('names a plain name once, without the spaces around it', () => {
    const problem = problemFor('" nope "', 'nope');
    expect(problem).not.toContain('" nope "');
  });

  it('leaves an error other than a syntax error to propagate', () => {
    // Nested far deeper than the call stack: the parser overflows it.
    const depth = 100_000;
    const entry = `${'results { '.repeat(depth)}page${' }'.repeat(depth)}`;
    expect(() => problemsOf(`"${entry}"`)).toThrow(RangeError);
  });
});

describe('paths that are accepted', () => {
  it('ends one path at this level and another further down', () => {
    const { expectCost } = deepSchema('"results { page } items"');
    // Query 1 + Deep 1 + 3 items + Results 1 + 3 pages; calls: deep, items, results, page.
    expectCost('{ deep(first: 3) { items { id } results { page { id } } } }').toEqual({
      typeCost: 1 + 1 + 3 + 1 + 3,
      fieldCost: 4,
    });
  });

  it('sizes both lists of two paths through the same field', () => {
    const { expectCost } = deepSchema('"results { page }", "results { recent }"');
    // Query 1 + Deep 1 + Results 1 + 3 pages + 3 recent; calls: deep, results, page, recent.
    expectCost('{ deep(first: 3) { results { page { id } recent { id } } } }').toEqual({
      typeCost: 1 + 1 + 1 + 3 + 3,
      fieldCost: 4,
    });
  });

  it('descends through a field returning an interface', () => {
    const { expectCost } = costSchema(`
      type Query { feed(first: Int): Feed @listSize(slicingArguments: ["first"], sizedFields: ["latest { entries }"]) }
      type Feed { latest: Stream }
      interface Stream { entries: [Item] }
      type Daily implements Stream { entries: [Item] }
      type Item { id: ID }
    `);
    // Query 1 + Feed 1 + Daily 1 + 2 Items; calls: feed, latest, entries.
    expectCost('{ feed(first: 2) { latest { entries { id } } } }').toEqual({ typeCost: 1 + 1 + 1 + 2, fieldCost: 3 });
  });
});

describe('sizedFieldTree', () => {
  const schema = buildSchema(types);
  const deep = schema.getType('Deep') as GraphQLObjectType;

  it('returns the lists sized at each level', () => {
    const tree = sizedFieldTree(deep, ['items', 'results { page }'], 'Query.deep', []);
    expect(tree?.sized).toEqual(new Set(['items']));
    expect(tree?.below.get('results')?.sized).toEqual(new Set(['page']));
  });

  it('returns no tree when any entry has a problem, and pushes the problem', () => {
    const problems: string[] = [];
    expect(sizedFieldTree(deep, ['items', 'total'], 'Query.deep', problems)).toBeUndefined();
    expect(problems).toEqual([expect.stringMatching(/^Query\.deep: .*"total"/)]);
  });
});
