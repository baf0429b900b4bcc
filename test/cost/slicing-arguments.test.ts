import { describe, expect, it } from 'vitest';
import { CostAnalysisError, CostErrorCode } from '../../src/cost/errors.js';
import { costSchema } from './support.js';

const { estimate, expectCost } = costSchema(`
  type Query {
    authors(first: Int, last: Int): [Author] @listSize(slicingArguments: ["first", "last"])
    paged(first: Int = 5): [Author] @listSize(slicingArguments: ["first"])
    ranged(first: Int = 5, last: Int): [Author] @listSize(slicingArguments: ["first", "last"])
    filtered(filter: Filter): [Author] @listSize(slicingArguments: ["filter.first"])
    defaulted(filter: DefaultedFilter): [Author] @listSize(slicingArguments: ["filter.first"])
    loose(first: Int, last: Int): [Author]
      @listSize(slicingArguments: ["first", "last"], requireOneSlicingArgument: false)
    page(first: Int): Page @listSize(slicingArguments: ["first"], sizedFields: ["items"])
    bestsellers: [Author] @listSize(assumedSize: 3)
  }
  input Filter { first: Int, text: String }
  input DefaultedFilter { first: Int = 3 }
  type Page { items: [Author] }
  type Author { name: String }
`);

/** The error `estimate` throws for a query, or a failure if it throws none. */
function rejection(query: string, variables?: Record<string, unknown>): CostAnalysisError {
  try {
    estimate(query, variables);
  } catch (error) {
    if (error instanceof CostAnalysisError) return error;
    throw error;
  }
  throw new Error(`not rejected: ${query}`);
}

const none = /^Query\.authors needs a value for exactly one of its slicing arguments first or last, .*none was given/;
const both =
  /^Query\.authors needs a value for exactly one of its slicing arguments first or last, .*first and last were given/;

describe('@listSize(requireOneSlicingArgument:) (IBM spec "@listSize"), true unless the schema says false', () => {
  it('rejects an operation that gives none, with a stable code, naming Type.field and its arguments at the field', () => {
    const error = rejection('{ bestsellers { name }\n  authors { name } }');
    expect(error.extensions.code).toBe(CostErrorCode.slicingArguments);
    expect(error.extensions.code).toBe('COST_QUERY_PARSE_FAILURE');
    expect(error.message).toMatch(none);
    expect(error.locations).toEqual([{ line: 2, column: 3 }]);
  });
  it('does not count an explicit null, as a literal, a variable or over a schema default', () => {
    expect(rejection('{ authors(first: null) { name } }').message).toMatch(none);
    expect(rejection('query Q($n: Int) { authors(first: $n) { name } }', { n: null }).message).toMatch(none);
    expect(rejection('query Q($n: Int) { authors(first: $n) { name } }', {}).message).toMatch(none);
    expect(rejection('{ paged(first: null) { name } }').message).toMatch(
      /^Query\.paged needs a value for its slicing argument first, .*none was given/,
    );
  });
  it('rejects an operation that gives two', () => {
    expect(rejection('{ authors(first: 2, last: 3) { name } }').message).toMatch(both);
    expect(rejection('query Q($n: Int = 1) { authors(first: 2, last: $n) { name } }', {}).message).toMatch(both);
  });
  it('counts a schema default as given: with a default on first, passing last gives two', () => {
    expectCost('{ ranged { name } }').toEqual({ typeCost: 1 + 5, fieldCost: 1 });
    expect(rejection('{ ranged(last: 2) { name } }').message).toMatch(
      /; first \(by its schema default\) and last were given\. Pass only one of them\.$/,
    );
  });
  it('counts a schema default, an operation default and a variable as the one given', () => {
    expectCost('{ paged { name } }').toEqual({ typeCost: 1 + 5, fieldCost: 1 });
    expectCost('query Q($n: Int) { paged(first: $n) { name } }', {}).toEqual({ typeCost: 1 + 5, fieldCost: 1 });
    expectCost('query Q($n: Int = 4) { authors(first: $n) { name } }', {}).toEqual({ typeCost: 1 + 4, fieldCost: 1 });
    expectCost('query Q($n: Int) { authors(last: $n) { name } }', { n: 2 }).toEqual({ typeCost: 1 + 2, fieldCost: 1 });
    expectCost('{ authors(first: 0) { name } }').toEqual({ typeCost: 1, fieldCost: 1 });
  });
  it('reads a nested input path such as filter.first, with input-field defaults', () => {
    expectCost('{ filtered(filter: { first: 2 }) { name } }').toEqual({ typeCost: 1 + 2, fieldCost: 1 + 1 });
    expect(rejection('{ filtered { name } }').message).toMatch(/^Query\.filtered .*slicing argument filter\.first/);
    expect(rejection('{ filtered(filter: { text: "a" }) { name } }').message).toMatch(/none was given/);
    expect(rejection('{ filtered(filter: { first: null }) { name } }').message).toMatch(/none was given/);
    expectCost('{ defaulted(filter: {}) { name } }').toEqual({ typeCost: 1 + 3, fieldCost: 1 + 1 });
    expect(rejection('{ defaulted { name } }').message).toMatch(/^Query\.defaulted /);
  });
  it('applies to a field whose size goes to its sizedFields', () => {
    expect(rejection('{ page { items { name } } }').message).toMatch(/^Query\.page /);
    expectCost('{ page(first: 2) { items { name } } }').toEqual({ typeCost: 1 + 1 + 2, fieldCost: 1 + 1 });
  });
  it('lets requireOneSlicingArgument: false through with none or several', () => {
    expectCost('{ loose { name } }').toEqual({ typeCost: 1 + 10, fieldCost: 1 });
    expectCost('{ loose(first: 2, last: 3) { name } }').toEqual({ typeCost: 1 + 3, fieldCost: 1 });
  });
  it('leaves alone a field that @skip or @include leave out', () => {
    expectCost('{ authors @skip(if: true) { name } bestsellers { name } }').toEqual({ typeCost: 1 + 3, fieldCost: 1 });
  });
});
