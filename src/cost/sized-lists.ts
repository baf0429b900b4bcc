import { getNamedType, isAbstractType, isInterfaceType, isObjectType } from 'graphql';
import type { GraphQLField, GraphQLNamedType, GraphQLSchema } from 'graphql';
import type { CostTable } from './cost-table.js';
import type { SizedFieldTree } from './sized-fields.js';

type AnyField = GraphQLField<unknown, unknown>;

/**
 * `Type.field` of every list field that some field's `@listSize(sizedFields:)` names, following
 * each path from the type the field returns (for an interface, also on the types implementing it,
 * as pricing reads the names on the runtime type).
 */
export function listsSizedByParents(schema: GraphQLSchema, table: CostTable): Set<string> {
  const sized = new Set<string>();
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__') || !(isObjectType(type) || isInterfaceType(type))) continue;
    for (const field of Object.values(type.getFields()) as AnyField[]) {
      for (const listSize of table.field(field).listSizes) {
        if (listSize.sizedFields !== undefined)
          markSized(schema, getNamedType(field.type), listSize.sizedFields, sized);
      }
    }
  }
  return sized;
}

function markSized(schema: GraphQLSchema, type: GraphQLNamedType, tree: SizedFieldTree, into: Set<string>): void {
  const holders = isAbstractType(type) ? [type, ...schema.getPossibleTypes(type)] : [type];
  for (const holder of holders) {
    if (!isObjectType(holder) && !isInterfaceType(holder)) continue;
    for (const name of tree.sized) into.add(`${holder.name}.${name}`);
    for (const [name, below] of tree.below) {
      const next = holder.getFields()[name];
      if (next !== undefined) markSized(schema, getNamedType(next.type), below, into);
    }
  }
}

/** Every field name a sized-field tree ends at. */
export function sizedFieldNames(tree: SizedFieldTree): Set<string> {
  const names = new Set(tree.sized);
  for (const below of tree.below.values()) for (const name of sizedFieldNames(below)) names.add(name);
  return names;
}
