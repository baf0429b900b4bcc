import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildSchema, print, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { createCostAnalyzer } from '../../src/cost/analyzer.js';
import { costDirective, costDirectivesTypeDefs, listSizeDirective } from '../../src/cost/directives.js';
import { CostSchemaError } from '../../src/cost/errors.js';
import * as api from '../../src/index.js';

function problemsOf(sdl: string): readonly string[] {
  try {
    createCostAnalyzer(buildSchema(costDirectivesTypeDefs + sdl));
  } catch (error) {
    if (error instanceof CostSchemaError) return error.problems;
    throw error;
  }
  return [];
}

describe('directive definitions', () => {
  it('schema/cost.graphql is exactly costDirectivesTypeDefs', () => {
    const file = readFileSync(join(import.meta.dirname, '../../schema/cost.graphql'), 'utf8');
    expect(file).toBe(costDirectivesTypeDefs);
  });

  it('the SDL declares the same directives as the GraphQLDirective objects', () => {
    const schema = buildSchema(`${costDirectivesTypeDefs}type Query { a: Int }`);
    for (const directive of [costDirective, listSizeDirective]) {
      const built = schema.getDirective(directive.name);
      expect(built?.locations).toEqual(directive.locations);
      expect(built?.args.map((arg) => [arg.name, String(arg.type), arg.defaultValue])).toEqual(
        directive.args.map((arg) => [arg.name, String(arg.type), arg.defaultValue]),
      );
    }
    expect(print(parse(costDirectivesTypeDefs))).toContain(
      'directive @cost(\n  """A number written as a string, e.g. "2.0"; may be negative."""\n  weight: String!\n)',
    );
  });

  it('is exported from the package entry point', () => {
    expect(api.costDirectivesTypeDefs).toBe(costDirectivesTypeDefs);
    expect(api.createCostAnalyzer).toBe(createCostAnalyzer);
    expect(typeof api.estimateCost).toBe('function');
    expect(typeof api.defaultChargedCost).toBe('function');
  });
});

describe('startup checks', () => {
  it('accepts a well-annotated schema', () => {
    expect(
      problemsOf(`
        type Query {
          users(first: Int!, filter: F): [User] @listSize(slicingArguments: ["first", "filter.max"])
          page(first: Int): Page @listSize(slicingArguments: ["first"], sizedFields: ["items"])
        }
        input F { max: Int }
        type User { name: String @cost(weight: "1.5") }
        type Page { items: [User!]! }
      `),
    ).toEqual([]);
  });

  it('rejects a slicing argument that does not exist, naming Type.field', () => {
    expect(problemsOf('type Query { users(first: Int): [Int] @listSize(slicingArguments: ["limit"]) }')).toEqual([
      'Query.users: @listSize slicing argument "limit" is not an argument of Query.users.',
    ]);
  });

  it('rejects a slicing argument that is not Int', () => {
    expect(
      problemsOf(`
        type Query { users(first: String, f: F): [Int] @listSize(slicingArguments: ["first", "f.max", "f.nope"]) }
        input F { max: Float }
      `),
    ).toEqual([
      'Query.users: @listSize slicing argument "first" has type String; it must be Int.',
      'Query.users: @listSize slicing argument "f.max" has type Float; it must be Int.',
      'Query.users: @listSize slicing argument "f.nope" is not an argument of Query.users.',
    ]);
  });

  it('rejects a sized field that is missing or not a list', () => {
    expect(
      problemsOf(`
        type Query { page(first: Int): Page @listSize(slicingArguments: ["first"], sizedFields: ["items", "total", "nope"]) }
        type Page { items: [Int], total: Int }
      `),
    ).toEqual([
      'Query.page: @listSize sized field "total" (Page.total: Int) is not a list.',
      'Query.page: @listSize sized field "nope" is not a field of Page.',
    ]);
    expect(
      problemsOf(`
        type Query { page: U @listSize(assumedSize: 2, sizedFields: ["items"]) }
        type A { items: [Int] }
        union U = A
      `),
    ).toEqual(['Query.page: @listSize(sizedFields:) needs an object or interface return type, not U.']);
  });

  it('rejects a non-numeric weight anywhere, naming its coordinate', () => {
    expect(
      problemsOf(`
        directive @tag(level: Int @cost(weight: "")) on FIELD
        scalar S @cost(weight: "heavy")
        type Query @cost(weight: "NaN") { a(x: Int @cost(weight: "1e999")): S @cost(weight: "two") }
        input I { f: Int @cost(weight: "1,5") }
      `),
    ).toEqual([
      'S: @cost weight "heavy" is not a finite number.',
      'Query: @cost weight "NaN" is not a finite number.',
      'Query.a: @cost weight "two" is not a finite number.',
      'Query.a(x:): @cost weight "1e999" is not a finite number.',
      'I.f: @cost weight "1,5" is not a finite number.',
      '@tag(level:): @cost weight "" is not a finite number.',
    ]);
  });

  it('rejects a negative assumedSize', () => {
    expect(problemsOf('type Query { a: [Int] @listSize(assumedSize: -3) }')).toEqual([
      'Query.a: @listSize(assumedSize: -3) must not be negative.',
    ]);
  });

  it('throws one error listing every problem', () => {
    const schema = buildSchema(
      costDirectivesTypeDefs +
        'type Query { a: Int @cost(weight: "x"), b(n: Int): [Int] @listSize(slicingArguments: ["m"]) }',
    );
    expect(() => createCostAnalyzer(schema)).toThrow(/Query\.a: @cost weight "x"[\s\S]*Query\.b: @listSize/);
  });
});
