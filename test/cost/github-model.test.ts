import { buildSchema, getIntrospectionQuery, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { createCostAnalyzer, estimateCost } from '../../src/cost/analyzer.js';
import { costDirectivesTypeDefs } from '../../src/cost/directives.js';
import { CostAnalysisError, CostErrorCode } from '../../src/cost/errors.js';
import type { CostEstimate } from '../../src/cost/types.js';
import { GITHUB_EXAMPLES, githubSchema } from '../support/github-schema.js';
import { rejection } from './support.js';

const github = { costModel: 'github', inferListSizes: 'relay' } as const;

/** GitHub's numbers for an operation on its schema: points, and the requests and nodes the breakdown adds up to. */
function onGitHub(query: string, variables?: Record<string, unknown>) {
  const estimate = estimateCost({
    schema: githubSchema(),
    document: parse(query),
    variables,
    breakdown: true,
    ...github,
  });
  return { points: estimate.typeCost + estimate.fieldCost, ...counts(estimate) };
}

function counts(estimate: CostEstimate): { requests: number; nodes: number } {
  let requests = 0;
  let nodes = 0;
  for (const field of estimate.fields ?? []) {
    requests += field.multiplier * field.fieldCost;
    nodes += field.multiplier * (field.nodes ?? 0);
  }
  return { requests, nodes };
}

describe("costModel: 'github' on GitHub's schema: the worked examples of its documentation", () => {
  it('scores the example over 100 repositories, 50 issues each and 60 labels each: 5,101 requests, 51 points', () => {
    expect(onGitHub(GITHUB_EXAMPLES.score)).toEqual({ points: 51, requests: 1 + 100 + 5_000, nodes: 305_100 });
  });

  it('counts 550 nodes in the simple query', () => {
    expect(onGitHub(GITHUB_EXAMPLES.simpleNodes)).toEqual({ points: 1, requests: 51, nodes: 50 + 500 });
  });

  it('counts 22,060 nodes in the complex query', () => {
    expect(onGitHub(GITHUB_EXAMPLES.complexNodes)).toEqual({
      points: 21,
      requests: 1 + 50 + 1_000 + 50 + 1_000 + 1,
      nodes: 50 + 1_000 + 10_000 + 1_000 + 10_000 + 10,
    });
  });

  it('refuses more than 500,000 nodes with GitHub’s code and words', () => {
    const query = GITHUB_EXAMPLES.score
      .replace('labels(first: 60)', 'labels(first: $labels)')
      .replace('query {', 'query ($labels: Int) {');
    expect(onGitHub(query, { labels: 98 }).nodes).toBe(100 + 5_000 + 490_000);
    const error = rejection(() => onGitHub(query, { labels: 100 }));
    expect(error.code).toBe(CostErrorCode.nodeLimit);
    expect(error.extensions.code).toBe('MAX_NODE_LIMIT_EXCEEDED');
    expect(error.message).toBe(
      'This query requests up to 505,100 possible nodes which exceeds the maximum limit of 500,000.',
    );
  });

  it('costs at least 1 point', () => {
    expect(onGitHub('{ viewer { login } }')).toEqual({ points: 1, requests: 0, nodes: 0 });
  });

  it('prices the standard introspection query at 1 point, and refuses introspection beyond the node limit', () => {
    expect(onGitHub(getIntrospectionQuery()).points).toBe(1);
    // 52,170 objects each, ten times (graphql-js refuses deeper nesting: MaxIntrospectionDepthRule).
    const aliases = Array.from({ length: 10 }, (_, n) => `a${n}: types { fields { type { fields { name } } } }`);
    const nested = `{ __schema { ${aliases.join(' ')} } }`;
    expect(rejection(() => onGitHub(nested)).code).toBe(CostErrorCode.nodeLimit);
    const free = estimateCost({
      schema: githubSchema(),
      document: parse(nested),
      introspection: 'free',
      ...github,
    });
    expect(free).toEqual({ typeCost: 0, fieldCost: 1 });
  });
});

describe("costModel: 'github' on a schema of its own", () => {
  const schema = buildSchema(`${costDirectivesTypeDefs}
    type Query {
      repositories(first: Int): RepositoryConnection @listSize(slicingArguments: ["first"], sizedFields: ["nodes"])
      tags(first: Int): [String] @listSize(slicingArguments: ["first"])
      featured: [Repository] @listSize(assumedSize: 4) @cost(weight: "50")
      search(first: Int): [SearchResult] @listSize(slicingArguments: ["first"])
      everything: [Repository]
    }
    type Mutation { star(ids: [ID!]!): [Repository] @listSize(slicingArguments: ["ids"]) }
    union SearchResult = Repository | User
    type User { name: String }
    type RepositoryConnection { nodes: [Repository] pageInfo: PageInfo! }
    type Repository @cost(weight: "9") {
      name: String
      issues(first: Int): IssueConnection @listSize(slicingArguments: ["first"], sizedFields: ["nodes"])
    }
    type IssueConnection { nodes: [Issue] pageInfo: PageInfo! }
    type Issue { title: String }
    type PageInfo { hasNextPage: Boolean! }
  `);
  const analyzer = createCostAnalyzer(schema, { costModel: 'github' });
  const points = (query: string) => {
    const { typeCost, fieldCost } = analyzer.estimate({ document: parse(query) });
    expect(typeCost).toBe(0);
    return fieldCost;
  };
  const actual = (
    query: string,
    data: Record<string, unknown> | null | undefined,
    more: { errors?: { path: (string | number)[] }[]; incomplete?: boolean } = {},
  ) => {
    const { typeCost, fieldCost } = analyzer.actual({ document: parse(query), data, ...more });
    expect(typeCost).toBe(0);
    return fieldCost;
  };
  const repositories = '{ repositories(first: 300) { nodes { name issues(first: 5) { nodes { title } } } } }';
  const repos = (count: number) => ({
    repositories: { nodes: Array.from({ length: count }, () => ({ name: 'r', issues: { nodes: [] } })) },
  });

  it('counts a request per connection and per object it is fetched for, whatever @cost says', () => {
    // 1 + 300 requests: 3 points.
    expect(points(repositories)).toBe(3);
    // A list of its own with a slicing argument or an assumedSize is a connection too; a list of
    // leaves is one request.
    expect(points('{ featured { issues(first: 5) { nodes { title } } } tags(first: 1000) }')).toBe(1);
    const many = Array.from(
      { length: 60 },
      (_, index) => `f${index}: featured { issues(first: 1) { nodes { title } } }`,
    );
    // 60 × (1 + 4): 300 requests.
    expect(points(`{ ${many.join(' ')} }`)).toBe(3);
    // A list no @listSize sizes is no connection, but it multiplies the connections below it.
    expect(points('{ everything { issues(first: 5) { nodes { title } } } }')).toBe(1);
    expect(
      points(
        `{ ${Array.from({ length: 20 }, (_, i) => `e${i}: everything { issues(first: 1) { nodes { title } } }`).join(' ')} }`,
      ),
    ).toBe(2);
  });

  it('counts an interface or union at its costliest member', () => {
    // 1 + 150 repositories' issues connections.
    const query =
      '{ search(first: 150) { ... on Repository { issues(first: 2) { nodes { title } } } ... on User { name } } }';
    expect(points(query)).toBe(2);
  });

  it('prices a response by the connections it holds', () => {
    expect(actual(repositories, repos(120))).toBe(1);
    expect(actual(repositories, repos(249))).toBe(3);
    // Longer than first: the requests for the objects returned.
    expect(actual(repositories, repos(449))).toBe(5);
    expect(actual(repositories, { repositories: null })).toBe(1);
  });

  it('keeps the refund guarantees: what an error hid, a nulled root, an incomplete response, a mutation', () => {
    expect(actual(repositories, undefined)).toBe(0);
    expect(actual(repositories, null)).toBe(3);
    expect(actual(repositories, { repositories: null }, { errors: [{ path: ['repositories'] }] })).toBe(3);
    // One repository an error nulled counts its estimate (1 request for its issues).
    const oneHidden = repos(148) as { repositories: { nodes: unknown[] } };
    oneHidden.repositories.nodes.push(null);
    // 1 + 148 requests: 1 point; with the hidden repository's 1 more, 150: 2 points.
    expect(actual(repositories, oneHidden)).toBe(1);
    expect(actual(repositories, oneHidden, { errors: [{ path: ['repositories', 'nodes', 148] }] })).toBe(2);
    expect(actual(repositories, repos(10), { incomplete: true })).toBe(3);
    const star = 'mutation { star(ids: ["1", "2"]) { issues(first: 1) { nodes { title } } } }';
    expect(points(star)).toBe(1);
    expect(actual(star, { star: [] })).toBe(1);
  });

  it('is a cost model like the others: chosen by name, not with estimators', () => {
    expect(() => createCostAnalyzer(schema, { costModel: 'github', estimators: [() => 1] })).toThrow(
      /cannot be combined with `costModel: 'github'`/,
    );
    expect(rejection(() => points('{ repositories(first: -1) { nodes { name } } }'))).toBeInstanceOf(CostAnalysisError);
  });
});
