import { buildSchema, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { createCostAnalyzer, estimateCost } from '../../src/cost/analyzer.js';
import { CostErrorCode } from '../../src/cost/errors.js';
import { librarySdl } from './apollo-library.js';
import { costSchema, rejection } from './support.js';

// costModel: 'apollo' prices as Apollo Router's demand control does. Every number below is worked
// out by hand from the router's rules (a field costs count × (weight + its selection) + the
// arguments written; the weight is the field's own @cost, else its type's, else 1 for a composite
// and 0 for a leaf; the root weighs 0; a mutation costs 10 more), next to what 'ibm' would say
// where it helps to see the difference. typeCost holds the types' weights, fieldCost the fields'
// own @cost weights, the arguments and the mutation's 10.

const apollo = costSchema(librarySdl, { costModel: 'apollo' });
const ibm = costSchema(librarySdl);
const { expectCost, estimate } = apollo;

describe("costModel 'apollo': weights", () => {
  it('the root weighs 0, and a field returning an object has only its type weight', () => {
    // book 1 × (Book 1 + title 0 + author 1 × (Author 1 + name 0)) = 2. IBM: Query 1 + Book 1 +
    // Author 1 (typeCost 3) and the book and author calls 1 each (fieldCost 2) = 5.
    expectCost('{ book { title author { name } } }').toEqual({ typeCost: 2, fieldCost: 0 });
    expect(ibm.estimate('{ book { title author { name } } }')).toEqual({ typeCost: 3, fieldCost: 2 });
  });

  it('a list of unweighted scalars costs nothing; a weighted scalar type costs per value', () => {
    // tags: 10 × String 0 = 0. prices: 4 (assumedSize) × Money 3 = 12.
    expectCost('{ tags }').toEqual({ typeCost: 0, fieldCost: 0 });
    expectCost('{ prices }').toEqual({ typeCost: 12, fieldCost: 0 });
  });

  it("a field's own @cost replaces its type's weight and goes to fieldCost", () => {
    // costly: own @cost 10 × 1. discounted-free case: addBook below.
    expectCost('{ costly }').toEqual({ typeCost: 0, fieldCost: 10 });
  });

  it('a mutation costs 10 more', () => {
    // 10 + addBook 1 × (own 10 + title 0) + the title argument (a String, 0) = 20; Book's weight 1
    // is replaced by addBook's own @cost.
    expectCost('mutation { addBook(title: "x") { title } }').toEqual({ typeCost: 0, fieldCost: 20 });
  });

  it('a nested list is one list', () => {
    // matrix: [[Book]] with assumedSize 3: 3 × Book 1 = 3 (IBM: 3 × 3 = 9 Books, + Query 1).
    expectCost('{ matrix { title } }').toEqual({ typeCost: 3, fieldCost: 0 });
    expect(ibm.estimate('{ matrix { title } }')).toEqual({ typeCost: 10, fieldCost: 1 });
  });

  it('an interface or union weighs 1, and every fragment below it counts', () => {
    // media: 2 × (Media 1 + Video's length 0 + Audio's codec 30) = 62: both fragments are paid.
    expectCost('{ media { ... on Video { length } ... on Audio { codec } } }').toEqual({
      typeCost: 2,
      fieldCost: 60,
    });
    // item: Item 1 + id read on the interface, own @cost 4 = 5; read on Pen, whose id has no @cost
    // of its own (not inherited from Item.id) and ID weighs 0: 1.
    expectCost('{ item { id } }').toEqual({ typeCost: 1, fieldCost: 4 });
    expectCost('{ item { ... on Pen { id } } }').toEqual({ typeCost: 1, fieldCost: 0 });
  });

  it('selections are summed as written: duplicates, aliases and repeated fragments all count', () => {
    // costly twice: 10 + 10 (IBM merges them: 10).
    expectCost('{ costly costly }').toEqual({ typeCost: 0, fieldCost: 20 });
    expectCost('{ a: costly b: costly }').toEqual({ typeCost: 0, fieldCost: 20 });
    expectCost('fragment F on Query { costly } { ...F ...F }').toEqual({ typeCost: 0, fieldCost: 20 });
  });

  it('only a literal @skip(if: true) or @include(if: false) drops a field', () => {
    expectCost('{ costly @skip(if: true) book @include(if: false) { title } }').toEqual({ typeCost: 0, fieldCost: 0 });
    // The router does not read variables there: costly still costs 10.
    expect(estimate('query ($s: Boolean!) { costly @skip(if: $s) }', { s: true })).toEqual({
      typeCost: 0,
      fieldCost: 10,
    });
  });

  it('negative weights add up as in the router; a total below 0 is reported as 0', () => {
    // discounted: own 5 + coupon -20 = -15, prices 12, costly 10: typeCost 12, fieldCost -5, total 7.
    expectCost('{ discounted(coupon: true) { title } prices costly }').toEqual({ typeCost: 12, fieldCost: -5 });
    // discounted alone: -15, which the router would report; a charge is never negative.
    expectCost('{ discounted(coupon: true) { title } }').toEqual({ typeCost: 0, fieldCost: 0 });
  });

  it('a total that overflows both ways (infinite weights against an infinite discount) is too expensive', () => {
    const { estimate: deep } = costSchema(
      `
        type Query { nodes: [Node] @listSize(assumedSize: 2147483647) }
        type Node { children: [Node] @listSize(assumedSize: 2147483647), penalty: Int @cost(weight: "-1") }
      `,
      { costModel: 'apollo' },
    );
    // 40 levels of (2³¹−1) Nodes: the Nodes' weights sum to +Infinity, the penalties to -Infinity.
    const query = `{ nodes { ${'children { '.repeat(39)}penalty${' }'.repeat(39)} } }`;
    expect(deep(query)).toEqual({ typeCost: Number.POSITIVE_INFINITY, fieldCost: 0 });
  });
});

describe("costModel 'apollo': arguments", () => {
  it('a list argument pays its weight, then every element again', () => {
    // filters: [Filter] weighs 0, then { max: 1 }: Filter 1 + max 0 = 1, { heavy }: 1 + heavy 6 = 7.
    // ids: [ID] @cost 2: the list 2, then each ID 2 + 2. search (Int) 0. Total 8 + 6 = 14.
    expectCost('{ search(filters: [{ max: 1 }, { heavy: "x" }], ids: ["a", "b"]) }').toEqual({
      typeCost: 0,
      fieldCost: 14,
    });
  });

  it('an explicit null costs 0, and schema defaults are not arguments written', () => {
    expectCost('{ search(filters: null, ids: null) }').toEqual({ typeCost: 0, fieldCost: 0 });
    // page (first defaults to 5): Page 1 + items 5 × Book 1 = 6, and no argument is written.
    expectCost('{ page { items { title } } }').toEqual({ typeCost: 6, fieldCost: 0 });
  });

  it('a variable weighs the value the request gives it (and 0 when it gives none)', () => {
    const query = 'query ($f: [Filter]) { search(filters: $f) }';
    // 0 + { max: 1 } 1 + { max: 2, heavy: "y" } 1 + 6 = 8.
    expect(estimate(query, { f: [{ max: 1 }, { max: 2, heavy: 'y' }] })).toEqual({ typeCost: 0, fieldCost: 8 });
    expect(estimate(query, {})).toEqual({ typeCost: 0, fieldCost: 0 });
  });

  it("a variable the request leaves out weighs the operation's default", () => {
    // $f defaults to [{ heavy: "z" }]: 0 + Filter 1 + heavy 6 = 7.
    expect(estimate('query ($f: [Filter] = [{ heavy: "z" }]) { search(filters: $f) }', {})).toEqual({
      typeCost: 0,
      fieldCost: 7,
    });
  });
});

describe("costModel 'apollo': list sizes", () => {
  it('a slicing argument sizes the list, a list-typed one by its length', () => {
    // books(first: 3): 3 × (Book 1 + price 3 + genre 2) = 18; byIds of 3 ids: 3 × Book 1 = 3.
    expectCost('{ books(first: 3) { title price genre } }').toEqual({ typeCost: 18, fieldCost: 0 });
    expectCost('{ byIds(ids: ["a", "b", "c"]) { title } }').toEqual({ typeCost: 3, fieldCost: 0 });
  });

  it('reads a slicing path as written: an input-field default does not size the list, the argument default does', () => {
    const sdl = `
      type Query {
        search(input: Search = { pagination: { first: 3 } }): [Item]
          @listSize(slicingArguments: ["input.pagination.first"], assumedSize: 7, requireOneSlicingArgument: false)
      }
      input Search { pagination: Pagination = {}, query: String }
      input Pagination { first: Int = 10 }
      type Item { id: ID }
    `;
    const query = '{ search(input: { query: "lamp" }) { id } }';
    // As written, input.pagination.first is absent: assumedSize 7 × Item 1, and the Search input
    // object written weighs 1. IBM reads the coerced { pagination: { first: 10 } }: Query 1 + 10
    // Items, the search call 1 + Search 1 + the pagination default, an input object, 1.
    expect(costSchema(sdl, { costModel: 'apollo' }).estimate(query)).toEqual({ typeCost: 7, fieldCost: 1 });
    expect(costSchema(sdl).estimate(query)).toEqual({ typeCost: 11, fieldCost: 3 });
    // Without the argument, its schema default is read as written: first 3.
    expect(costSchema(sdl, { costModel: 'apollo' }).estimate('{ search { id } }')).toEqual({
      typeCost: 3,
      fieldCost: 0,
    });
  });

  it('a negative slicing value counts as 0', () => {
    // books(first: -5): the router on its dev branch multiplies by -5; here 0 × (Book 1) = 0.
    const spec = costSchema(librarySdl, { costModel: 'apollo', maxListSize: Infinity });
    spec.expectCost('{ books(first: -5) { title } }').toEqual({ typeCost: 0, fieldCost: 0 });
  });

  it('a sizedFields path sizes a list of its last name at every level above, and lists it passes through', () => {
    // "results { page }": lists is not a list (count 1): ListsPage 1 + page (a last name of the
    // path, sized right here too) 4 × 1 + results 1 × (Results 1 + page 4 × 1) = 10.
    expectCost('{ lists(first: 4) { page { title } results { page { title } } } }').toEqual({
      typeCost: 10,
      fieldCost: 0,
    });
    // "rows { cells }": rows is a list on the path, sized 3 too; cells 3 per row.
    // grid 1 × (Grid 1 + rows 3 × (Row 1 + cells 3 × Cell 1)) = 1 + 3 × 4 = 13.
    expectCost('{ grid(first: 3) { rows { cells { v } } } }').toEqual({ typeCost: 13, fieldCost: 0 });
  });

  it('defaultListSize is the router’s list_size, and saturates at 2³¹−1', () => {
    const huge = costSchema(librarySdl, { costModel: 'apollo', defaultListSize: Number.POSITIVE_INFINITY });
    // shelves: (2³¹−1) × Author 1. IBM with Infinity reports Infinity.
    huge.expectCost('{ shelves { name } }').toEqual({ typeCost: 2 ** 31 - 1, fieldCost: 0 });
    costSchema(librarySdl, { costModel: 'apollo', defaultListSize: 2 ** 32 })
      .expectCost('{ shelves { name } }')
      .toEqual({ typeCost: 2 ** 31 - 1, fieldCost: 0 });
    costSchema(librarySdl, { costModel: 'apollo', defaultListSize: 3 })
      .expectCost('{ shelves { name } }')
      .toEqual({ typeCost: 3, fieldCost: 0 });
  });

  it('requireOneSlicingArgument is enforced as in the IBM model', () => {
    const refused = rejection(() => estimate('{ book { reviews { stars } } }'));
    expect(refused.code).toBe(CostErrorCode.slicingArguments);
  });
});

describe("costModel 'apollo': @join__field(requires:)", () => {
  const supergraph = costSchema(
    `
      directive @join__field(graph: String, requires: String) repeatable on FIELD_DEFINITION
      type Query { ships: [Ship] @listSize(assumedSize: 2) }
      type Ship {
        id: ID
        owner: Owner
        fee: Int @join__field(requires: "owner { rating }") @cost(weight: "3")
        tax: Int @join__field(graph: "a") @join__field(graph: "b", requires: "owner { rating }")
      }
      type Owner { rating: Int @cost(weight: "4") }
    `,
    { costModel: 'apollo' },
  );

  it('pays for the required selection, once per field', () => {
    // ships 2 × (Ship 1 + fee (own 3 + the requirement: owner 1 × (Owner 1 + rating 4))) = 2 × 9.
    // typeCost 2 × (Ship 1 + Owner 1) = 4; fieldCost 2 × (3 + 4) = 14.
    supergraph.expectCost('{ ships { fee } }').toEqual({ typeCost: 4, fieldCost: 14 });
  });

  it('folds the required selection into the field’s breakdown entry', () => {
    const result = supergraph.analyzer.estimate({
      document: supergraph.documentOf('{ ships { fee } }'),
      breakdown: true,
    });
    // ships: 2 Ships (typeCost 2); fee, twice: own 3 and the requirement (Owner 1, rating 4).
    expect(result.fields).toEqual([
      { path: 'ships', typeCost: 2, fieldCost: 0, multiplier: 1 },
      { path: 'ships.fee', typeCost: 1, fieldCost: 7, multiplier: 2 },
    ]);
  });

  it("reads only the field's first @join__field, as the router does", () => {
    // tax's first @join__field has no requires: ships 2 × (Ship 1 + tax 0) = 2.
    supergraph.expectCost('{ ships { tax } }').toEqual({ typeCost: 2, fieldCost: 0 });
  });

  it('is not read by the IBM model', () => {
    // Query 1 + 2 Ships; fee's own weight 3 once per call, 2 calls; the ships call 1.
    const { expectCost: ibmCost } = costSchema(`
      directive @join__field(graph: String, requires: String) repeatable on FIELD_DEFINITION
      type Query { ships: [Ship] @listSize(assumedSize: 2) }
      type Ship { owner: Owner, fee: Int @join__field(requires: "owner { rating }") @cost(weight: "3") }
      type Owner { rating: Int @cost(weight: "4") }
    `);
    ibmCost('{ ships { fee } }').toEqual({ typeCost: 3, fieldCost: 7 });
  });
});

describe("costModel 'apollo': breakdown, work and options", () => {
  it('the breakdown lists each field with its own part; multiplier × (typeCost + fieldCost) sums to the estimate', () => {
    const document = apollo.documentOf('{ books(first: 2) { title reviews(first: 3) { stars } } }');
    const result = apollo.analyzer.estimate({ document, breakdown: true });
    // books 2 × (Book 1 + reviews 3 × (Review 1 + stars own 2)) = 2 × 10 = 20.
    expect(result).toMatchObject({ typeCost: 8, fieldCost: 12 });
    expect(result.fields).toEqual([
      { path: 'books', typeCost: 2, fieldCost: 0, multiplier: 1 },
      { path: 'books.title', typeCost: 0, fieldCost: 0, multiplier: 2 },
      { path: 'books.reviews', typeCost: 3, fieldCost: 0, multiplier: 2 },
      { path: 'books.reviews.stars', typeCost: 0, fieldCost: 2, multiplier: 6 },
    ]);
  });

  it('the breakdown adds up to the estimate, duplicates, fragments and arguments included', () => {
    const queries = [
      '{ media { ... on Video { length } ... on Audio { codec } } costly costly }',
      'fragment F on Query { prices } { ...F ...F lists(first: 4) { page { title } results { page { title } } } }',
      '{ search(filters: [{ max: 1 }, { heavy: "x" }], ids: ["a", "b"]) grid(first: 3) { rows { cells { v } } } }',
      '{ discounted(coupon: true) { title } prices costly matrix { author { name } } }',
    ];
    for (const query of queries) {
      const result = apollo.analyzer.estimate({ document: apollo.documentOf(query), breakdown: true });
      const sum = (result.fields ?? []).reduce(
        (total, entry) => total + entry.multiplier * (entry.typeCost + entry.fieldCost),
        0,
      );
      expect(sum, query).toBe(result.typeCost + result.fieldCost);
    }
  });

  it('prices a fragment fan-out in work linear in the document', () => {
    // F20 spreads F19 twice, …, F0 is costly (10): 2²⁰ × 10 = 10,485,760, without 2²⁰ steps of work.
    const fragments = ['fragment F0 on Query { costly }'];
    for (let level = 1; level <= 20; level++) {
      fragments.push(`fragment F${level} on Query { ...F${level - 1} ...F${level - 1} }`);
    }
    expect(estimate(`${fragments.join('\n')} { ...F20 }`)).toEqual({ typeCost: 0, fieldCost: 2 ** 20 * 10 });
  });

  it('refuses an operation beyond maxNodes with COST_ANALYSIS_LIMIT', () => {
    const { analyzer, documentOf } = costSchema(librarySdl, { costModel: 'apollo', maxNodes: 50 });
    const fields = Array.from({ length: 60 }, (_, index) => `a${index}: costly`).join(' ');
    expect(rejection(() => analyzer.estimate({ document: documentOf(`{ ${fields} }`) })).code).toBe(
      CostErrorCode.limit,
    );
  });

  it('estimateCost keeps one cost table per schema and model', () => {
    const { schema } = apollo;
    const document = parse('{ book { title } }');
    expect(estimateCost({ schema, document, costModel: 'apollo' })).toEqual({ typeCost: 1, fieldCost: 0 });
    expect(estimateCost({ schema, document })).toEqual({ typeCost: 2, fieldCost: 1 });
    expect(estimateCost({ schema, document, costModel: 'apollo' })).toEqual({ typeCost: 1, fieldCost: 0 });
  });

  it('rejects an unknown costModel, and estimators with the apollo model, naming the option', () => {
    const schema = buildSchema('type Query { a: Int }');
    expect(() => createCostAnalyzer(schema, { costModel: 'router' as never })).toThrow(
      new RangeError("createCostAnalyzer: `costModel` must be 'ibm', 'apollo' or 'github'; got \"router\"."),
    );
    expect(() => estimateCost({ schema, document: parse('{ a }'), costModel: 5 as never })).toThrow(/costModel/);
    expect(() => createCostAnalyzer(schema, { costModel: 'apollo', estimators: [() => 1] })).toThrow(
      /cannot be combined with `costModel: 'apollo'`/,
    );
  });
});
