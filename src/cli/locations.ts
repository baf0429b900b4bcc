import { getLocation } from 'graphql';
import type { ASTNode, GraphQLError } from 'graphql';

/** `file:line:column` of a node parsed from a named source, or undefined when it has no location. */
export function whereIs(node: ASTNode | null | undefined): string | undefined {
  const loc = node?.loc;
  if (loc === undefined) return undefined;
  const { line, column } = getLocation(loc.source, loc.start);
  return `${loc.source.name}:${line}:${column}`;
}

/** A GraphQL error as one line, `file:line:column: message`, with the first place it points at. */
export function errorLine(error: GraphQLError, fallback: string): string {
  const place = error.source !== undefined && error.locations?.[0] !== undefined ? error.locations[0] : undefined;
  const where =
    place !== undefined
      ? `${error.source?.name}:${place.line}:${place.column}`
      : (whereIs(error.nodes?.[0]) ?? fallback);
  return `${where}: ${error.message}`;
}
