import {
  GraphQLDirective,
  GraphQLNonNull,
  GraphQLScalarType,
  Kind,
  getDirectiveValues,
  getNamedType,
  getNullableType,
  isAbstractType,
  isCompositeType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isIntrospectionType,
  isLeafType,
  isListType,
  isObjectType,
  isScalarType,
  isSpecifiedDirective,
  print,
} from 'graphql';
import type {
  ConstDirectiveNode,
  GraphQLArgument,
  GraphQLField,
  GraphQLInputField,
  GraphQLInputType,
  GraphQLInterfaceType,
  GraphQLNamedType,
  GraphQLObjectType,
  GraphQLSchema,
} from 'graphql';
import { costDirective, listSizeDirective } from './directives.js';
import { CostSchemaError } from './errors.js';

/** A field's `@listSize`, checked against the schema. */
export interface ListSizeRule {
  readonly assumedSize: number | undefined;
  /** Each slicing argument as a path: `["first"]`, or `["filter", "max"]` for `"filter.max"`. */
  readonly slicingArguments: readonly (readonly string[])[];
  readonly sizedFields: readonly string[];
  /** Whether an operation must give exactly one slicing argument a value (the spec's default, true). */
  readonly requireOneSlicingArgument: boolean;
}

/** What a field costs to resolve, before arguments, and the shape of what it returns. */
export interface FieldCostRule {
  /** `@cost` weight of the field, or the default: 1 for composite return types, 0 for leaves. */
  readonly weight: number;
  readonly listSize: ListSizeRule | undefined;
  /** The named type the field returns. */
  readonly namedType: GraphQLNamedType;
  /** How many list levels wrap the named type: 0 for `T`, 1 for `[T!]!`, 2 for `[[T]]`. */
  readonly listDepth: number;
  /** Whether the named type is a scalar or enum (no selection below it). */
  readonly returnsLeaf: boolean;
  /** The named type when it is an object type (so a selection below it needs no type resolution). */
  readonly objectType: GraphQLObjectType | undefined;
}

type DirectiveHolder = { readonly directives?: ReadonlyArray<ConstDirectiveNode> };
type AnyField = GraphQLField<unknown, unknown>;
type InputValue = GraphQLArgument | GraphQLInputField;

/** Accepts the weight as a numeric string (IBM), an Int (Apollo Federation) or a Float literal. */
const CostWeightScalar = new GraphQLScalarType({
  name: 'CostWeight',
  parseValue: parseWeight,
  parseLiteral(ast) {
    return parseWeight(ast.kind === Kind.STRING || ast.kind === Kind.INT || ast.kind === Kind.FLOAT ? ast.value : '');
  },
});

function parseWeight(value: unknown): number {
  const weight =
    typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  if (!Number.isFinite(weight)) throw new TypeError('not a finite number');
  return weight;
}

const costWeightReader = new GraphQLDirective({
  name: costDirective.name,
  locations: costDirective.locations,
  args: { weight: { type: new GraphQLNonNull(CostWeightScalar) } },
});

/**
 * The schema's cost directives, read once: type weights, field weights, argument and input-field
 * weights, and `@listSize` rules, with the IBM spec's defaults ("Default weights": 0 for scalars,
 * enums and their fields, arguments and input fields; 1 for object types, composite fields and
 * input-object values). An object field without its own `@cost`/`@listSize` inherits those of the
 * interface fields it implements (the largest weight).
 *
 * @throws {CostSchemaError} listing every `@cost` weight that is not a number and every
 * `@listSize` that names a missing or non-Int slicing argument or a sized field that is not a
 * list field of the return type.
 */
export class CostTable {
  readonly schema: GraphQLSchema;
  private readonly typeWeights = new Map<GraphQLNamedType, number>();
  private readonly fieldRules = new Map<AnyField, FieldCostRule>();
  private readonly inputWeights = new Map<InputValue, number>();
  private readonly objectTypes = new Map<GraphQLNamedType, boolean>();

