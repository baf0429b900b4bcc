import {
  GraphQLIncludeDirective,
  GraphQLSkipDirective,
  Kind,
  TypeInfo,
  getNamedType,
  isAbstractType,
  isInputObjectType,
  visit,
  visitWithTypeInfo,
  type ArgumentNode,
  type DocumentNode,
  type GraphQLArgument,
  type GraphQLField,
  type OperationDefinitionNode,
  type ValueNode,
  type VariableDefinitionNode,
} from 'graphql';
import type { CostTable } from './cost-table.js';

type AnyField = GraphQLField<unknown, unknown>;

/**
 * The variables of an operation whose values can change its price, as the IBM and Apollo models
 * read them: those used anywhere in the value of a slicing argument (the first name of a
 * `@listSize` path), of an argument or directive argument that may weigh something (its own
 * weight, or an input object's), of `@skip` / `@include` (which decide what is priced), or of an
 * introspection field's arguments (`__type(name:)`). The operation's other variables are never
 * read nor coerced to price it, so a client's large variable that prices nothing costs the
 * pricing nothing (`all` returns every definition: graphql-query-complexity's estimators read
 * every argument).
 *
 * Read once per operation node with `TypeInfo` over the operation and the document's fragments.
 */
export function pricedVariables(
  table: CostTable,
  document: DocumentNode,
  operation: OperationDefinitionNode,
): readonly VariableDefinitionNode[] {
  const definitions = operation.variableDefinitions ?? [];
  if (definitions.length === 0) return definitions;
  let byOperation = known.get(table);
  if (byOperation === undefined) {
    byOperation = new WeakMap();
    known.set(table, byOperation);
  }
  let priced = byOperation.get(operation);
  if (priced === undefined) {
    priced = readPricedVariables(table, document, operation, definitions);
    byOperation.set(operation, priced);
  }
  return priced;
}

/** Per cost table and operation node (servers reuse parsed documents): what `pricedVariables` found. */
const known = new WeakMap<CostTable, WeakMap<OperationDefinitionNode, readonly VariableDefinitionNode[]>>();

function readPricedVariables(
  table: CostTable,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  definitions: readonly VariableDefinitionNode[],
): readonly VariableDefinitionNode[] {
  const used = new Set<string>();
  const typeInfo = new TypeInfo(table.schema);
  /** Whether an argument prices on a field definition: it weighs, is an input object, or is a slicing root. */
  const pricesOn = (field: AnyField, name: string): boolean => {
    const arg = field.args.find((candidate) => candidate.name === name);
    if (arg === undefined) return false;
    if (table.inputWeight(arg) !== 0 || isInputObjectType(getNamedType(arg.type))) return true;
    return table.field(field).listSizes.some((rule) => rule.slicingArguments.some((path) => path[0] === name));
  };
  const prices = (arg: GraphQLArgument | null | undefined, node: ArgumentNode): boolean => {
    const directive = typeInfo.getDirective();
    if (directive === GraphQLSkipDirective || directive === GraphQLIncludeDirective) return true;
    if (directive !== null) {
      return (
        arg !== null && arg !== undefined && (table.inputWeight(arg) !== 0 || isInputObjectType(getNamedType(arg.type)))
      );
    }
    const field = typeInfo.getFieldDef();
    if (field === null || field === undefined) return false;
    if (field.name.startsWith('__')) return true;
    const name = node.name.value;
    if (pricesOn(field, name)) return true;
    // Below an interface or union the field runs as each possible type's own, whose `@cost` and
    // `@listSize` may be its own: the argument prices if it prices on any of them.
    const parent = typeInfo.getParentType();
    if (parent === null || !isAbstractType(parent)) return false;
    return table.schema.getPossibleTypes(parent).some((possible) => {
      const own = possible.getFields()[field.name];
      return own !== undefined && pricesOn(own, name);
    });
  };
  const visitor = visitWithTypeInfo(typeInfo, {
    Argument(node) {
      if (prices(typeInfo.getArgument(), node)) collectVariables(node.value, used);
      return false;
    },
  });
  visit(operation, visitor);
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) visit(definition, visitor);
  }
  return definitions.filter((definition) => used.has(definition.variable.name.value));
}

function collectVariables(value: ValueNode, into: Set<string>): void {
  switch (value.kind) {
    case Kind.VARIABLE:
      into.add(value.name.value);
      return;
    case Kind.LIST:
      for (const item of value.values) collectVariables(item, into);
      return;
    case Kind.OBJECT:
      for (const field of value.fields) collectVariables(field.value, into);
      return;
    default:
      return;
  }
}
