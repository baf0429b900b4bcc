import {
  Kind,
  SchemaMetaFieldDef,
  TypeMetaFieldDef,
  getNamedType,
  getNullableType,
  isInputObjectType,
  isListType,
  valueFromAST,
} from 'graphql';
import type {
  DirectiveNode,
  FieldNode,
  GraphQLArgument,
  GraphQLCompositeType,
  GraphQLField,
  GraphQLInputField,
  GraphQLInputType,
  GraphQLObjectType,
  GraphQLSchema,
} from 'graphql';
import type { CostTable, FieldCostRule, ListSizeRule } from './cost-table.js';
import { CostAnalysisError, CostErrorCode } from './errors.js';
import { SizeScope } from './size-scope.js';
import type { SizedFieldTree } from './sized-fields.js';

type AnyField = GraphQLField<unknown, unknown>;

type Variables = Readonly<Record<string, unknown>>;

/** A field of a selection, priced once per parent object. */
export interface FieldCall {
  readonly definition: AnyField;
  /** The field's weight, list-size rule and return shape. */
  readonly rule: FieldCostRule;
  /** Field weight + argument and directive-argument weights, clamped at 0. */
  readonly callCost: number;
  /**
   * Items per level of the field's own list by its `@listSize` rules without `sizedFields` (the
   * largest), undefined when none gives a size.
   */
  readonly ownSize: number | undefined;
  /** What its rules with `sizedFields` hand to the lists below it, when one has a size to hand. */
  readonly scope: SizeScope | undefined;
  /** The largest size its rules with `sizedFields` hand down, undefined when none has one. */
  readonly handedSize: number | undefined;
  readonly isIntrospection: boolean;
}

/**
 * Prices each collected field group once per request: the groups come from the memoized
 * `FieldCollector`, so the same array stands for the same (parent type, field) wherever it recurs,
 * e.g. in every item of a list. Fields that cost nothing (`__typename`, unknown) are found again
 * cheaply each time rather than kept.
 */
export class FieldCallCache {
  private readonly calls = new Map<readonly FieldNode[], FieldCall>();

  constructor(
    private readonly table: CostTable,
    private readonly variables: Variables,
    /** Largest list size a client may choose through a slicing argument (Infinity: no bound). */
    private readonly maxListSize: number = Number.POSITIVE_INFINITY,
  ) {}

  /** The group's call, or null for a field that costs nothing. */
  price(parent: GraphQLObjectType, nodes: readonly FieldNode[]): FieldCall | null {
    return this.calls.get(nodes) ?? this.priceOnce(parent, nodes);
  }

  private priceOnce(parent: GraphQLObjectType, nodes: readonly FieldNode[]): FieldCall | null {
    const definition = fieldDefinition(this.table.schema, parent, (nodes[0] as FieldNode).name.value);
    if (definition === undefined) return null;
    const call = priceFieldCall(this.table, parent, definition, nodes, this.variables, this.maxListSize);
    this.calls.set(nodes, call);
    return call;
  }
}

/**
 * The schema field a response key resolves, or undefined for `__typename` (which costs nothing,
 * IBM spec "Default weights") and for unknown fields (left to validation).
 */
export function fieldDefinition(schema: GraphQLSchema, parent: GraphQLObjectType, name: string): AnyField | undefined {
  // No schema field is named `__typename` (names starting with "__" are reserved), so it finds none.
  if (parent === schema.getQueryType()) {
    if (name === SchemaMetaFieldDef.name) return SchemaMetaFieldDef as AnyField;
    if (name === TypeMetaFieldDef.name) return TypeMetaFieldDef as AnyField;
  }
  return parent.getFields()[name] as AnyField | undefined;
}

/**
 * Prices calling one field once (IBM spec "Field cost"): the field's weight, plus the weight of
 * every argument present after coercion (schema defaults included, explicit `null` included, an
 * absent value without default excluded) and of the input fields inside it, plus the weights of
 * the arguments of directives on the selection. A negative weight offsets its own field only: the
 * sum is clamped at 0. List arguments pay their weight once, then the input fields of every element.
 *
 * Each of the field's `@listSize` rules gives a size (see `expectedListSize`): the largest of the
 * rules without `sizedFields` sizes the field's own list, the others size the lists they name.
 *
 * @throws {CostAnalysisError} `COST_QUERY_PARSE_FAILURE` when one of the field's `@listSize`
 * requires one slicing argument and the call gives a value to none or to several;
 * `COST_LIST_SIZE_OUT_OF_RANGE` when a slicing argument's value is outside [0, `maxListSize`].
 */
