import { buildSchema, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import { createCostAnalyzer, estimateCost } from '../../src/cost/analyzer.js';
import { CostLintRule, lintCostSchema } from '../../src/cost/cost-lint.js';
import { costDirectivesTypeDefs } from '../../src/cost/directives.js';
import { CostSchemaError } from '../../src/cost/errors.js';
import type { CostAnalyzerOptions } from '../../src/cost/types.js';
import { chargeOperation } from '../../src/core/charge-operation.js';
import { queryBudgetPlugin } from '../../src/apollo/index.js';

/** A Relay schema without any @listSize but one, and a few fields that only look like connections. */
const schema = buildSchema(`${costDirectivesTypeDefs}
  type Query {
    issues(first: Int, last: Int, after: String): IssueConnection
    firstOnly(first: Int!): IssueConnection
    annotated(first: Int): IssueConnection @listSize(assumedSize: 3, slicingArguments: [], sizedFields: ["nodes"])
    node: Node
    noPageInfo(first: Int): Bag
    textFirst(first: String): IssueConnection
    list(first: Int): [IssueConnection]
    noArguments: IssueConnection
  }
  interface Node { labels(first: Int): LabelConnection }
  type Issue implements Node {
    title: String
    labels(first: Int): LabelConnection
  }
  type IssueConnection { edges: [IssueEdge] nodes: [Issue] pageInfo: PageInfo! totalCount: Int }
  type IssueEdge { node: Issue cursor: String }
  type LabelConnection { nodes: [Label!]! pageInfo: PageInfo! }
  type Label { name: String }
  type PageInfo { hasNextPage: Boolean! }
  type Bag { nodes: [Issue] }
`);

const relay = { inferListSizes: 'relay' } as const;
const price = (query: string, options: CostAnalyzerOptions = relay) => {
  const { typeCost, fieldCost } = estimateCost({ schema, document: parse(query), ...options });
  return typeCost + fieldCost;
};

describe("inferListSizes: 'relay'", () => {
  it('sizes a connection by first or last, its edges and nodes alike', () => {
    // Query 1 + issues 1 (call) + connection 1 + nodes 1 (call) + n issues.
    expect(price('{ issues(first: 5) { nodes { title } } }')).toBe(4 + 5);
    expect(price('{ issues(last: 40) { nodes { title } } }')).toBe(4 + 40);
    expect(price('{ issues(first: 5) { edges { node { title } } } }')).toBe(4 + 5 * 3);
    // Both given: the larger, as the IBM spec takes the largest slicing argument.
    expect(price('{ issues(first: 5, last: 7) { nodes { title } } }')).toBe(4 + 7);
    // Neither: requireOneSlicingArgument is false, so the lists fall back to defaultListSize.
    expect(price('{ issues { nodes { title } } }')).toBe(4 + 10);
    expect(price('{ issues { nodes { title } } }', { ...relay, defaultListSize: 3 })).toBe(4 + 3);
    // Without the inference, any first costs the defaultListSize.
    expect(price('{ issues(first: 50) { nodes { title } } }', {})).toBe(4 + 10);
  });

  it('multiplies nested connections, and names the slicing arguments the field has', () => {
    // 2 issues, each with its labels connection (call 1, object 1, nodes call 1) and 3 labels: 4 + 2 × (1 + 3 + 3).
    expect(price('{ issues(first: 2) { nodes { labels(first: 3) { nodes { name } } } } }')).toBe(4 + 2 * 7);
    expect(price('{ firstOnly(first: 6) { nodes { title } } }')).toBe(4 + 6);
    // An interface's field is inferred too.
    expect(price('{ node { labels(first: 8) { nodes { name } } } }')).toBe(2 + 4 + 8);
  });

  it('leaves a written @listSize alone, and fields that are not Relay connections', () => {
    expect(price('{ annotated(first: 50) { nodes { title } } }')).toBe(4 + 3);
    for (const query of [
      '{ noPageInfo(first: 50) { nodes { title } } }',
      '{ textFirst(first: "50") { nodes { title } } }',
      '{ noArguments { nodes { title } } }',
    ]) {
      expect(price(query)).toBe(price(query, {}));
    }
    expect(price('{ list(first: 50) { nodes { title } } }')).toBe(price('{ list(first: 50) { nodes { title } } }', {}));
  });

  it('gives every cost model the same rules', () => {
    const query = (first: number) => `{ issues(first: ${first}) { nodes { labels(first: 10) { nodes { name } } } } }`;
    for (const costModel of ['ibm', 'apollo', 'github'] as const) {
      const prices = [50, 200].map((first) => price(query(first), { ...relay, costModel }));
      expect(prices[1], costModel).toBeGreaterThan(prices[0] as number);
    }
  });

  it('marks the inferred fields in the breakdown', () => {
    const { fields } = estimateCost({
      schema,
      document: parse(
        '{ issues(first: 2) { nodes { labels(first: 3) { nodes { name } } } } annotated { totalCount } }',
      ),
      breakdown: true,
      ...relay,
    });
    const inferred = fields?.filter((field) => field.inferredListSize === 'relay').map((field) => field.path);
    expect(inferred).toEqual(['issues', 'issues.nodes.labels']);
  });

  it('lists the inferred fields in the lint, whose lists are then sized', () => {
    const lint = (inferListSizes: 'relay' | false) =>
      lintCostSchema(schema, { inferListSizes }).map(
        (finding) => `${finding.severity} ${finding.rule} ${finding.coordinate}`,
      );
    expect(lint('relay')).toEqual([
      `info ${CostLintRule.inferredListSize} Query.issues`,
      `info ${CostLintRule.inferredListSize} Query.firstOnly`,
      `info ${CostLintRule.inferredListSize} Node.labels`,
      `info ${CostLintRule.inferredListSize} Issue.labels`,
      `warning ${CostLintRule.listWithoutListSize} Query.list`,
      `warning ${CostLintRule.listWithoutListSize} Bag.nodes`,
      `warning ${CostLintRule.unusedCostDirective} @cost`,
    ]);
    expect(lint(false).filter((line) => line.includes(CostLintRule.listWithoutListSize))).toEqual([
      `warning ${CostLintRule.listWithoutListSize} Query.list`,
      `warning ${CostLintRule.listWithoutListSize} IssueConnection.edges`,
      `warning ${CostLintRule.listWithoutListSize} LabelConnection.nodes`,
      `warning ${CostLintRule.listWithoutListSize} Bag.nodes`,
    ]);
    const [issues] = lintCostSchema(schema, relay);
    expect(issues?.message).toBe(
      'Query.issues: a Relay connection, priced as if it carried @listSize(slicingArguments: ["first", "last"], ' +
        'sizedFields: ["edges", "nodes"], requireOneSlicingArgument: false) (inferListSizes: \'relay\'): an operation ' +
        'that gives neither first nor last is priced at defaultListSize (10) items. graphql-budget annotate writes ' +
        'the directive into the SDL.',
    );
  });

  it('counts as a bound for strictListSizes', () => {
    const relayOnly = buildSchema(`
      type Query { issues(first: Int): IssueConnection }
      type IssueConnection { nodes: [Issue] pageInfo: PageInfo! }
      type Issue { title: String }
      type PageInfo { hasNextPage: Boolean! }
    `);
    expect(() => createCostAnalyzer(relayOnly, { strictListSizes: true })).toThrow(CostSchemaError);
    expect(() => createCostAnalyzer(relayOnly, { strictListSizes: true, ...relay })).not.toThrow();
  });

  it('is an option of every entry point, refused by name when invalid', async () => {
    const bad = { inferListSizes: 'graphql' as never };
    expect(() => createCostAnalyzer(schema, bad)).toThrow(
      new RangeError('createCostAnalyzer: `inferListSizes` must be \'relay\' or false; got "graphql".'),
    );
    expect(() => queryBudgetPlugin({ identify: () => 'ann', ...bad })).toThrow(
      new RangeError('queryBudgetPlugin: `inferListSizes` must be \'relay\' or false; got "graphql".'),
    );
    expect(() => lintCostSchema(schema, bad)).toThrow(RangeError);
    const charge = (inferListSizes: 'relay' | false, key: string) =>
      chargeOperation({
        schema,
        document: parse('{ issues(first: 40) { nodes { title } } }'),
        key,
        policy: { capacity: 100, refillPerSecond: 0 },
        store: new MemoryBucketStore(),
        analyzer: { inferListSizes },
      });
    expect(await charge('relay', 'ann')).toMatchObject({ charged: 44 });
    expect(await charge(false, 'bob')).toMatchObject({ charged: 14 });
  });
});
