import { lexicographicSortSchema, parse, printSchema, Source } from 'graphql';
import { describe, expect, it } from 'vitest';
import { apiSchema, isSupergraph } from '../../src/cli/api-schema.js';
import { composeSupergraph } from './supergraph.js';

describe('apiSchema: the API schema of a supergraph, with graphql-js alone', () => {
  const composed = composeSupergraph();
  const sdl = composed.supergraphSdl;
  const printed = (schema: Parameters<typeof printSchema>[0]) => printSchema(lexicographicSortSchema(schema));

  it("is the schema Apollo's own federation code makes of it (what a gateway serves)", () => {
    const theirs = composed.schema.toAPISchema().toGraphQLJSSchema();
    expect(printed(apiSchema(parse(sdl)))).toEqual(printed(theirs));
  });

  it('hides what @inaccessible hides and keeps @deprecated', () => {
    const text = printSchema(apiSchema(parse(sdl)));
    expect(text).not.toMatch(/internal|secret|BITCOIN|Warehouse|hidden|join__|link__|@tag|@cost|@listSize/);
    expect(text).toContain('legacyCode: String @deprecated(reason: "Use id.")');
  });

  it('keeps the locations of the supergraph file', () => {
    const schema = apiSchema(parse(new Source(sdl, 'supergraph.graphql')));
    const node = schema.getQueryType()?.getFields().products?.astNode;
    expect(node?.loc?.source.name).toBe('supergraph.graphql');
  });

  it('tells a supergraph from a plain schema', () => {
    expect(isSupergraph(parse(sdl))).toBe(true);
    expect(isSupergraph(parse('type Query { a: Int }'))).toBe(false);
    expect(
      isSupergraph(parse('extend schema @link(url: "https://specs.apollo.dev/federation/v2.9") type Query { a: Int }')),
    ).toBe(false);
  });
});