export function priceFieldCall(
  table: CostTable,
  parent: GraphQLObjectType,
  definition: AnyField,
  nodes: readonly FieldNode[],
  variables: Variables,
  maxListSize: number = Number.POSITIVE_INFINITY,
): FieldCall {
  const rule = table.field(definition);
  const first = nodes[0] as FieldNode;
  const args = pricedArgumentValues(table, definition.args, first, variables, rule.listSizes);
  const cost = rule.weight + argumentsCost(table, definition.args, args) + directivesCost(table, nodes, variables);
  let ownSize: number | undefined;
  let handedSize: number | undefined;
  const handed: { tree: SizedFieldTree; size: number }[] = [];
  for (const listSize of rule.listSizes) {
    const size = expectedListSize(listSize, args, parent, definition, first, maxListSize);
    if (size === undefined) continue;
    if (listSize.sizedFields === undefined) {
      ownSize = ownSize === undefined ? size : Math.max(ownSize, size);
    } else {
      handed.push({ tree: listSize.sizedFields, size });
      handedSize = handedSize === undefined ? size : Math.max(handedSize, size);
    }
  }
  return {
    definition,
    rule,
    callCost: Math.max(0, cost),
    ownSize,
    scope: SizeScope.of(handed),
    handedSize,
    isIntrospection: definition === SchemaMetaFieldDef || definition === TypeMetaFieldDef,
  };
}

/**
 * The weights of the arguments of the directives on a field's nodes (the costliest node's, where the
 * field is selected several times under one response key).
 */
export function directivesCost(table: CostTable, nodes: readonly FieldNode[], variables: Variables): number {
  let cost = 0;
  for (const [index, node] of nodes.entries()) {
    let nodeCost = 0;
    for (const directive of node.directives ?? []) {
      const directiveDefinition = table.schema.getDirective(directive.name.value);
      if (!directiveDefinition) continue;
      const values = pricedArgumentValues(table, directiveDefinition.args, directive, variables, []);
      nodeCost += argumentsCost(table, directiveDefinition.args, values);
    }
    cost = index === 0 ? nodeCost : Math.max(cost, nodeCost);
  }
  return cost;
}

/**
 * The coerced values of the arguments that can change a price (`CostAnalyzer.pricedVariables`
 * reads the same ones): a slicing argument's root, an argument that may weigh something (its own
 * weight, or an input object's). Read as graphql-js's `getArgumentValues` reads them (a variable the
 * request leaves out takes the argument's default), but one by one, so an argument that prices
 * nothing is never read: its variable is not among the coerced ones.
 */
function pricedArgumentValues(
  table: CostTable,
  definitions: readonly GraphQLArgument[],
  node: FieldNode | DirectiveNode,
  variables: Variables,
  listSizes: readonly ListSizeRule[],
): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const definition of definitions) {
    const prices =
      table.inputWeight(definition) !== 0 ||
      isInputObjectType(getNamedType(definition.type)) ||
      listSizes.some((rule) => rule.slicingArguments.some((path) => path[0] === definition.name));
    if (!prices) continue;
    const written = node.arguments?.find((argument) => argument.name.value === definition.name);
    let value: unknown;
    if (written === undefined) {
      value = definition.defaultValue;
    } else if (written.value.kind === Kind.VARIABLE) {
      const name = written.value.name.value;
      value = Object.hasOwn(variables, name) ? variables[name] : definition.defaultValue;
    } else {
      value = valueFromAST(written.value, definition.type, variables);
    }
    if (value !== undefined)
      Object.defineProperty(values, definition.name, { value, enumerable: true, writable: true, configurable: true });
  }
  return values;
}

/** The weights of the arguments that have a value (coerced `values`), and of the input fields inside them. */
export function argumentsCost(
  table: CostTable,
  definitions: readonly GraphQLArgument[],
  values: Readonly<Record<string, unknown>>,
): number {
  let cost = 0;
  for (const definition of definitions) {
    if (Object.hasOwn(values, definition.name)) {
      cost += inputValueCost(table, definition, values[definition.name]);
    }
  }
  return cost;
}

function inputValueCost(table: CostTable, definition: GraphQLArgument | GraphQLInputField, value: unknown): number {
  return table.inputWeight(definition) + nestedInputCost(table, definition.type, value);
}

/** `value` is coerced: a list type's value is an array, an input object type's an object. */
function nestedInputCost(table: CostTable, type: GraphQLInputType, value: unknown): number {
  if (value === null) return 0;
  const nullable = getNullableType(type);
  if (isListType(nullable)) {
    const itemType = nullable.ofType as GraphQLInputType;
    let cost = 0;
    for (const item of value as readonly unknown[]) cost += nestedInputCost(table, itemType, item);
    return cost;
  }
  if (!isInputObjectType(nullable)) return 0;
  const fields = value as Readonly<Record<string, unknown>>;
  let cost = 0;
  for (const field of Object.values(nullable.getFields())) {
    if (Object.hasOwn(fields, field.name)) cost += inputValueCost(table, field, fields[field.name]);
  }
  return cost;
}

