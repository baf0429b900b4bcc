import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildSchema, parse, validate } from 'graphql';
import { describe, expect, it } from 'vitest';
import { createCostAnalyzer } from '../../src/cost/analyzer.js';

// Apollo Router's own demand-control test cases (test/fixtures/apollo-router/cases.json, from the
// `#[test]`s of its static_cost.rs; see the NOTICE there), priced with `costModel: 'apollo'` and
// the router's `list_size` as `defaultListSize`: `typeCost + fieldCost` must be the number the
// router's test asserts, for the estimate and for the actual cost of the response.

interface Case {
  test: string;
  schema: string;
  query?: string;
  operation?: string;
  variables?: Record<string, unknown>;
  listSize?: number;
  estimated?: number;
  response?: string;
  actual?: number;
}

const root = join(import.meta.dirname, '../fixtures/apollo-router');
const read = (file: string) => readFileSync(join(root, file), 'utf8');
const { listSize, cases } = JSON.parse(read('cases.json')) as { listSize: number; cases: Case[] };

// The router's API schema defines @defer; a schema built from SDL by graphql-js does not.
const defer = 'directive @defer(label: String, if: Boolean! = true) on FRAGMENT_SPREAD | INLINE_FRAGMENT\n';

describe("Apollo Router's demand-control test cases, under costModel: 'apollo'", () => {
  it('holds 52 cases: 51 estimates and 9 actual costs', () => {
    expect(cases).toHaveLength(52);
    expect(cases.filter((entry) => entry.estimated !== undefined)).toHaveLength(51);
    expect(cases.filter((entry) => entry.actual !== undefined)).toHaveLength(9);
  });

  it("differs from the IBM model's number, as docs/cost-model.md says: 100 against 102", () => {
    const named = cases.find((entry) => entry.test === 'federated_query_with_name') as Case;
    const schema = buildSchema(read(named.schema));
    const document = parse(read(named.query as string));
    const priced = (costModel: 'ibm' | 'apollo') => {
      const { typeCost, fieldCost } = createCostAnalyzer(schema, { costModel, defaultListSize: listSize }).estimate({
        document,
      });
      return typeCost + fieldCost;
    };
    // 'ibm': Query 1 + 100 Users + the users call 1.
    expect([priced('apollo'), priced('ibm')]).toEqual([100, 102]);
  });

  for (const entry of cases) {
    it(entry.test, () => {
      const schema = buildSchema(defer + read(entry.schema));
      const document = parse(entry.operation ?? read(entry.query as string));
      expect(validate(schema, document)).toEqual([]);
      const analyzer = createCostAnalyzer(schema, { costModel: 'apollo', defaultListSize: entry.listSize ?? listSize });
      const request = { document, variables: entry.variables ?? {} };
      if (entry.estimated !== undefined) {
        const { typeCost, fieldCost } = analyzer.estimate(request);
        expect(typeCost + fieldCost).toBe(entry.estimated);
      }
      if (entry.response !== undefined) {
        const { data } = JSON.parse(read(entry.response)) as { data: Record<string, unknown> };
        const { typeCost, fieldCost } = analyzer.actual({ ...request, data });
        expect(typeCost + fieldCost).toBe(entry.actual);
      }
    });
  }
});
