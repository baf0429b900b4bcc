import { getArgumentValues, getNamedType, isAbstractType, isObjectType } from 'graphql';
import type { FieldNode, GraphQLObjectType, SelectionSetNode } from 'graphql';
import type { CostTable } from './cost-table.js';
import { checkSlicingBounds, fieldDefinition } from './field-call.js';
import type { FieldCollector } from './field-collector.js';
import type { ResolvedOperation } from './operation.js';

/**
 * Walks an operation's fields as execution collects them and throws `COST_LIST_SIZE_OUT_OF_RANGE`
 * at the first slicing argument (of a field's `@listSize`) asking for a size outside
 * [0, `maxListSize`]. Nothing is priced: this is the bound for the graphql-query-complexity path,
 * whose estimators price lists their own way. Each (type, selection sets) is walked once.
 */
export function checkListSizeBounds(
  table: CostTable,
  operation: ResolvedOperation,
  collector: FieldCollector,
  maxListSize: number,
): void {
  if (maxListSize === Number.POSITIVE_INFINITY) return;
  const walked = new Set<string>();
  const variables = operation.variables as Record<string, unknown>;
  const walk = (type: GraphQLObjectType, selectionSets: readonly SelectionSetNode[]): void => {
    const key = `${type.name}:${collector.keyOf(selectionSets)}`;
    if (walked.has(key)) return;
    walked.add(key);
    for (const [, nodes] of collector.collect(type, selectionSets, key)) {
      collector.tick();
      const first = nodes[0] as FieldNode;
      const definition = fieldDefinition(table.schema, type, first.name.value);
      if (definition === undefined) continue;
      const rule = table.field(definition);
      if (rule.listSizes.length > 0) {
        const args = getArgumentValues(definition, first, variables);
        for (const listSize of rule.listSizes) {
          checkSlicingBounds(listSize, args, `${type.name}.${definition.name}`, first, maxListSize);
        }
      }
      if (rule.returnsLeaf) continue;
      const below = nodes.map((node) => node.selectionSet as SelectionSetNode);
      const named = getNamedType(definition.type);
      if (isObjectType(named)) walk(named, below);
      else if (isAbstractType(named))
        for (const possible of table.schema.getPossibleTypes(named)) walk(possible, below);
    }
  };
  walk(operation.rootType, [operation.operation.selectionSet]);
}
