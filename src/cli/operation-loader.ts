import { GraphQLError, Kind, Source, getOperationAST, parse, specifiedRules, validate, visit } from 'graphql';
import type {
  DefinitionNode,
  DocumentNode,
  FragmentDefinitionNode,
  GraphQLSchema,
  OperationDefinitionNode,
} from 'graphql';
import { InputError, isStackOverflow } from './errors.js';
import { errorLine, whereIs } from './locations.js';
import { deepestNesting, tooDeepLine } from './nesting.js';
import { filesOf, parseJson, readSource, type SourceFile } from './source-files.js';

/** Operation file names, as read from a directory. */
const OPERATION_EXTENSIONS = ['.graphql', '.gql'];

/** The `format` of an Apollo persisted query manifest (`generate-persisted-query-manifest`). */
const MANIFEST_FORMAT = 'apollo-persisted-query-manifest';

/** One operation a client sends, read from a file and validated against the schema. */
export interface LoadedOperation {
  /** The file it comes from, as printed. */
  readonly file: string;
  /** Its name; null for an anonymous operation. */
  readonly name: string | null;
  /** The operation and the fragments it spreads: the document a client sends. */
  readonly document: DocumentNode;
  readonly operation: OperationDefinitionNode;
}

/** The operations that validated, and one line per problem with the others. */
export interface LoadedOperations {
  readonly operations: readonly LoadedOperation[];
  readonly errors: readonly string[];
}

/** An operation as read, before validation, with the document it is validated in. */
interface Candidate extends LoadedOperation {
  /** Where the operation's definition is, for messages that have no location of their own. */
  readonly where: string;
}

/**
 * Reads the operations the positional arguments name, each a file, a directory (its `.graphql`
 * and `.gql` files) or a glob:
 *
 * - a `.json` file is an Apollo persisted query manifest (`{ format: "apollo-persisted-query-manifest",
 *   operations: [{ id, name, type, body }] }`): one operation per entry, its body a whole document;
 *   messages name the entry as `manifest.json#Name` and the line in its body;
 * - any other file is GraphQL: every operation in it, each with the fragments it spreads, from the
 *   same file or, failing that, from another file read (as a client's build merges them).
 *
 * Each operation is validated against the schema (graphql-js's `validate`, as a server does);
 * those that do not validate are left out and their errors returned, `file:line:column: message`.
 *
 * @throws {InputError} when a path names no file.
 */
export function loadOperations(paths: readonly string[], cwd: string, schema: GraphQLSchema): LoadedOperations {
  const absolute = [...new Set(paths.flatMap((path) => filesOf(path, cwd, OPERATION_EXTENSIONS, 'operations')))];
  const errors: string[] = [];
  const candidates: Candidate[] = [];
  const files: { source: SourceFile; document: DocumentNode }[] = [];
  for (const file of absolute) {
    try {
      const source = readSource(file, cwd);
      if (source.name.endsWith('.json')) candidates.push(...manifestOperations(source));
      else files.push({ source, document: graphqlDocument(source) });
    } catch (error) {
      if (!(error instanceof InputError)) throw error;
      errors.push(...error.lines);
    }
  }
  const pool = new Map<string, FragmentDefinitionNode>();
  for (const { document } of files) {
    for (const fragment of fragmentsOf(document).values())
      if (!pool.has(fragment.name.value)) pool.set(fragment.name.value, fragment);
  }
  for (const { source, document } of files) {
    const local = fragmentsOf(document);
    for (const definition of document.definitions) {
      if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
      candidates.push({
        file: source.name,
        name: definition.name?.value ?? null,
        document: withFragments(definition, local, pool),
        operation: definition,
        where: whereIs(definition) ?? source.name,
      });
    }
  }
  const operations: LoadedOperation[] = [];
  const reported = new Set<string>();
  for (const candidate of candidates) {
    let problems: readonly GraphQLError[];
    try {
      problems = validate(schema, candidate.document, specifiedRules);
    } catch (error) {
      if (!isStackOverflow(error)) throw error;
      const { name, depth } = nestingOf(candidate.operation);
      errors.push(`${candidate.where}: ${name} is nested ${depth ?? 'too'} levels deep, too deep to validate.`);
      continue;
    }
    if (problems.length === 0) {
      operations.push({
        file: candidate.file,
        name: candidate.name,
        document: candidate.document,
        operation: candidate.operation,
      });
      continue;
    }
    // A fragment shared by several operations is reported once.
    for (const line of problems.map((problem) => errorLine(problem, candidate.where))) {
      if (!reported.has(line)) errors.push(line);
      reported.add(line);
    }
  }
  return { operations, errors };
}

