import { isInterfaceType, isObjectType } from 'graphql';
import type { GraphQLField } from 'graphql';
import type { CostTable, FieldCostRule } from './cost-table.js';
import { listsSizedByParents } from './sized-lists.js';

type AnyField = GraphQLField<unknown, unknown>;

/**
 * The list fields priced at `defaultListSize` for want of a bound, as `Type.field` with the field:
 * no slicing argument and no `assumedSize` of their own, no enclosing field's `sizedFields` naming
 * them, and a size that changes the price (not a scalar or enum list that weighs nothing). The
 * lint rule `list-without-list-size` reports them; `strictListSizes` refuses a schema that has any.
 */
export function unsizedLists(table: CostTable): { readonly coordinate: string; readonly field: AnyField }[] {
  const { schema } = table;
  const sizedByParents = listsSizedByParents(schema, table);
  const found: { coordinate: string; field: AnyField }[] = [];
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__') || !(isObjectType(type) || isInterfaceType(type))) continue;
    for (const field of Object.values(type.getFields()) as AnyField[]) {
      const rule = table.field(field);
      const coordinate = `${type.name}.${field.name}`;
      if (rule.listDepth > 0 && !ownListSized(rule) && !sizedByParents.has(coordinate) && sizeMatters(table, rule)) {
        found.push({ coordinate, field });
      }
    }
  }
  return found;
}

/** Whether the field's own `@listSize` bounds its own list (a slicing argument or `assumedSize`). */
function ownListSized(rule: FieldCostRule): boolean {
  return rule.listSizes.some(
    (listSize) =>
      listSize.sizedFields === undefined &&
      (listSize.assumedSize !== undefined || listSize.slicingArguments.length > 0),
  );
}

/** Whether the number of items changes the price: not for a scalar or enum list that weighs nothing. */
function sizeMatters(table: CostTable, rule: FieldCostRule): boolean {
  return !rule.returnsLeaf || rule.weight !== 0 || table.typeWeight(rule.namedType) !== 0;
}
