import {
  Kind,
  isSpecifiedDirective,
  isSpecifiedScalarType,
  parse,
  print,
  printSchema,
  visit,
  type ConstDirectiveNode,
  type ConstValueNode,
  type DefinitionNode,
  type DocumentNode,
  type FieldDefinitionNode,
  type GraphQLSchema,
} from 'graphql';
import { costTableOf } from '../cost/analyzer.js';
import { IBM_READING } from '../cost/cost-table.js';
import { costDirectivesTypeDefs } from '../cost/directives.js';
import { costDirectiveNames } from '../cost/link-names.js';
import type { ListSizeInference } from '../cost/relay-connections.js';
import { unsizedLists } from '../cost/unsized-lists.js';

/** What `annotatedSdl` wrote, and where. */
export interface AnnotatedSdl {
  /** The schema's SDL with the `@listSize` directives written in (and its definition where it lacked one). */
  readonly sdl: string;
  /** `Type.field` of each field given the `@listSize` the inference gives it. */
  readonly inferred: readonly string[];
  /** `Type.field` of each list nothing else sizes, given `@listSize(assumedSize:)` at the size it is priced at. */
  readonly assumed: readonly string[];
}

/**
 * The schema's SDL with the list sizes the engine prices it with written in as `@listSize`, for
 * owners who prefer explicit annotations to `inferListSizes`: each field the inference gives a
 * `@listSize` gets that directive, with `assumedSize: defaultListSize` for an operation that gives
 * none of its slicing arguments (the size the inference prices such an operation at, now written
 * where its owner sees it), and each list that nothing sizes even then (the lint rule
 * `list-without-list-size`) gets `@listSize(assumedSize: defaultListSize)`, the size it is priced
 * at, for its owner to correct. A field's `@listSize` of its own is kept as it is, and a field that
 * has one is given no other.
 *
 * The SDL is printed from the files' definitions (their applied directives and descriptions kept,
 * comments not), or from the schema (an introspection result, which carries no applied directives).
 * The definition of `@listSize` is added where the schema has none.
 */
export function annotatedSdl(
  schema: GraphQLSchema,
  inference: ListSizeInference,
  defaultListSize: number,
): AnnotatedSdl {
  const table = costTableOf(schema, undefined, IBM_READING, inference);
  const names = costDirectiveNames(schema);
  const annotations = new Map<string, ConstDirectiveNode>();
  for (const { coordinate, listSize } of table.inferredFields) {
    annotations.set(
      coordinate,
      directive(names.listSize, {
        assumedSize: defaultListSize,
        slicingArguments: listSize.slicingArguments,
        sizedFields: listSize.sizedFields,
        requireOneSlicingArgument: false,
      }),
    );
  }
  const assumed: string[] = [];
  for (const { coordinate, field } of unsizedLists(table)) {
    // A field with a @listSize of its own (one that sizes other lists only) is left to its owner.
    if (table.field(field).ownListSizes.length > 0) continue;
    annotations.set(coordinate, directive(names.listSize, { assumedSize: defaultListSize }));
    assumed.push(coordinate);
  }
  const written = new Set<string>();
  const annotate = (typeName: string, field: FieldDefinitionNode): FieldDefinitionNode | undefined => {
    const coordinate = `${typeName}.${field.name.value}`;
    const annotation = annotations.get(coordinate);
    if (annotation === undefined || written.has(coordinate)) return undefined;
    written.add(coordinate);
    return { ...field, directives: [...(field.directives ?? []), annotation] };
  };
  const fieldsOf = {
    enter(node: { readonly name: { readonly value: string }; readonly fields?: readonly FieldDefinitionNode[] }) {
      const fields = node.fields?.map((field) => annotate(node.name.value, field) ?? field);
      return fields === undefined ? undefined : { ...node, fields };
    },
  };
  const annotated = visit(documentOf(schema), {
    ObjectTypeDefinition: fieldsOf,
    ObjectTypeExtension: fieldsOf,
    InterfaceTypeDefinition: fieldsOf,
    InterfaceTypeExtension: fieldsOf,
  });
  const definitions = names.link === undefined ? missingDefinitions(schema, [names.listSize]) : [];
  const document: DocumentNode = { kind: Kind.DOCUMENT, definitions: [...definitions, ...annotated.definitions] };
  return {
    sdl: `${print(document)}\n`,
    inferred: table.inferredFields.map(({ coordinate }) => coordinate),
    assumed,
  };
}

/** The schema's definitions as the files wrote them, or, for a schema built without SDL, as printed. */
function documentOf(schema: GraphQLSchema): DocumentNode {
  const types = Object.values(schema.getTypeMap()).filter(
    (type) => !type.name.startsWith('__') && !isSpecifiedScalarType(type),
  );
  if (types.some((type) => type.astNode === undefined || type.astNode === null)) return parse(printSchema(schema));
  const definitions: DefinitionNode[] = [];
  if (schema.astNode) definitions.push(schema.astNode);
  definitions.push(...schema.extensionASTNodes);
  for (const definition of schema.getDirectives()) {
    if (!isSpecifiedDirective(definition) && definition.astNode) definitions.push(definition.astNode);
  }
  for (const type of types) definitions.push(type.astNode as DefinitionNode, ...type.extensionASTNodes);
  return { kind: Kind.DOCUMENT, definitions };
}

/** The library's definitions of the cost directives named `names` that the schema does not define. */
function missingDefinitions(schema: GraphQLSchema, names: readonly string[]): DefinitionNode[] {
  return parse(costDirectivesTypeDefs).definitions.filter(
    (definition) =>
      definition.kind === Kind.DIRECTIVE_DEFINITION &&
      names.includes(definition.name.value) &&
      !schema.getDirective(definition.name.value),
  );
}

function directive(
  name: string,
  args: Readonly<Record<string, number | boolean | readonly string[]>>,
): ConstDirectiveNode {
  const value = (item: number | boolean | readonly string[]): ConstValueNode => {
    if (typeof item === 'number') return { kind: Kind.INT, value: String(item) };
    if (typeof item === 'boolean') return { kind: Kind.BOOLEAN, value: item };
    return { kind: Kind.LIST, values: item.map((text) => ({ kind: Kind.STRING, value: text })) };
  };
  return {
    kind: Kind.DIRECTIVE,
    name: { kind: Kind.NAME, value: name },
    arguments: Object.entries(args).map(([argName, item]) => ({
      kind: Kind.ARGUMENT,
      name: { kind: Kind.NAME, value: argName },
      value: value(item),
    })),
  };
}
