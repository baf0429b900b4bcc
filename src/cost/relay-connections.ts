import { getNamedType, getNullableType, isInterfaceType, isListType, isObjectType, isScalarType } from 'graphql';
import type { GraphQLField, GraphQLOutputType } from 'graphql';

type AnyField = GraphQLField<unknown, unknown>;

/** How `inferListSizes` sizes the lists of a schema that carries no `@listSize` of its own. */
export type ListSizeInference = 'relay';

/** The `@listSize` arguments a Relay connection field is priced as if it carried. */
export interface InferredListSize {
  /** `["first", "last"]`, or the one of them the field has. */
  readonly slicingArguments: readonly string[];
  /** `["edges", "nodes"]`, or the one of them the connection has. */
  readonly sizedFields: readonly string[];
  readonly requireOneSlicingArgument: false;
}

/**
 * The `@listSize` a field is priced with under `inferListSizes: 'relay'` (GraphQL Cursor
 * Connections Specification, "Connection Types" and "Arguments"): a field that returns one
 * connection (an object or interface with a `pageInfo` field and `edges`, a list of objects with a
 * `node`, and/or `nodes`, a list), with an Int `first` and/or `last` argument, is priced as if it
 * carried `@listSize(slicingArguments: ["first", "last"], sizedFields: ["edges", "nodes"],
 * requireOneSlicingArgument: false)`, naming only the arguments and lists it has. Undefined for any
 * other field. An operation that gives neither argument gets the connection's lists at
 * `defaultListSize`, as the spec's `@listSize` without `assumedSize` does.
 */
export function relayListSize(field: AnyField): InferredListSize | undefined {
  if (isListType(getNullableType(field.type))) return undefined;
  const connection = getNamedType(field.type);
  if (!isObjectType(connection) && !isInterfaceType(connection)) return undefined;
  const fields = connection.getFields();
  if (fields.pageInfo === undefined) return undefined;
  const sizedFields: string[] = [];
  const edges = fields.edges;
  if (edges !== undefined && isList(edges.type)) {
    const edge = getNamedType(edges.type);
    if ((isObjectType(edge) || isInterfaceType(edge)) && edge.getFields().node !== undefined) sizedFields.push('edges');
  }
  if (fields.nodes !== undefined && isList(fields.nodes.type)) sizedFields.push('nodes');
  if (sizedFields.length === 0) return undefined;
  const slicingArguments = ['first', 'last'].filter((name) => {
    const arg = field.args.find((candidate) => candidate.name === name);
    const type = arg === undefined ? undefined : getNullableType(arg.type);
    return isScalarType(type) && type.name === 'Int';
  });
  if (slicingArguments.length === 0) return undefined;
  return { slicingArguments, sizedFields, requireOneSlicingArgument: false };
}

function isList(type: GraphQLOutputType): boolean {
  return isListType(getNullableType(type));
}

/** The directive an inferred rule stands for, as SDL: `@listSize(slicingArguments: ["first", "last"], …)`. */
export function listSizeText(listSize: InferredListSize, name = 'listSize'): string {
  const list = (names: readonly string[]) => `[${names.map((item) => JSON.stringify(item)).join(', ')}]`;
  return (
    `@${name}(slicingArguments: ${list(listSize.slicingArguments)}, sizedFields: ${list(listSize.sizedFields)}, ` +
    'requireOneSlicingArgument: false)'
  );
}
