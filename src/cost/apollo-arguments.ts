import { Kind, getNamedType, isInputObjectType, valueFromASTUntyped } from 'graphql';
import type {
  FieldNode,
  GraphQLArgument,
  GraphQLField,
  GraphQLInputField,
  OperationDefinitionNode,
  ValueNode,
} from 'graphql';
import type { CostTable } from './cost-table.js';

type InputValue = GraphQLArgument | GraphQLInputField;
type Values = Readonly<Record<string, unknown>>;

/**
 * The variable values Apollo Router's demand control reads: the request's variables as sent (not
 * coerced: no input-field default is filled in), and for a variable the request leaves out, the
 * operation's default for it. (The router reads the request's variables only; a default counts
 * here so that `query ($n: Int = 1000) { items(first: $n) }` is not priced as if `first` were
 * absent while the resolver receives 1000.)
 */
export function requestValues(operation: OperationDefinitionNode, raw: Values): Values {
  const values: Record<string, unknown> = {};
  for (const definition of operation.variableDefinitions ?? []) {
    if (definition.defaultValue !== undefined) {
      values[definition.variable.name.value] = valueFromASTUntyped(definition.defaultValue);
    }
  }
  for (const name of Object.keys(raw)) values[name] = raw[name];
  return values;
}

/**
 * The arguments of one field as Apollo Router's demand control reads them to size a list: each
 * argument the operation writes, with variables replaced by their values (see `requestValues`;
 * absent when the request has none), else the argument's schema default. Input objects hold only
 * the fields written (no input-field default is filled in).
 */
export function writtenArguments(definition: GraphQLField<unknown, unknown>, node: FieldNode, values: Values): Values {
  const args: Record<string, unknown> = {};
  for (const argument of definition.args) {
    const defaultValue = argument.astNode?.defaultValue;
    if (defaultValue !== undefined) args[argument.name] = valueFromASTUntyped(defaultValue);
    else if (argument.defaultValue !== undefined) args[argument.name] = argument.defaultValue;
  }
  for (const argument of node.arguments ?? []) {
    const value = writtenValue(argument.value, values);
    if (value === undefined) delete args[argument.name.value];
    else args[argument.name.value] = value;
  }
  return args;
}

function writtenValue(value: ValueNode, values: Values): unknown {
  switch (value.kind) {
    case Kind.VARIABLE:
      return Object.hasOwn(values, value.name.value) ? values[value.name.value] : undefined;
    case Kind.LIST:
      return value.values.map((item) => writtenValue(item, values));
    case Kind.OBJECT: {
      const object: Record<string, unknown> = {};
      for (const field of value.fields) {
        const fieldValue = writtenValue(field.value, values);
        if (fieldValue !== undefined) object[field.name.value] = fieldValue;
      }
      return object;
    }
    default:
      return valueFromASTUntyped(value);
  }
}

/**
 * What the arguments written on one field weigh in Apollo Router's demand control: only arguments
 * the operation writes count (a schema default costs nothing), an explicit `null` costs 0, and a
 * value weighs its argument's or input field's own `@cost`, else its type's `@cost`, else 1 for an
 * input object and 0 for anything else, plus, for an input object, every field written in it, and
 * for a list, every element again at the same weight (so each element of a list of input objects
 * pays 1 more). A variable weighs the value the request gives it, read the same way; a variable
 * the request does not give weighs 0 (unless the operation has a default for it, see
 * `requestValues`). The arguments of directives on the selection cost nothing.
 */
export function argumentsWeight(
  table: CostTable,
  definition: GraphQLField<unknown, unknown>,
  node: FieldNode,
  values: Values,
): number {
  let weight = 0;
  for (const argument of node.arguments ?? []) {
    const argumentDefinition = definition.args.find((candidate) => candidate.name === argument.name.value);
    if (argumentDefinition !== undefined) weight += writtenWeight(table, argument.value, argumentDefinition, values);
  }
  return weight;
}

function declaredWeight(table: CostTable, definition: InputValue): number | undefined {
  return table.declaredInputWeight(definition) ?? table.declaredTypeWeight(getNamedType(definition.type));
}

function writtenWeight(table: CostTable, value: ValueNode, definition: InputValue, values: Values): number {
  const named = getNamedType(definition.type);
  const declared = declaredWeight(table, definition);
  switch (value.kind) {
    case Kind.OBJECT: {
      if (!isInputObjectType(named)) return declared ?? 0;
      let weight = declared ?? 1;
      const fields = named.getFields();
      for (const field of value.fields) {
        const fieldDefinition = fields[field.name.value];
        if (fieldDefinition !== undefined) weight += writtenWeight(table, field.value, fieldDefinition, values);
      }
      return weight;
    }
    case Kind.LIST: {
      let weight = declared ?? 0;
      for (const item of value.values) weight += writtenWeight(table, item, definition, values);
      return weight;
    }
    case Kind.VARIABLE:
      return Object.hasOwn(values, value.name.value) ? valueWeight(table, values[value.name.value], definition) : 0;
    case Kind.NULL:
      return 0;
    default:
      return declared ?? 0;
  }
}

function valueWeight(table: CostTable, value: unknown, definition: InputValue): number {
  if (value === null || value === undefined) return 0;
  const named = getNamedType(definition.type);
  const declared = declaredWeight(table, definition);
  if (Array.isArray(value)) {
    let weight = declared ?? 0;
    for (const item of value as readonly unknown[]) weight += valueWeight(table, item, definition);
    return weight;
  }
  if (typeof value !== 'object' || !isInputObjectType(named)) return declared ?? 0;
  let weight = declared ?? 1;
  const fields = named.getFields();
  const object = value as Values;
  for (const name of Object.keys(object)) {
    const fieldDefinition = fields[name];
    if (fieldDefinition !== undefined) weight += valueWeight(table, object[name], fieldDefinition);
  }
  return weight;
}
