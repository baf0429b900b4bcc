import { isEnumType, isInputObjectType, isInterfaceType, isObjectType } from 'graphql';
import type { ASTNode, GraphQLSchema } from 'graphql';
import type { CostSchemaError } from '../cost/errors.js';
import { InputError } from './errors.js';
import { whereIs } from './locations.js';

const TYPE_COORDINATE = /^([A-Za-z_]\w*)(?:\.([A-Za-z_]\w*)(?:\(([A-Za-z_]\w*):\))?)?/;
const DIRECTIVE_COORDINATE = /^@([A-Za-z_]\w*)(?:\(([A-Za-z_]\w*):\))?/;

/**
 * Where a schema coordinate points, as a node to print the location of: the name of the
 * definition `definitionAt` finds (the definition itself may start with its description).
 */
export function nodeAtCoordinate(schema: GraphQLSchema, text: string): ASTNode | undefined {
  const definition = definitionAt(schema, text);
  return definition !== undefined && 'name' in definition && definition.name !== undefined
    ? definition.name
    : definition;
}

/**
 * The definition a schema coordinate names (`Type`, `Type.field`, `Type.field(arg:)`,
 * `Enum.VALUE`, `Input.field`, `@directive`, `@directive(arg:)`; a `@link(…)` names the schema
 * definition), read from the start of `text`; undefined when the schema has none.
 */
export function definitionAt(schema: GraphQLSchema, text: string): ASTNode | undefined {
  if (text.startsWith('@link(')) return schema.astNode ?? schema.extensionASTNodes[0];
  const directive = DIRECTIVE_COORDINATE.exec(text);
  if (directive !== null) {
    const definition = schema.getDirective(directive[1] as string);
    if (directive[2] === undefined) return definition?.astNode ?? undefined;
    return definition?.args.find((arg) => arg.name === directive[2])?.astNode ?? undefined;
  }
  const match = TYPE_COORDINATE.exec(text);
  if (match === null) return undefined;
  const [, typeName, memberName, argName] = match;
  const type = schema.getType(typeName as string);
  if (type === undefined || type === null) return undefined;
  if (memberName === undefined) return type.astNode ?? undefined;
  if (isEnumType(type)) return type.getValue(memberName)?.astNode ?? undefined;
  if (!isObjectType(type) && !isInterfaceType(type) && !isInputObjectType(type)) return type.astNode ?? undefined;
  const member = type.getFields()[memberName];
  if (member === undefined) return undefined;
  if (argName === undefined || !('args' in member)) return member.astNode ?? undefined;
  return member.args.find((arg) => arg.name === argName)?.astNode ?? member.astNode ?? undefined;
}

/** `file:line:column` of the definition a schema coordinate names, else the schema's files. */
export function whereCoordinate(schema: GraphQLSchema, text: string, files: readonly string[]): string {
  return whereIs(nodeAtCoordinate(schema, text)) ?? files.join(', ');
}

/**
 * The cost engine's refusal of a schema's directives as an input error: one line per problem, at
 * the definition its coordinate names.
 */
export function costSchemaInputError(
  error: CostSchemaError,
  schema: GraphQLSchema,
  files: readonly string[],
): InputError {
  return new InputError(error.problems.map((problem) => `${whereCoordinate(schema, problem, files)}: ${problem}`));
}