  constructor(schema: GraphQLSchema) {
    this.schema = schema;
    const problems: string[] = [];
    const explicitWeights = new Map<AnyField, number>();
    const explicitListSizes = new Map<AnyField, ListSizeRule>();
    const explicitArgWeights = new Map<GraphQLArgument, number>();

    for (const type of Object.values(schema.getTypeMap())) {
      if (isIntrospectionType(type)) continue;
      if (isObjectType(type) || isScalarType(type) || isEnumType(type)) {
        const weight = readWeight([type.astNode, ...type.extensionASTNodes], type.name, problems);
        if (weight !== undefined) this.typeWeights.set(type, weight);
      }
      if (isObjectType(type) || isInterfaceType(type)) {
        for (const field of Object.values(type.getFields()) as AnyField[]) {
          const coordinate = `${type.name}.${field.name}`;
          const weight = readWeight([field.astNode], coordinate, problems);
          if (weight !== undefined) explicitWeights.set(field, weight);
          const listSize = readListSize(field, coordinate, problems);
          if (listSize !== undefined) explicitListSizes.set(field, listSize);
          for (const arg of field.args) {
            const argWeight = readWeight([arg.astNode], `${coordinate}(${arg.name}:)`, problems);
            if (argWeight !== undefined) explicitArgWeights.set(arg, argWeight);
          }
        }
      }
      if (isInputObjectType(type)) {
        for (const field of Object.values(type.getFields())) {
          const weight = readWeight([field.astNode], `${type.name}.${field.name}`, problems);
          this.inputWeights.set(field, weight ?? defaultInputWeight(field.type));
        }
      }
    }
    for (const directive of schema.getDirectives()) {
      if (isSpecifiedDirective(directive)) continue;
      for (const arg of directive.args) {
        const weight = readWeight([arg.astNode], `@${directive.name}(${arg.name}:)`, problems);
        if (weight !== undefined) explicitArgWeights.set(arg, weight);
      }
    }
    if (problems.length > 0) throw new CostSchemaError(problems);

    for (const type of Object.values(schema.getTypeMap())) {
      if (!isObjectType(type) && !isInterfaceType(type)) continue;
      const interfaces = type.getInterfaces();
      for (const field of Object.values(type.getFields()) as AnyField[]) {
        const inherited = interfaces
          .map((iface) => iface.getFields()[field.name] as AnyField | undefined)
          .filter((candidate): candidate is AnyField => candidate !== undefined);
        const weight = explicitWeights.get(field) ?? maxOf(inherited.map((f) => explicitWeights.get(f)));
        const listSize = explicitListSizes.get(field) ?? firstOf(inherited.map((f) => explicitListSizes.get(f)));
        this.fieldRules.set(field, fieldRule(field, weight ?? defaultFieldWeight(field), listSize));
        for (const arg of field.args) {
          const inheritedArgs = inherited.map((f) => f.args.find((a) => a.name === arg.name));
          const argWeight =
            explicitArgWeights.get(arg) ??
            maxOf(inheritedArgs.map((a) => (a === undefined ? undefined : explicitArgWeights.get(a))));
          this.inputWeights.set(arg, argWeight ?? defaultInputWeight(arg.type));
        }
      }
    }
    for (const directive of schema.getDirectives()) {
      for (const arg of directive.args) {
        this.inputWeights.set(arg, explicitArgWeights.get(arg) ?? defaultInputWeight(arg.type));
      }
    }
  }

  /**
   * Weight of one instance of a named output type: its `@cost`, else 1 for object types and 0 for
   * scalars and enums; for an interface or union, the largest weight of its possible types.
   */
  typeWeight(type: GraphQLNamedType): number {
    let weight = this.typeWeights.get(type);
    if (weight === undefined) {
      if (isAbstractType(type)) {
        const weights = this.schema.getPossibleTypes(type).map((possible) => this.typeWeight(possible));
        weight = weights.length === 0 ? 1 : Math.max(...weights);
      } else {
        weight = isCompositeType(type) ? 1 : 0;
      }
      this.typeWeights.set(type, weight);
    }
    return weight;
  }

  /** Whether a named type is an object type (cheaper than graphql-js's checked `isObjectType`). */
  isObjectType(type: GraphQLNamedType): type is GraphQLObjectType {
    let known = this.objectTypes.get(type);
    if (known === undefined) {
      known = isObjectType(type);
      this.objectTypes.set(type, known);
    }
    return known;
  }

  /** Weight and list-size rule of a field (meta fields such as `__schema` get the defaults). */
  field(field: AnyField): FieldCostRule {
    let rule = this.fieldRules.get(field);
    if (rule === undefined) {
      rule = fieldRule(field, defaultFieldWeight(field), undefined);
      this.fieldRules.set(field, rule);
    }
    return rule;
  }

  /** Weight of an argument, directive argument or input field when a value is present for it. */
  inputWeight(value: InputValue): number {
    return this.inputWeights.get(value) ?? defaultInputWeight(value.type);
  }
}

