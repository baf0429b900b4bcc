import { GraphQLError, Kind, parse } from 'graphql';
import type { FieldDefinitionNode, OperationDefinitionNode, SelectionSetNode } from 'graphql';

/**
 * The selection a supergraph field requires from its type (Apollo Federation's join spec,
 * `@join__field(requires: "owner { addresses { zipCode } }")`), as Apollo Router's demand control
 * reads it: from the field's first `@join__field` application only, by that literal name. The
 * router adds the cost of this selection to the field's, since the query planner fetches it
 * whether or not the operation selects it. A `requires` that is not a selection is a problem
 * (pushed, starting with `coordinate`), as it fails the router's schema load.
 *
 * @returns the selection, or undefined when the field has none (or it is invalid).
 */
export function requiredSelection(
  node: FieldDefinitionNode | null | undefined,
  coordinate: string,
  problems: string[],
): SelectionSetNode | undefined {
  const join = node?.directives?.find((directive) => directive.name.value === 'join__field');
  const requires = join?.arguments?.find((argument) => argument.name.value === 'requires')?.value;
  if (requires?.kind !== Kind.STRING) return undefined;
  try {
    const document = parse(`{${requires.value}}`, { noLocation: true });
    if (document.definitions.length === 1) return (document.definitions[0] as OperationDefinitionNode).selectionSet;
  } catch (error) {
    if (!(error instanceof GraphQLError)) throw error;
  }
  problems.push(`${coordinate}: @join__field(requires: ${JSON.stringify(requires.value)}) is not a selection.`);
  return undefined;
}
