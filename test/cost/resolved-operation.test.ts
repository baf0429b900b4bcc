import { parse } from 'graphql';
import type { OperationDefinitionNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import { costSchema } from './support.js';

const { analyzer } = costSchema(`
  type Query {
    books(first: Int): [Book] @listSize(slicingArguments: ["first"])
    costly: Int @cost(weight: "10")
  }
  type Book { title: String }
`);

const document = parse('query A { costly } query B($n: Int) { books(first: $n) { title } }');
const [a, b] = document.definitions as OperationDefinitionNode[];

describe('an already-resolved operation', () => {
  it('is priced as given, without resolving operationName', () => {
    expect(analyzer.estimate({ document, operation: b, variables: { n: 3 } })).toEqual({ typeCost: 4, fieldCost: 1 });
    // The name is not looked at: missing, or naming another or no operation.
    expect(analyzer.estimate({ document, operation: a, operationName: 'B' })).toEqual({ typeCost: 1, fieldCost: 10 });
    expect(analyzer.estimate({ document, operation: a, operationName: 'Nope' })).toEqual({
      typeCost: 1,
      fieldCost: 10,
    });
  });

  it('prices the actual cost of that operation, one walker per operation and variables', () => {
    const data = { books: [{ title: 'x' }] };
    expect(analyzer.actual({ document, operation: b, variables: { n: 3 }, data })).toEqual({
      typeCost: 2,
      fieldCost: 1,
    });
    expect(analyzer.actual({ document, operation: a, variables: { n: 3 }, data: { costly: 1 } })).toEqual({
      typeCost: 1,
      fieldCost: 10,
    });
    expect(analyzer.actual({ document, operation: b, variables: { n: 3 }, data })).toEqual({
      typeCost: 2,
      fieldCost: 1,
    });
  });

  it('must be an operation of the document', () => {
    const other = parse('query B { costly }').definitions[0] as OperationDefinitionNode;
    expect(() => analyzer.estimate({ document, operation: other })).toThrow(TypeError);
    expect(() => analyzer.estimate({ document, operation: other })).toThrow(/`operation`/);
    expect(() => analyzer.actual({ document, operation: other, data: { costly: 1 } })).toThrow(TypeError);
  });
});
