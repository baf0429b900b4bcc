import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildSchema, getIntrospectionQuery, graphqlSync, parse } from 'graphql';
import { afterAll, describe, expect, it } from 'vitest';
import { estimateCost } from '../../src/cost/analyzer.js';
import { cli, fixtureDir } from './run-cli.js';

// `graphql-budget annotate` run in this process on files in a temporary directory.

const relaySdl = `"""The root."""
type Query {
  issues(first: Int, last: Int, after: String): IssueConnection
  pinned(first: Int): IssueConnection @listSize(slicingArguments: ["first"], sizedFields: ["nodes"])
  tags: [Tag]
  names: [String]
  search(query: String): SearchResults @listSize(sizedFields: ["hits"])
}
type IssueConnection { edges: [IssueEdge] nodes: [Issue] pageInfo: PageInfo! }
type IssueEdge { node: Issue cursor: String }
"""An issue."""
type Issue { title: String @cost(weight: "2") }
type SearchResults { hits: [Issue] }
type Tag { name: String }
type PageInfo { hasNextPage: Boolean! }
`;
const introspection = graphqlSync({
  schema: buildSchema(relaySdl.replace(/ @\w+\([^)]*\)/g, '')),
  source: getIntrospectionQuery(),
});
const fixture = fixtureDir({
  'relay.graphql': relaySdl,
  'relay.json': JSON.stringify(introspection),
  'supergraph.graphql': readFileSync(new URL('../../examples/bookstore/schema.graphql', import.meta.url), 'utf8'),
});
afterAll(() => fixture.remove());
const annotate = (...args: string[]) => cli(['annotate', ...args], fixture.dir);

describe('annotate', () => {
  it('writes the inferred @listSize, and an assumedSize on the lists nothing else sizes, keeping what the SDL says', () => {
    const run = annotate('--schema', 'relay.graphql', '--infer-list-sizes', 'relay');
    expect(run.code).toBe(0);
    expect(run.err).toBe(
      [
        'relay.graphql: @listSize inferred (relay) on 1 field, with assumedSize: 10 for an operation that gives none of its slicing arguments (Query.issues).',
        'relay.graphql: @listSize(assumedSize: 10) on 1 list that nothing else sizes, the size each is priced at now: give each the most items it returns (Query.tags).',
        '',
      ].join('\n'),
    );
    const sdl = run.out;
    expect(sdl).toContain(
      'issues(first: Int, last: Int, after: String): IssueConnection @listSize(assumedSize: 10, slicingArguments: ["first", "last"], sizedFields: ["edges", "nodes"], requireOneSlicingArgument: false)',
    );
    expect(sdl).toContain(
      'pinned(first: Int): IssueConnection @listSize(slicingArguments: ["first"], sizedFields: ["nodes"])\n',
    );
    expect(sdl).toContain('tags: [Tag] @listSize(assumedSize: 10)\n');
    // A list of weightless leaves costs the same at any length; a field with a @listSize of its own keeps it alone.
    expect(sdl).toContain('names: [String]\n');
    expect(sdl).toContain('search(query: String): SearchResults @listSize(sizedFields: ["hits"])\n');
    expect(sdl).toContain('"""An issue."""\ntype Issue {\n  title: String @cost(weight: "2")\n}');
    // The definitions the SDL applies and lacked, as the schema loader adds them.
    expect(sdl).toContain('directive @cost(');
    expect(sdl).toContain('directive @listSize(');
  });

  it('prices as the inference does, and lints with no unsized list', () => {
    const annotated = fixtureDir({
      'annotated.graphql': annotate('-s', 'relay.graphql', '--infer-list-sizes', 'relay').out,
    });
    try {
      const lint = cli(['lint', '-s', 'annotated.graphql', '--json'], annotated.dir);
      const rules = (JSON.parse(lint.out) as { rule: string }[]).map((finding) => finding.rule);
      expect(rules).not.toContain('list-without-list-size');
      expect(cli(['lint', '-s', 'relay.graphql', '--json'], fixture.dir).out).toContain('list-without-list-size');
      const schema = buildSchema(readFileSync(join(annotated.dir, 'annotated.graphql'), 'utf8'));
      const original = buildSchema(
        `directive @listSize(assumedSize: Int, slicingArguments: [String!], sizedFields: [String!], requireOneSlicingArgument: Boolean = true) on FIELD_DEFINITION directive @cost(weight: String!) on FIELD_DEFINITION ${relaySdl}`,
      );
      for (const query of ['{ issues(first: 7) { nodes { title } } }', '{ issues { edges { node { title } } } }']) {
        const document = parse(query);
        expect(estimateCost({ schema, document })).toEqual(
          estimateCost({ schema: original, document, inferListSizes: 'relay' }),
        );
      }
    } finally {
      annotated.remove();
    }
  });

  it('annotates an introspection result, with the directive definition it needs', () => {
    const run = annotate('-s', 'relay.json', '--infer-list-sizes', 'relay', '--default-list-size', '25');
    expect(run.code).toBe(0);
    expect(run.out).toContain('tags: [Tag] @listSize(assumedSize: 25)\n');
    expect(run.out).toContain('directive @listSize(');
    expect(run.out).not.toContain('directive @cost(');
    const schema = buildSchema(run.out);
    expect(estimateCost({ schema, document: parse('{ pinned(first: 3) { nodes { title } } }') })).toEqual({
      typeCost: 1 + 1 + 3,
      fieldCost: 2,
    });
  });

  it('refuses what it cannot annotate', () => {
    expect(annotate('-s', 'relay.graphql')).toMatchObject({
      code: 2,
      err: 'graphql-budget: annotate needs --infer-list-sizes relay: it writes the @listSize the inference gives (see graphql-budget annotate --help).\n',
    });
    expect(annotate('-s', 'relay.graphql', '--infer-list-sizes', 'relay', '--default-list-size', '2.5')).toMatchObject({
      code: 2,
      err: expect.stringMatching(/^graphql-budget: --default-list-size must be an integer/),
    });
    expect(annotate('--infer-list-sizes', 'relay')).toMatchObject({
      code: 2,
      err: expect.stringMatching(/needs --schema/),
    });
    expect(annotate('-s', 'supergraph.graphql', '--infer-list-sizes', 'relay', 'x.graphql')).toMatchObject({
      code: 2,
      err: expect.stringMatching(/^graphql-budget: annotate takes no operations/),
    });
  });
});