function fieldRule(field: AnyField, weight: number, listSize: ListSizeRule | undefined): FieldCostRule {
  let listDepth = 0;
  let type = getNullableType(field.type);
  while (isListType(type)) {
    listDepth += 1;
    type = getNullableType(type.ofType);
  }
  const namedType = getNamedType(field.type);
  return {
    weight,
    listSize,
    namedType,
    listDepth,
    returnsLeaf: isLeafType(namedType),
    objectType: isObjectType(namedType) ? namedType : undefined,
  };
}

function defaultFieldWeight(field: AnyField): number {
  return isCompositeType(getNamedType(field.type)) ? 1 : 0;
}

function defaultInputWeight(type: GraphQLInputType): number {
  return isInputObjectType(getNamedType(type)) ? 1 : 0;
}

function maxOf(values: readonly (number | undefined)[]): number | undefined {
  const present = values.filter((value): value is number => value !== undefined);
  return present.length === 0 ? undefined : Math.max(...present);
}

function firstOf<T>(values: readonly (T | undefined)[]): T | undefined {
  return values.find((value) => value !== undefined);
}

function readWeight(
  nodes: readonly (DirectiveHolder | null | undefined)[],
  coordinate: string,
  problems: string[],
): number | undefined {
  for (const node of nodes) {
    if (node?.directives === undefined) continue;
    try {
      const values = getDirectiveValues(costWeightReader, node);
      if (values !== undefined) return values.weight as number;
    } catch {
      const directive = node.directives.find((d) => d.name.value === costDirective.name);
      const weight = directive?.arguments?.find((arg) => arg.name.value === 'weight');
      const written = weight === undefined ? 'no weight' : print(weight.value);
      problems.push(`${coordinate}: @cost weight ${written} is not a finite number.`);
      return undefined;
    }
  }
  return undefined;
}

function readListSize(field: AnyField, coordinate: string, problems: string[]): ListSizeRule | undefined {
  const node = field.astNode;
  if (node?.directives === undefined) return undefined;
  let values: Record<string, unknown> | undefined;
  try {
    values = getDirectiveValues(listSizeDirective, node);
  } catch (error) {
    problems.push(`${coordinate}: @listSize is malformed (${(error as Error).message}).`);
    return undefined;
  }
  if (values === undefined) return undefined;
  const before = problems.length;
  const assumedSize = (values.assumedSize as number | null | undefined) ?? undefined;
  if (assumedSize !== undefined && assumedSize < 0) {
    problems.push(`${coordinate}: @listSize(assumedSize: ${assumedSize}) must not be negative.`);
  }
  const slicingNames = (values.slicingArguments as string[] | null | undefined) ?? [];
  const slicingArguments = slicingNames.map((name) => name.split('.'));
  for (const path of slicingArguments) checkSlicingArgument(field, path, coordinate, problems);
  const sizedFields = (values.sizedFields as string[] | null | undefined) ?? [];
  checkSizedFields(field, sizedFields, coordinate, problems);
  if (problems.length > before) return undefined;
  const requireOneSlicingArgument = values.requireOneSlicingArgument !== false;
  return { assumedSize, slicingArguments, sizedFields, requireOneSlicingArgument };
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
  if (!isScalarType(nullable) || nullable.name !== 'Int') {
    problems.push(`${coordinate}: @listSize slicing argument "${written}" has type ${String(type)}; it must be Int.`);
  }
}

function checkSizedFields(
  field: AnyField,
  sizedFields: readonly string[],
  coordinate: string,
  problems: string[],
): void {
  if (sizedFields.length === 0) return;
  const returned = getNamedType(field.type);
  if (!isObjectType(returned) && !isInterfaceType(returned)) {
    problems.push(
      `${coordinate}: @listSize(sizedFields:) needs an object or interface return type, not ${returned.name}.`,
    );
    return;
  }
  const fields = (returned as GraphQLObjectType | GraphQLInterfaceType).getFields();
  for (const name of sizedFields) {
    const sized = fields[name];
    if (sized === undefined) {
      problems.push(`${coordinate}: @listSize sized field "${name}" is not a field of ${returned.name}.`);
    } else if (!isListType(getNullableType(sized.type))) {
      problems.push(
        `${coordinate}: @listSize sized field "${name}" (${returned.name}.${name}: ${String(sized.type)}) is not a list.`,
      );
    }
  }
}
