import { GraphQLError, Kind, Source, buildASTSchema, buildClientSchema, parse, validateSchema, visit } from 'graphql';
import type { DefinitionNode, DocumentNode, GraphQLSchema, IntrospectionQuery } from 'graphql';
import { costDirectivesTypeDefs } from '../cost/directives.js';
import { apiSchema, isSupergraph } from './api-schema.js';
import { InputError, isStackOverflow } from './errors.js';
import { errorLine, whereIs } from './locations.js';
import { tooDeepLine } from './nesting.js';
import { validateSdl } from './sdl-validation.js';
import { filesOf, parseJson, readSource, type SourceFile } from './source-files.js';

/** SDL file names, as read from a directory given to `--schema`. */
const SDL_EXTENSIONS = ['.graphql', '.graphqls', '.gql'];

/** What a `--schema` names: SDL files merged, an introspection result, or a Federation supergraph. */
export type SchemaKind = 'sdl' | 'introspection' | 'supergraph';

export interface LoadedSchema {
  readonly kind: SchemaKind;
  /** The schema operations are validated and priced against (a supergraph's API schema). */
  readonly schema: GraphQLSchema;
  /** A supergraph's SDL, which the weights are read from (as the plugin on a gateway reads them). */
  readonly supergraphSdl: string | undefined;
  /** The schema whose definitions carry the files' locations, to point at a schema coordinate. */
  readonly located: GraphQLSchema;
  /** The files read, as named to the user. */
  readonly files: readonly string[];
  /** What the user should know about how the schema was read, for standard error. */
  readonly warnings: readonly string[];
}

/**
 * Reads the schema that `--schema` names (each path a file, a directory or a glob):
 *
 * - `.json`: an introspection result (`{ "data": { "__schema": … } }` or `{ "__schema": … }`),
 *   alone. It carries no applied directives, so every weight and list size is the default.
 * - one SDL file that links Apollo's join spec: a Federation supergraph, priced as a gateway's
 *   plugin prices it (its API schema, weights read from the supergraph).
 * - otherwise SDL files (`.graphql`, `.graphqls`, `.gql`, or any other name given), merged into one
 *   schema. `@cost` and `@listSize` may be used without their definitions: those that are used and
 *   not defined are added, as `costDirectivesTypeDefs` adds them to a server's typeDefs.
 *
 * @throws {InputError} naming the file, line and column of every problem: a file that cannot be
 * read, a syntax error, SDL that does not build, an invalid introspection result.
 */
export function loadSchema(paths: readonly string[], cwd: string): LoadedSchema {
  const absolute = [...new Set(paths.flatMap((path) => filesOf(path, cwd, SDL_EXTENSIONS, 'schema')))];
  const sources = absolute.map((file) => readSource(file, cwd));
  const files = sources.map((source) => source.name);
  const json = sources.filter((source) => source.name.endsWith('.json'));
  if (json.length > 0) {
    if (sources.length > 1) {
      throw new InputError([
        `${files.join(', ')}: an introspection result (${json[0]?.name}) is a whole schema; give it alone to --schema.`,
      ]);
    }
    const schema = introspectionSchema(json[0] as SourceFile);
    const warning =
      `${files[0]}: an introspection result carries no applied directives, so every @cost weight and ` +
      '@listSize is the default here; price against the SDL (or a supergraph) for the real weights.';
    return { kind: 'introspection', schema, supergraphSdl: undefined, located: schema, files, warnings: [warning] };
  }
  const documents = sources.map(parsed);
  const supergraph = documents.findIndex(isSupergraph);
  if (supergraph !== -1) {
    if (sources.length > 1) {
      throw new InputError([
        `${files.join(', ')}: ${files[supergraph]} is a Federation supergraph, a whole schema; give it alone to --schema.`,
      ]);
    }
    const document = documents[0] as DocumentNode;
    try {
      return {
        kind: 'supergraph',
        schema: apiSchema(document),
        supergraphSdl: (sources[0] as SourceFile).text,
        located: buildASTSchema(document, { assumeValidSDL: true }),
        files,
        warnings: [],
      };
    } catch (error) {
      throw new InputError([`${files[0]}: the supergraph does not build (${(error as Error).message})`]);
    }
  }
  const schema = sdlSchema(documents, files);
  return { kind: 'sdl', schema, supergraphSdl: undefined, located: schema, files, warnings: [] };
}