/** A GraphQL file's document, checked to hold only operations and fragments. */
function graphqlDocument(source: SourceFile): DocumentNode {
  let document: DocumentNode;
  try {
    document = parse(new Source(source.text, source.name));
  } catch (error) {
    if (error instanceof GraphQLError) throw new InputError([errorLine(error, source.name)]);
    if (isStackOverflow(error)) throw new InputError([tooDeepLine(source.name, source.text, 'parse')]);
    throw error;
  }
  const schemaDefinitions = document.definitions.filter(
    (definition) => definition.kind !== Kind.OPERATION_DEFINITION && definition.kind !== Kind.FRAGMENT_DEFINITION,
  );
  if (schemaDefinitions.length > 0) {
    const first = schemaDefinitions[0] as DefinitionNode;
    throw new InputError([
      `${whereIs(first) ?? source.name}: ${source.name} holds schema definitions, not operations; ` +
        'give schema files to --schema.',
    ]);
  }
  return document;
}

/** The operations of a persisted query manifest, one per entry. */
function manifestOperations(source: SourceFile): Candidate[] {
  const manifest = parseJson(source) as { format?: unknown; operations?: unknown } | null;
  if (manifest === null || typeof manifest !== 'object' || manifest.format !== MANIFEST_FORMAT) {
    throw new InputError([
      `${source.name}: not an Apollo persisted query manifest (its "format" must be "${MANIFEST_FORMAT}").`,
    ]);
  }
  if (!Array.isArray(manifest.operations)) {
    throw new InputError([`${source.name}: a persisted query manifest's "operations" must be an array.`]);
  }
  const candidates: Candidate[] = [];
  const problems: string[] = [];
  (manifest.operations as unknown[]).forEach((entry, index) => {
    const { id, name, body } = (entry ?? {}) as { id?: unknown; name?: unknown; body?: unknown };
    const label = typeof name === 'string' ? name : typeof id === 'string' ? id : `operations[${index}]`;
    const where = `${source.name}#${label}`;
    if (typeof body !== 'string') {
      problems.push(`${where}: the entry has no "body" string.`);
      return;
    }
    let document: DocumentNode;
    try {
      document = parse(new Source(body, where));
    } catch (error) {
      if (isStackOverflow(error)) problems.push(tooDeepLine(where, body, 'parse'));
      else if (error instanceof GraphQLError) problems.push(errorLine(error, where));
      else throw error;
      return;
    }
    const operation = getOperationAST(document, typeof name === 'string' ? name : undefined);
    if (operation === null || operation === undefined) {
      problems.push(`${where}: its body holds no operation named ${JSON.stringify(name)}.`);
      return;
    }
    candidates.push({ file: source.name, name: operation.name?.value ?? null, document, operation, where });
  });
  if (problems.length > 0) throw new InputError(problems);
  return candidates;
}

function fragmentsOf(document: DocumentNode): Map<string, FragmentDefinitionNode> {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION && !fragments.has(definition.name.value)) {
      fragments.set(definition.name.value, definition);
    }
  }
  return fragments;
}

/** The operation and every fragment it spreads, directly or not: the file's own first, else the pool's. */
function withFragments(
  operation: OperationDefinitionNode,
  local: ReadonlyMap<string, FragmentDefinitionNode>,
  pool: ReadonlyMap<string, FragmentDefinitionNode>,
): DocumentNode {
  const needed = new Map<string, FragmentDefinitionNode>();
  const pending: (OperationDefinitionNode | FragmentDefinitionNode)[] = [operation];
  for (let node = pending.pop(); node !== undefined; node = pending.pop()) {
    visit(node, {
      FragmentSpread(spread) {
        const name = spread.name.value;
        const fragment = local.get(name) ?? pool.get(name);
        if (fragment === undefined || needed.has(name)) return;
        needed.set(name, fragment);
        pending.push(fragment);
      },
    });
  }
  return { kind: Kind.DOCUMENT, definitions: [operation, ...needed.values()] };
}

/** An operation's name as messages give it, and how deep it is nested (its selections, lists and arguments). */
export function nestingOf(operation: OperationDefinitionNode): { name: string; depth: number | undefined } {
  const loc = operation.loc;
  return {
    name: operation.name === undefined ? 'the operation' : `operation ${operation.name.value}`,
    depth: loc === undefined ? undefined : deepestNesting(loc.source.body.slice(loc.start, loc.end)).depth,
  };
}