/**
 * IBM spec "@listSize": the largest value among the slicing arguments that have one (an explicit
 * `null` suppresses a default; negative values count as 0; a list-typed slicing argument, such as
 * `ids: [ID!]!` or `_entities`' representations, counts its length), else `assumedSize`, else
 * undefined. A path such as `input.pagination.first` reads the argument values given: the coerced
 * ones in the IBM model, so input-field defaults apply as the resolver will see them; those written
 * in the operation in the `'apollo'` model (see `writtenArguments`). Both models size a list here,
 * from each slicing argument's value.
 *
 * A finite `maxListSize` bounds what a client may choose: a slicing argument whose value (or
 * length) is below 0 or above it is refused (`COST_LIST_SIZE_OUT_OF_RANGE`) rather than priced,
 * since resolvers read such values in their own ways (`items.slice(0, -1)` returns all but the
 * last item) and a list of scalars costs nothing by the spec's default weights at any length.
 * `Infinity` leaves the spec's rule alone (negative values count as 0, and there is no upper bound).
 *
 * With `requireOneSlicingArgument` (true unless the schema says false) exactly one slicing argument
 * must have a non-null value after coercion: a literal, a variable, an operation default or a schema
 * default (of the argument, or of the input field a path such as `filter.first` reads) counts; an
 * explicit `null` or an absent value does not. Otherwise the operation is rejected, as the spec's
 * validation and Apollo Router's demand control do: a client that omits `first` would otherwise be
 * priced at `assumedSize` or `defaultListSize` for a resolver that may return everything.
 */
export function expectedListSize(
  rule: ListSizeRule,
  args: Readonly<Record<string, unknown>>,
  parent: GraphQLCompositeType,
  definition: AnyField,
  node: FieldNode,
  maxListSize: number,
): number | undefined {
  let size: number | undefined;
  let given = 0;
  for (const path of rule.slicingArguments) {
    const value = valueAt(args, path);
    if (value !== null && value !== undefined) given += 1;
    const count = Array.isArray(value) ? value.length : value;
    if (
      typeof count === 'number' &&
      maxListSize !== Number.POSITIVE_INFINITY &&
      !(count >= 0 && count <= maxListSize)
    ) {
      throw listSizeError(`${parent.name}.${definition.name}`, path, count, maxListSize, node);
    }
    if (Number.isFinite(count)) {
      size = Math.max(size ?? 0, Math.max(0, count as number));
    }
  }
  if (rule.requireOneSlicingArgument && rule.slicingArguments.length > 0 && given !== 1) {
    throw slicingArgumentsError(rule, args, `${parent.name}.${definition.name}`, node);
  }
  return size ?? rule.assumedSize;
}

function slicingArgumentsError(
  rule: ListSizeRule,
  args: Readonly<Record<string, unknown>>,
  coordinate: string,
  node: FieldNode,
): CostAnalysisError {
  const names = rule.slicingArguments.map((path) => path.join('.'));
  const wanted =
    names.length === 1
      ? `its slicing argument ${names[0]}, which bounds`
      : `exactly one of its slicing arguments ${joined(names, 'or')}, which bound`;
  const written = new Set(node.arguments?.map((argument) => argument.name.value));
  const given = rule.slicingArguments
    .filter((path) => (valueAt(args, path) ?? null) !== null)
    .map((path) => (written.has(path[0] as string) ? path.join('.') : `${path.join('.')} (by its schema default)`));
  const got =
    given.length === 0
      ? 'none was given (an explicit null does not count)'
      : `${joined(given, 'and')} were given. Pass only one of them`;
  return new CostAnalysisError(
    CostErrorCode.slicingArguments,
    `${coordinate} needs a value for ${wanted} the list it returns; ${got}.`,
    node,
  );
}

/**
 * Throws `COST_LIST_SIZE_OUT_OF_RANGE` when a slicing argument of `rule` asks for a size outside
 * [0, `maxListSize`] (a value, or a list argument's length); nothing else is checked. For the
 * graphql-query-complexity path, which prices lists its own way but must not let a client pick a
 * size without bound either.
 */
export function checkSlicingBounds(
  rule: ListSizeRule,
  args: Readonly<Record<string, unknown>>,
  coordinate: string,
  node: FieldNode,
  maxListSize: number,
): void {
  if (maxListSize === Number.POSITIVE_INFINITY) return;
  for (const path of rule.slicingArguments) {
    const value = valueAt(args, path);
    const count = Array.isArray(value) ? value.length : value;
    if (typeof count === 'number' && !(count >= 0 && count <= maxListSize)) {
      throw listSizeError(coordinate, path, count, maxListSize, node);
    }
  }
}

function listSizeError(
  coordinate: string,
  path: readonly string[],
  size: number,
  maxListSize: number,
  node: FieldNode,
): CostAnalysisError {
  return new CostAnalysisError(
    CostErrorCode.listSizeOutOfRange,
    `${coordinate} was asked for ${size} items through its slicing argument ${path.join('.')}; ` +
      `a list size must be between 0 and ${maxListSize} (maxListSize).`,
    node,
  );
}

/** The coerced value of a slicing argument path (`["filter", "first"]`), undefined when absent. */
function valueAt(args: Readonly<Record<string, unknown>>, path: readonly string[]): unknown {
  let value: unknown = args;
  for (const segment of path) {
    value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[segment] : undefined;
  }
  return value;
}

/** `a or b`, `a, b or c` (only ever called with two names or more). */
function joined(names: readonly string[], conjunction: string): string {
  return `${names.slice(0, -1).join(', ')} ${conjunction} ${names.at(-1)}`;
}
