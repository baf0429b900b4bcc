import { Kind, OperationTypeNode, buildSchema, parse } from 'graphql';
import type { DocumentNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import { createCostAnalyzer } from '../../src/cost/analyzer.js';
import { CostErrorCode } from '../../src/cost/errors.js';
import { costSchema, rejection } from './support.js';

// Pricing one field call (IBM spec "Field cost", "@listSize"). Default weights: 1 per object and
// per composite field, 0 per scalar field; defaultListSize 10.
const { schema, estimate, expectCost } = costSchema(`
  type Query {
    book: Book
    costly: Int @cost(weight: "10")
    outer(first: Int): Outer @listSize(slicingArguments: ["first"], sizedFields: ["inner { items }"])
    pages(first: Int): [Page] @listSize(slicingArguments: ["first"], sizedFields: ["items"])
    assumed(first: Int): [Leaf] @listSize(slicingArguments: ["first"], assumedSize: 4, requireOneSlicingArgument: false)
    paged(page: PageInput = { first: 10 }, last: Int): [Leaf]
      @listSize(slicingArguments: ["page.first", "page.last", "last"])
    both(first: Int = 5, last: Int = 5): [Leaf] @listSize(slicingArguments: ["first", "last"])
  }
  input PageInput { first: Int, last: Int }
  type Book { title: String }
  type Outer { inner(limit: Int): Inner @listSize(slicingArguments: ["limit"], sizedFields: ["others"]) }
  type Inner { items: [Leaf], others: [Leaf] }
  type Page { items: [Leaf] }
  type Leaf { x: Int }
`);

/** The estimate of a document that is not validated first (the analyzer leaves validation to the server). */
function unvalidated(document: DocumentNode | string) {
  const { typeCost, fieldCost } = createCostAnalyzer(schema).estimate({
    document: typeof document === 'string' ? parse(document) : document,
  });
  return { typeCost, fieldCost };
}

describe('list sizes handed down by @listSize(sizedFields:)', () => {
  it('gives a field both what an enclosing path hands through it and what its own sizedFields hand', () => {
    // outer's path hands 3 to inner.items; inner's own rule hands 5 to others.
    // typeCost: Query 1 + Outer 1 + Inner 1 + items 3 × Leaf 1 + others 5 × Leaf 1 = 11;
    // fieldCost: outer, inner, items, others 1 each (x is a free scalar) = 4.
    expectCost('{ outer(first: 3) { inner(limit: 5) { items { x } others { x } } } }').toEqual({
      typeCost: 11,
      fieldCost: 4,
    });
  });

  it('sizes a list field with sizedFields at defaultListSize, its size going to the named list', () => {
    // 10 Pages (default), each with 2 items: typeCost 1 + 10 × (1 + 2 × 1) = 31; fieldCost 1 + 10 × 1 = 11.
    expectCost('{ pages(first: 2) { items { x } } }').toEqual({ typeCost: 31, fieldCost: 11 });
  });
});

describe('several @listSize on one field (a repeatable definition)', () => {
  it('sizes the field by the largest of its rules without sizedFields, whichever comes first', () => {
    const schema = buildSchema(`
      directive @listSize(
        assumedSize: Int, slicingArguments: [String!], sizedFields: [String!], requireOneSlicingArgument: Boolean = true
      ) repeatable on FIELD_DEFINITION
      type Query { shrinking: [Leaf] @listSize(assumedSize: 8) @listSize(assumedSize: 5) }
      type Leaf { x: Int }
    `);
    const { typeCost, fieldCost } = createCostAnalyzer(schema).estimate({ document: parse('{ shrinking { x } }') });
    // 8 Leafs: typeCost 1 + 8; fieldCost 1.
    expect({ typeCost, fieldCost }).toEqual({ typeCost: 9, fieldCost: 1 });
  });
});

describe('slicing argument values', () => {
  it('falls back to assumedSize when the slicing argument is null or absent', () => {
    // 4 Leafs: typeCost 1 + 4, fieldCost 1.
    expectCost('{ assumed(first: null) { x } }').toEqual({ typeCost: 5, fieldCost: 1 });
    expectCost('{ assumed { x } }').toEqual({ typeCost: 5, fieldCost: 1 });
  });

  it('reads a path through an explicit null input as absent (the null overrides the schema default)', () => {
    // page: null leaves only last: 3 Leafs (typeCost 1 + 3); fieldCost: the field 1 + the input
    // object argument page, paid for an explicit null too, 1.
    expectCost('{ paged(page: null, last: 3) { x } }').toEqual({ typeCost: 4, fieldCost: 2 });
  });

  it('names every slicing argument path in the rejection, and which were given', () => {
    const none = rejection(() => estimate('{ paged(page: null) { x } }'));
    expect(none.code).toBe(CostErrorCode.slicingArguments);
    expect(none.message).toMatch(/^Query\.paged /);
    expect(none.message).toContain('page.first, page.last or last');
    expect(none.message).toContain('none was given');

    const written = rejection(() => estimate('{ paged(page: { first: 2, last: 3 }, last: 4) { x } }'));
    expect(written.message).toContain('page.first, page.last and last were given');

    const defaulted = rejection(() => estimate('{ paged(last: 3) { x } }'));
    expect(defaulted.message).toContain('page.first (by its schema default) and last were given');
  });

  it('rejects a hand-built field node without the optional arguments and directives lists', () => {
    // { both { x } } with both slicing arguments left to their schema defaults (5 and 5).
    const document: DocumentNode = {
      kind: Kind.DOCUMENT,
      definitions: [
        {
          kind: Kind.OPERATION_DEFINITION,
          operation: OperationTypeNode.QUERY,
          selectionSet: {
            kind: Kind.SELECTION_SET,
            selections: [
              {
                kind: Kind.FIELD,
                name: { kind: Kind.NAME, value: 'both' },
                selectionSet: {
                  kind: Kind.SELECTION_SET,
                  selections: [{ kind: Kind.FIELD, name: { kind: Kind.NAME, value: 'x' } }],
                },
              },
            ],
          },
        },
      ],
    };
    const error = rejection(() => unvalidated(document));
    expect(error.code).toBe(CostErrorCode.slicingArguments);
    expect(error.message).toContain('first (by its schema default) and last (by its schema default) were given');
  });
});

describe('what a field call costs', () => {
  it('charges an ordinary field when introspection is free', () => {
    const free = createCostAnalyzer(schema, { introspection: 'free' });
    const document = parse('{ costly __type(name: "Query") { name } }');
    expect(free.estimate({ document })).toEqual({ typeCost: 1, fieldCost: 10 });
  });

  it('resolves __type and __schema only on the query root type (unvalidated document)', () => {
    // Book has no __type field: it costs nothing; book itself costs 1 + 1.
    expect(unvalidated('{ book { __type(name: "Book") { name } } }')).toEqual({ typeCost: 2, fieldCost: 1 });
  });

  it('ignores a directive the schema does not define (unvalidated document)', () => {
    expect(unvalidated('{ costly @unknown(weight: 1) }')).toEqual({ typeCost: 1, fieldCost: 10 });
  });
});
