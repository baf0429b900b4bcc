import {
  GraphQLDirective,
  GraphQLEnumType,
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLList,
  GraphQLObjectType,
  GraphQLSchema,
  GraphQLString,
  buildSchema,
  parse,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { createCostAnalyzer, estimateCost } from '../../src/cost/analyzer.js';
import { CostLintRule, lintCostSchema } from '../../src/cost/cost-lint.js';
import { costDirective, costDirectivesTypeDefs, listSizeDirective } from '../../src/cost/directives.js';
import { CostSchemaError } from '../../src/cost/errors.js';

type Directives = unknown;

/**
 * `{ shelves(first: Int = 10, filter: Filter): [Shelf] }` built in code, each element's
 * `extensions.directives` as given (a schema as Pothos, Nexus or graphql-tools build it).
 */
function shelfSchema(
  directives: {
    shelf?: Directives;
    shelves?: Directives;
    filter?: Directives;
    genre?: Directives;
    genreEnum?: Directives;
  },
  extra: { directives?: GraphQLDirective[] } = {},
) {
  const Genre = new GraphQLEnumType({
    name: 'Genre',
    values: { NOVEL: {}, POEM: {} },
    extensions: { directives: directives.genreEnum },
  });
  const Filter = new GraphQLInputObjectType({
    name: 'Filter',
    fields: { genre: { type: Genre, extensions: { directives: directives.genre } } },
  });
  const Shelf = new GraphQLObjectType({
    name: 'Shelf',
    fields: { name: { type: GraphQLString }, genre: { type: Genre } },
    extensions: { directives: directives.shelf },
  });
  const Query = new GraphQLObjectType({
    name: 'Query',
    fields: {
      shelves: {
        type: new GraphQLList(Shelf),
        args: {
          first: { type: GraphQLInt, defaultValue: 10 },
          filter: { type: Filter, extensions: { directives: directives.filter } },
        },
        extensions: { directives: directives.shelves },
      },
    },
  });
  return new GraphQLSchema({ query: Query, ...extra });
}

const price = (schema: GraphQLSchema, query: string) => estimateCost({ schema, document: parse(query) });

describe('cost directives in extensions.directives', () => {
  it('reads an object of name → arguments on types, fields, arguments, input fields and enums', () => {
    const schema = shelfSchema({
      shelf: { cost: { weight: '2' } },
      shelves: { listSize: { slicingArguments: ['first'] }, cost: { weight: 5 } },
      filter: { cost: { weight: 1.5 } },
      genre: { cost: { weight: '3' } },
      genreEnum: { cost: { weight: '0.5' } },
    });
    // Root 1, 4 shelves of 2, each with its genre of 0.5; the field 5, its filter 1.5 and the genre in it 3.
    expect(price(schema, '{ shelves(first: 4, filter: { genre: NOVEL }) { name genre } }')).toEqual({
      typeCost: 1 + 4 * (2 + 0.5),
      fieldCost: 5 + 1.5 + 3,
    });
    expect(price(schema, '{ shelves(first: 40) { name } }')).toEqual({ typeCost: 1 + 40 * 2, fieldCost: 5 });
  });

  it('reads a list of { name, args }', () => {
    const schema = shelfSchema({
      shelf: [{ name: 'cost', args: { weight: '2' } }],
      shelves: [
        { name: 'listSize', args: { slicingArguments: ['first'] } },
        { name: 'other', args: { anything: true } },
      ],
    });
    expect(price(schema, '{ shelves(first: 4) { name } }')).toEqual({ typeCost: 1 + 4 * 2, fieldCost: 1 });
  });

  it('reads a repeated @listSize where the schema defines it repeatable, the largest size winning', () => {
    const repeatable = new GraphQLDirective({ ...listSizeDirective.toConfig(), isRepeatable: true });
    const shelves = {
      listSize: [{ assumedSize: 7 }, { slicingArguments: ['first'], requireOneSlicingArgument: false }],
    };
    const schema = shelfSchema({ shelves }, { directives: [costDirective, repeatable] });
    expect(price(schema, '{ shelves(first: 3) { name } }')).toEqual({ typeCost: 1 + 7, fieldCost: 1 });
    expect(price(schema, '{ shelves(first: 30) { name } }')).toEqual({ typeCost: 1 + 30, fieldCost: 1 });
    expect(() => createCostAnalyzer(shelfSchema({ shelves }))).toThrow(
      'Query.shelves: @listSize is given 2 times, but the schema does not define it repeatable.',
    );
  });

  it('refuses what SDL would refuse, naming the coordinate', () => {
    const schema = shelfSchema({
      shelf: { cost: { weight: 'heavy' } },
      shelves: { listSize: { slicingArguments: ['last'] } },
      filter: { cost: { weight: Number.NaN } },
      genre: { cost: {} },
    });
    let error: unknown;
    try {
      createCostAnalyzer(schema);
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(CostSchemaError);
    expect((error as CostSchemaError).problems).toEqual([
      'Query.shelves: @listSize slicing argument "last" is not an argument of Query.shelves.',
      'Query.shelves(filter:): @cost weight "NaN" is not a finite number.',
      'Shelf: @cost weight "heavy" is not a finite number.',
      'Filter.genre: @cost weight no weight is not a finite number.',
    ]);
  });

  it('reads the SDL definition before extensions, so a directive both carry counts once', () => {
    const schema = buildSchema(`${costDirectivesTypeDefs}
      type Query { shelves(first: Int = 10): [Shelf] @listSize(slicingArguments: ["first"]) }
      type Shelf @cost(weight: "2") { name: String }
    `);
    const shelves = schema.getQueryType()!.getFields().shelves!;
    shelves.extensions = { directives: { listSize: { slicingArguments: ['first'] } } };
    const shelf = schema.getType('Shelf')!;
    shelf.extensions = { directives: { cost: { weight: '9' } } };
    expect(price(schema, '{ shelves(first: 4) { name } }')).toEqual({ typeCost: 1 + 4 * 2, fieldCost: 1 });
  });

  it('counts directives applied in extensions as applied (no unused-cost-directive finding)', () => {
    const defined = { directives: [costDirective, listSizeDirective] };
    const unused = lintCostSchema(shelfSchema({}, defined)).filter(
      (finding) => finding.rule === CostLintRule.unusedCostDirective,
    );
    expect(unused.map((finding) => finding.coordinate)).toEqual(['@cost', '@listSize']);
    const applied = shelfSchema(
      { shelf: { cost: { weight: '2' } }, shelves: [{ name: 'listSize', args: { assumedSize: 3 } }] },
      defined,
    );
    expect(lintCostSchema(applied).filter((finding) => finding.rule === CostLintRule.unusedCostDirective)).toEqual([]);
  });

  it('leaves a schema without extensions as it was', () => {
    const schema = shelfSchema({});
    expect(price(schema, '{ shelves(first: 4) { name } }')).toEqual({ typeCost: 1 + 10, fieldCost: 1 });
  });
});
