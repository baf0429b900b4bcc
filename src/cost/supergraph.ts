import { GraphQLError, buildASTSchema, parse } from 'graphql';
import type { GraphQLSchema } from 'graphql';
import { CostTable, IBM_READING, tableKind, type TableReading } from './cost-table.js';
import { CostSchemaError } from './errors.js';
import type { ListSizeInference } from './relay-connections.js';

/** API schema → (table kind (`tableKind`) → the supergraph SDL its table was read from, and the table). */
const tables = new WeakMap<GraphQLSchema, Map<string, { readonly sdl: string; readonly table: CostTable }>>();

/**
 * The cost table of a gateway's API schema, with the weights of its supergraph SDL: read once per
 * (schema, SDL, directive reading, list-size inference).
 *
 * @throws {CostSchemaError} as `CostTable` and `supergraphSchema`.
 */
export function supergraphCostTable(
  schema: GraphQLSchema,
  sdl: string,
  reading: TableReading = IBM_READING,
  inferListSizes: ListSizeInference | undefined = undefined,
): CostTable {
  const kind = tableKind(reading, inferListSizes);
  let byKind = tables.get(schema);
  const cached = byKind?.get(kind);
  if (cached?.sdl === sdl) return cached.table;
  const table = new CostTable(schema, supergraphSchema(sdl), reading, inferListSizes);
  if (byKind === undefined) {
    byKind = new Map();
    tables.set(schema, byKind);
  }
  byKind.set(kind, { sdl, table });
  return table;
}

/**
 * The supergraph of an Apollo Gateway, built from its SDL, as the schema to read `@cost` and
 * `@listSize` from (see `CostTable`'s `annotated`).
 *
 * A gateway's API schema (Apollo Server's `apiSchema`) is built without any directive on its
 * types and fields, so weights read from it are the defaults. Apollo Federation composition keeps
 * the subgraphs' cost directives in the supergraph (Apollo Federation "Demand control" directives,
 * merged per field), linked to Apollo's cost spec, e.g.
 * `@link(url: "https://specs.apollo.dev/cost/v0.1", import: ["@listSize"])`: their names are
 * resolved through the supergraph's `@link`s like a subgraph's, and they apply to the API schema's
 * types, fields and arguments by schema coordinate. The SDL is the one composition produced, so
 * graphql-js's SDL validation is skipped (`assumeValidSDL`); the cost engine checks what it reads.
 *
 * @throws {CostSchemaError} when the SDL does not parse or build.
 */
export function supergraphSchema(sdl: string): GraphQLSchema {
  try {
    return buildASTSchema(parse(sdl, { noLocation: true }), { assumeValidSDL: true });
  } catch (error) {
    if (!(error instanceof GraphQLError) && !(error instanceof TypeError)) throw error;
    throw new CostSchemaError([`supergraphSdl: the supergraph SDL cannot be read (${error.message}).`]);
  }
}