/** A schema file's document, checked to hold no operation. */
function parsed(source: SourceFile): DocumentNode {
  let document: DocumentNode;
  try {
    document = parse(new Source(source.text, source.name));
  } catch (error) {
    if (error instanceof GraphQLError) throw new InputError([errorLine(error, source.name)]);
    if (isStackOverflow(error)) throw new InputError([tooDeepLine(source.name, source.text, 'parse')]);
    throw error;
  }
  const executable = document.definitions.find(
    (definition) => definition.kind === Kind.OPERATION_DEFINITION || definition.kind === Kind.FRAGMENT_DEFINITION,
  );
  if (executable !== undefined) {
    throw new InputError([
      `${whereIs(executable) ?? source.name}: ${source.name} holds operations, not a schema; ` +
        'give operation files as arguments, not to --schema.',
    ]);
  }
  return document;
}

function introspectionSchema(source: SourceFile): GraphQLSchema {
  const value = parseJson(source) as { data?: IntrospectionQuery; __schema?: unknown } | null;
  const result = value !== null && typeof value === 'object' && value.__schema === undefined ? value.data : value;
  if (result === null || typeof result !== 'object' || !('__schema' in result)) {
    throw new InputError([`${source.name}: not an introspection result (no "__schema", nor "data.__schema").`]);
  }
  try {
    return buildClientSchema(result as IntrospectionQuery);
  } catch (error) {
    throw new InputError([`${source.name}: not a usable introspection result (${(error as Error).message})`]);
  }
}

/** The SDL documents merged, with the cost directive definitions they use and lack, built and validated. */
function sdlSchema(documents: readonly DocumentNode[], files: readonly string[]): GraphQLSchema {
  const definitions: DefinitionNode[] = documents.flatMap((document) => document.definitions);
  const merged: DocumentNode = {
    kind: Kind.DOCUMENT,
    definitions: [...definitions, ...missingCostDirectives(definitions)],
  };
  const sdlErrors = validateSdl(merged);
  if (sdlErrors.length > 0) throw new InputError(sdlErrors.map((error) => errorLine(error, files.join(', '))));
  let schema: GraphQLSchema;
  try {
    schema = buildASTSchema(merged, { assumeValidSDL: true });
  } catch (error) {
    throw new InputError([`${files.join(', ')}: the schema does not build (${(error as Error).message})`]);
  }
  const schemaErrors = validateSchema(schema);
  if (schemaErrors.length > 0) throw new InputError(schemaErrors.map((error) => errorLine(error, files.join(', '))));
  return schema;
}

/** The definitions of `@cost` and `@listSize` that the definitions apply but do not define. */
function missingCostDirectives(definitions: readonly DefinitionNode[]): DefinitionNode[] {
  const defined = new Set<string>();
  const applied = new Set<string>();
  for (const definition of definitions) {
    if (definition.kind === Kind.DIRECTIVE_DEFINITION) defined.add(definition.name.value);
    visit(definition, {
      Directive(node) {
        applied.add(node.name.value);
      },
    });
  }
  const library = parse(new Source(costDirectivesTypeDefs, 'graphql-budget costDirectivesTypeDefs'));
  return library.definitions.filter(
    (definition) =>
      definition.kind === Kind.DIRECTIVE_DEFINITION &&
      applied.has(definition.name.value) &&
      !defined.has(definition.name.value),
  );
}
