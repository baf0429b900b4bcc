import { getNamedType, getNullableType, isInputObjectType, isListType, isScalarType } from 'graphql';
import type { GraphQLField, GraphQLInputType } from 'graphql';
import { sizedFieldTree, type SizedFieldTree } from './sized-fields.js';

type AnyField = GraphQLField<unknown, unknown>;

/** One `@listSize` of a field, checked against the schema. */
export interface ListSizeRule {
  readonly assumedSize: number | undefined;
  /** Each slicing argument as a path: `["first"]`, or `["filter", "max"]` for `"filter.max"`. */
  readonly slicingArguments: readonly (readonly string[])[];
  /** The lists below the returned type that take the size instead of the field's own list. */
  readonly sizedFields: SizedFieldTree | undefined;
  /** Whether an operation must give exactly one slicing argument a value (the spec's default, true). */
  readonly requireOneSlicingArgument: boolean;
}

/**
 * A `@listSize` application's argument values (already coerced against the directive's
 * definition) as a rule, checked against the field it annotates (IBM cost spec "@listSize"): a
 * non-negative `assumedSize`; slicing arguments that are Int or list arguments of the field, or Int
 * or list fields of its input-object arguments (`"input.pagination.first"`, any depth; a list
 * sizes by its length, `items(ids: [ID!]!)` returning one item per id, as in Apollo Router's demand
 * control); sized fields that are list fields below the returned type (see `sizedFieldTree`).
 * Problems are pushed, each starting with `coordinate`.
 *
 * @returns the rule, or undefined when it has problems.
 */
export function listSizeRule(
  field: AnyField,
  values: Readonly<Record<string, unknown>>,
  coordinate: string,
  problems: string[],
): ListSizeRule | undefined {
  const before = problems.length;
  const assumedSize = (values.assumedSize as number | null | undefined) ?? undefined;
  if (assumedSize !== undefined && assumedSize < 0) {
    problems.push(`${coordinate}: @listSize(assumedSize: ${assumedSize}) must not be negative.`);
  }
  const slicingNames = (values.slicingArguments as string[] | null | undefined) ?? [];
  const slicingArguments = slicingNames.map((name) => name.split('.'));
  for (const path of slicingArguments) checkSlicingArgument(field, path, coordinate, problems);
  const sizedNames = (values.sizedFields as string[] | null | undefined) ?? [];
  const sizedFields = sizedFieldTree(getNamedType(field.type), sizedNames, coordinate, problems);
  if (problems.length > before) return undefined;
  const requireOneSlicingArgument = values.requireOneSlicingArgument !== false;
  return { assumedSize, slicingArguments, sizedFields, requireOneSlicingArgument };
}

/**
 * The rule of a federated subgraph's `Query._entities(representations: [_Any!]!): [_Entity]!`
 * (Apollo Federation subgraph spec, "Query._entities"): it returns one entity per representation,
 * so its list size is the number of representations sent, read from the coerced argument like a
 * slicing argument (variables included). Undefined when `field` is not such a field.
 */
export function entitiesRule(field: AnyField, onQueryRoot: boolean): ListSizeRule | undefined {
  if (!onQueryRoot || field.name !== '_entities') return undefined;
  const representations = field.args.find((arg) => arg.name === 'representations');
  if (representations === undefined || !isListType(getNullableType(representations.type))) return undefined;
  if (!isListType(getNullableType(field.type))) return undefined;
  return {
    assumedSize: undefined,
    slicingArguments: [['representations']],
    sizedFields: undefined,
    requireOneSlicingArgument: false,
  };
}

function checkSlicingArgument(field: AnyField, path: readonly string[], coordinate: string, problems: string[]): void {
  const written = path.join('.');
  let type: GraphQLInputType | undefined = field.args.find((arg) => arg.name === path[0])?.type;
  for (const segment of path.slice(1)) {
    const parent = type === undefined ? undefined : getNullableType(type);
    type = isInputObjectType(parent) ? parent.getFields()[segment]?.type : undefined;
  }
  if (type === undefined) {
    problems.push(`${coordinate}: @listSize slicing argument "${written}" is not an argument of ${coordinate}.`);
    return;
  }
  const nullable = getNullableType(type);
  if (isListType(nullable)) return;
  if (!isScalarType(nullable) || nullable.name !== 'Int') {
    problems.push(`${coordinate}: @listSize slicing argument "${written}" has type ${String(type)}; it must be Int.`);
  }
}
