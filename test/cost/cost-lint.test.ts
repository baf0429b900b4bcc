import { composeServices } from '@apollo/composition';
import { buildSchema, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { CostLintRule, lintCostSchema, type LintCostSchemaOptions } from '../../src/cost/cost-lint.js';
import { costDirectivesTypeDefs } from '../../src/cost/directives.js';
import { CostSchemaError } from '../../src/cost/errors.js';
import { queryBudgetDefaults } from '../../src/core/options.js';

/** The findings of a schema (the cost directives prepended) as `rule coordinate` lines. */
const findings = (sdl: string, options?: LintCostSchemaOptions) =>
  lintCostSchema(buildSchema(costDirectivesTypeDefs + sdl), options).map(
    (finding) => `${finding.rule} ${finding.coordinate}`,
  );
/** The findings of one rule. */
const ruleFindings = (rule: CostLintRule, sdl: string, options?: LintCostSchemaOptions) =>
  findings(sdl, options).filter((line) => line.startsWith(`${rule} `));

describe('list-without-list-size', () => {
  const rule = CostLintRule.listWithoutListSize;

  it('names lists of objects and of weighted leaves that no @listSize sizes', () => {
    const sdl = `
      scalar Money @cost(weight: "2")
      type Query {
        shelves: [Shelf]
        prices: [Money]
        titles: [String] @cost(weight: "1")
        tags: [String]
        matrix: [[Shelf]]
        sized: [Shelf] @listSize(assumedSize: 3)
        sliced(first: Int = 5): [Shelf] @listSize(slicingArguments: ["first"])
        one: Shelf
      }
      type Shelf { id: ID }
    `;
    expect(ruleFindings(rule, sdl)).toEqual([
      `${rule} Query.shelves`,
      `${rule} Query.prices`,
      `${rule} Query.titles`,
      `${rule} Query.matrix`,
    ]);
  });

  it('says what the list is priced at', () => {
    const [finding] = lintCostSchema(buildSchema('type Query { a: [A] } type A { b: Int }'), { defaultListSize: 25 });
    expect(finding).toMatchObject({ rule, coordinate: 'Query.a' });
    expect(finding?.message).toMatch(/^Query\.a: .*defaultListSize \(25\) items/);
  });

  it("leaves out lists that an enclosing sizedFields names, on an interface's implementations too", () => {
    const sdl = `
      type Query {
        connection(first: Int = 10): Connection @listSize(slicingArguments: ["first"], sizedFields: ["edges"])
        page(first: Int = 10): Page @listSize(slicingArguments: ["first"], sizedFields: ["results { items }"])
        other: Other
      }
      type Connection { edges: [Edge], nodes: [Edge] }
      type Edge { cursor: String }
      interface Page { results: Results }
      type BookPage implements Page { results: Results }
      type Results { items: [Edge] }
      type Other { edges: [Edge] }
    `;
    expect(ruleFindings(rule, sdl)).toEqual([`${rule} Connection.nodes`, `${rule} Other.edges`]);
  });

  it('names a list whose only @listSize sizes the lists below it, not its own', () => {
    const sdl = `
      type Query { pages(first: Int = 2): [Page] @listSize(slicingArguments: ["first"], sizedFields: ["items"]) }
      type Page { items: [Int] @cost(weight: "1") }
    `;
    expect(ruleFindings(rule, sdl)).toEqual([`${rule} Query.pages`]);
  });

  it('takes the @listSize an object field inherits from its interface', () => {
    const sdl = `
      type Query { node: Node }
      interface Node { friends: [Node] @listSize(assumedSize: 4) }
      type User implements Node { friends: [Node] }
    `;
    expect(ruleFindings(rule, sdl)).toEqual([]);
  });
});

describe('slicing-argument-without-default', () => {
  const rule = CostLintRule.slicingArgumentWithoutDefault;

  it('names a lone optional slicing argument that the plugin then requires', () => {
    const sdl = `
      type Query {
        optional(first: Int): [Item] @listSize(slicingArguments: ["first"])
        defaulted(first: Int = 10): [Item] @listSize(slicingArguments: ["first"])
        required(first: Int!): [Item] @listSize(slicingArguments: ["first"])
        pair(first: Int, last: Int): [Item] @listSize(slicingArguments: ["first", "last"])
      }
      type Item { id: ID }
    `;
    expect(ruleFindings(rule, sdl)).toEqual([`${rule} Query.optional(first:)`]);
    const message = lintCostSchema(buildSchema(costDirectivesTypeDefs + sdl)).find((f) => f.rule === rule)?.message;
    expect(message).toMatch(/^Query\.optional\(first:\): .*refused \(COST_QUERY_PARSE_FAILURE/);
  });

  it('names slicing arguments that may all be left out when requireOneSlicingArgument is false', () => {
    const sdl = `
      type Query {
        loose(first: Int, last: Int): [Item]
          @listSize(slicingArguments: ["first", "last"], requireOneSlicingArgument: false)
        assumed(first: Int): [Item]
          @listSize(slicingArguments: ["first"], assumedSize: 20, requireOneSlicingArgument: false)
      }
      type Item { id: ID }
    `;
    expect(ruleFindings(rule, sdl)).toEqual([`${rule} Query.loose(first:)`, `${rule} Query.loose(last:)`]);
    const message = lintCostSchema(buildSchema(costDirectivesTypeDefs + sdl), { defaultListSize: 7 })[0]?.message;
    expect(message).toMatch(/priced at defaultListSize \(7\) items while the resolver decides/);
  });

  it('reads input-object paths: a default of the argument or of the input field, or non-null all the way', () => {
    const sdl = `
      input Page { first: Int, size: Int = 10, count: Int! }
      type Query {
        bare(page: Page): [Item] @listSize(slicingArguments: ["page.first"])
        argumentDefault(page: Page = { first: 5, count: 1 }): [Item] @listSize(slicingArguments: ["page.first"])
        fieldDefault(page: Page!): [Item] @listSize(slicingArguments: ["page.size"])
        nonNull(page: Page!): [Item] @listSize(slicingArguments: ["page.count"])
        nullableArgument(page: Page): [Item] @listSize(slicingArguments: ["page.count"])
      }
      type Item { id: ID }
    `;
    expect(ruleFindings(rule, sdl)).toEqual([`${rule} Query.bare(page:)`, `${rule} Query.nullableArgument(page:)`]);
  });
});

describe('unbounded-slicing-argument', () => {
  const rule = CostLintRule.unboundedSlicingArgument;
  const sdl = `
    type Query { items(first: Int = 10, ids: [ID!]): [Item] @listSize(slicingArguments: ["first", "ids"], requireOneSlicingArgument: false) }
    type Item { id: ID }
  `;

  it("names nothing under the plugin's finite maxListSize", () => {
    expect(queryBudgetDefaults.maxListSize).toBe(10_000); // what lintCostSchema assumes by default
    expect(ruleFindings(rule, sdl)).toEqual([]);
    expect(ruleFindings(rule, sdl, { maxListSize: 500 })).toEqual([]);
  });

  it('names every slicing argument when maxListSize is Infinity', () => {
    expect(ruleFindings(rule, sdl, { maxListSize: Infinity })).toEqual([
      `${rule} Query.items(first:)`,
      `${rule} Query.items(ids:)`,
    ]);
  });
});

describe('unweighted-client-sized-leaf-list', () => {
  const rule = CostLintRule.unweightedClientSizedLeafList;

  it('names scalar and enum lists a client sizes that weigh nothing', () => {
    const sdl = `
      enum Shade { LIGHT DARK }
      enum Heavy @cost(weight: "1") { A }
      type Query {
        tags(first: Int!): [String!]! @listSize(slicingArguments: ["first"])
        shades(first: Int!): [Shade] @listSize(slicingArguments: ["first"])
        words(first: Int!): [String] @cost(weight: "1") @listSize(slicingArguments: ["first"])
        heavy(first: Int!): [Heavy] @listSize(slicingArguments: ["first"])
        assumed: [String] @listSize(assumedSize: 1000)
      }
    `;
    expect(ruleFindings(rule, sdl)).toEqual([`${rule} Query.tags`, `${rule} Query.shades`]);
  });
});

describe('sized-fields-reach-no-list', () => {
  const rule = CostLintRule.sizedFieldsReachNoList;

  it('names a sizedFields @listSize that has no size to hand', () => {
    const sdl = `
      type Query {
        sizeless: Connection @listSize(sizedFields: ["edges"])
        assumed: Connection @listSize(assumedSize: 5, sizedFields: ["edges"])
        sliced(first: Int = 5): Connection @listSize(slicingArguments: ["first"], sizedFields: ["edges"])
      }
      type Connection { edges: [Edge] }
      type Edge { cursor: String }
    `;
    expect(ruleFindings(rule, sdl)).toEqual([`${rule} Query.sizeless`]);
    // Its edges are then unsized wherever they are reached.
    expect(ruleFindings(CostLintRule.listWithoutListSize, sdl)).toEqual([]);
  });

  it('names the lists of a path it does not reach', () => {
    const sdl = `
      type Query { deep: Deep @listSize(sizedFields: ["results { page }"]) }
      type Deep { results: Results }
      type Results { page: [Int] @cost(weight: "1") }
    `;
    const [finding] = lintCostSchema(buildSchema(costDirectivesTypeDefs + sdl)).filter((f) => f.rule === rule);
    expect(finding?.message).toMatch(/^Query\.deep: .*reaches none of the lists it names \(page\)/);
  });
});

describe('negative-weight', () => {
  const rule = CostLintRule.negativeWeight;

  it('names every negative @cost at its coordinate', () => {
    const sdl = `
      directive @trace(level: Int @cost(weight: "-1")) on FIELD
      scalar Cheap @cost(weight: "-2")
      enum Mood @cost(weight: "-0.5") { OK }
      input Filter { discount: Boolean @cost(weight: "-3"), plain: Int @cost(weight: "2") }
      type Book @cost(weight: "-4") { title: String }
      type Query {
        discounted(coupon: Boolean @cost(weight: "-20"), filter: Filter): Book @cost(weight: "-5")
        fine: Int @cost(weight: "0")
      }
    `;
    expect(ruleFindings(rule, sdl).sort()).toEqual(
      [
        `${rule} @trace(level:)`,
        `${rule} Cheap`,
        `${rule} Mood`,
        `${rule} Filter.discount`,
        `${rule} Book`,
        `${rule} Query.discounted`,
        `${rule} Query.discounted(coupon:)`,
      ].sort(),
    );
  });

  it('names an interface field, not the fields that inherit its weight', () => {
    const sdl = `
      type Query { node: Node }
      interface Node { score: Int @cost(weight: "-1") }
      type User implements Node { score: Int }
    `;
    expect(ruleFindings(rule, sdl)).toEqual([`${rule} Node.score`]);
  });
});

describe('unused-cost-directive', () => {
  const rule = CostLintRule.unusedCostDirective;

  it('names the cost directives a schema declares and applies nowhere', () => {
    expect(ruleFindings(rule, 'type Query { a: Int }')).toEqual([`${rule} @cost`, `${rule} @listSize`]);
    expect(ruleFindings(rule, 'type Query { a: [Int] @listSize(assumedSize: 1) }')).toEqual([`${rule} @cost`]);
    expect(ruleFindings(rule, 'type Query { a(x: Int @cost(weight: "1")): Int }')).toEqual([`${rule} @listSize`]);
    expect(
      ruleFindings(rule, 'type Query { a: Int } extend type Query { b: [Int] @listSize(assumedSize: 1) }'),
    ).toEqual([`${rule} @cost`]);
  });

  it('names nothing for a schema that declares neither', () => {
    expect(lintCostSchema(buildSchema('type Query { a: Int }'))).toEqual([]);
  });

  it('reads the names a @link gives them', () => {
    const sdl = `
      extend schema @link(url: "https://specs.apollo.dev/cost/v0.1", import: [{ name: "@listSize", as: "@size" }])
      directive @link(url: String, as: String, import: [link__Import]) repeatable on SCHEMA
      scalar link__Import
      directive @cost(weight: Int!) on FIELD_DEFINITION | OBJECT
      directive @size(assumedSize: Int, slicingArguments: [String!], sizedFields: [String!], requireOneSlicingArgument: Boolean = true) on FIELD_DEFINITION
      type Query { a: [Int] @size(assumedSize: 2) }
    `;
    expect(lintCostSchema(buildSchema(sdl)).map((f) => f.coordinate)).toEqual(['@cost']);
  });
});

describe('a supergraph', () => {
  const link = '@link(url: "https://specs.apollo.dev/federation/v2.9", import: ["@key", "@cost", "@listSize"])';
  const composed = composeServices([
    {
      name: 'products',
      url: 'http://127.0.0.1:1',
      typeDefs: parse(`
        extend schema ${link}
        type Query { products(first: Int): [Product] @listSize(slicingArguments: ["first"]), all: [Product] }
        type Product @key(fields: "id") { id: ID!, price: Int @cost(weight: -1) }
      `),
    },
  ]);
  const api = buildSchema(
    'type Query { products(first: Int): [Product], all: [Product] } type Product { id: ID!, price: Int }',
  );

  it("reads the supergraph's directives by coordinate", () => {
    const lint = lintCostSchema(api, { supergraphSdl: composed.supergraphSdl as string }).map(
      (finding) => `${finding.rule} ${finding.coordinate}`,
    );
    expect(lint).toEqual([
      `${CostLintRule.slicingArgumentWithoutDefault} Query.products(first:)`,
      `${CostLintRule.listWithoutListSize} Query.all`,
      `${CostLintRule.negativeWeight} Product.price`,
    ]);
  });
});

describe('lintCostSchema', () => {
  it('gives every finding a message that starts with its coordinate', () => {
    const schema = buildSchema(`${costDirectivesTypeDefs}
      type Query { a: [A], b(first: Int): [A] @listSize(slicingArguments: ["first"]), c: A @cost(weight: "-1") }
      type A { x: Int }`);
    const lint = lintCostSchema(schema, { maxListSize: Infinity });
    expect(lint.map((finding) => finding.rule)).toEqual([
      CostLintRule.listWithoutListSize,
      CostLintRule.unboundedSlicingArgument,
      CostLintRule.slicingArgumentWithoutDefault,
      CostLintRule.negativeWeight,
    ]);
    for (const finding of lint) expect(finding.message.startsWith(`${finding.coordinate}: `)).toBe(true);
  });

  it('throws CostSchemaError for directives it cannot read, and checks its options', () => {
    const bad = buildSchema(`${costDirectivesTypeDefs} type Query { a: [Int] @listSize(slicingArguments: ["x"]) }`);
    expect(() => lintCostSchema(bad)).toThrow(CostSchemaError);
    const schema = buildSchema('type Query { a: Int }');
    expect(() => lintCostSchema(schema, { defaultListSize: -1 })).toThrow(/`defaultListSize`/);
    expect(() => lintCostSchema(schema, { maxListSize: Number.NaN })).toThrow(/`maxListSize`/);
    expect(() => lintCostSchema(schema, { supergraphSdl: 1 as unknown as string })).toThrow(/`supergraphSdl`/);
    expect(() => lintCostSchema({} as never)).toThrow(TypeError);
  });
});
