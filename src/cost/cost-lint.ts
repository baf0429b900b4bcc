import {
  getNullableType,
  isInputObjectType,
  isInterfaceType,
  isNonNullType,
  isObjectType,
  isSchema,
  isSpecifiedDirective,
  visit,
} from 'graphql';
import type {
  ASTNode,
  GraphQLArgument,
  GraphQLField,
  GraphQLInputField,
  GraphQLInputType,
  GraphQLSchema,
} from 'graphql';
import { costTableOf } from './analyzer.js';
import { checkKnownOptions } from '../known-options.js';
import { IBM_READING, type CostTable, type InferredField, type ListSizeRule } from './cost-table.js';
import { extensionDirectives, type CodeFirstElement } from './extension-directives.js';
import { costDirectiveNames } from './link-names.js';
import { listSizeText } from './relay-connections.js';
import { sizedFieldNames } from './sized-lists.js';
import { unsizedLists } from './unsized-lists.js';
import { supergraphSchema } from './supergraph.js';

/** One thing in a schema that makes prices meaningless or unbounded, at its schema coordinate. */
export interface CostLintFinding {
  /** What kind of problem it is. */
  readonly rule: CostLintRule;
  /**
   * Where, as a schema coordinate: `Type`, `Type.field`, `Type.field(arg:)`, `Input.field`,
   * `@directive` or `@directive(arg:)`.
   */
  readonly coordinate: string;
  /** A sentence saying what is wrong and what to do, starting with the coordinate. */
  readonly message: string;
  /**
   * `'warning'`: something that makes prices meaningless or unbounded. `'info'`: how the engine
   * reads the schema, for the record (`inferred-list-size`); `graphql-budget lint --strict` fails
   * on warnings only.
   */
  readonly severity: 'warning' | 'info';
}

/** The kinds of `CostLintFinding`. */
export const CostLintRule = {
  /**
   * A list of scalars or enums whose size a client chooses (a slicing argument) and that weighs
   * nothing: no `@cost` on the field or on the item type. Only `maxListSize` bounds its work.
   */
  unweightedClientSizedLeafList: 'unweighted-client-sized-leaf-list',
  /**
   * A list field whose own list no `@listSize` sizes (no `assumedSize`, no slicing argument, and no
   * enclosing field's `sizedFields` names it), and whose size changes its price: it is priced at
   * `defaultListSize` items whatever it returns. A scalar or enum list that weighs nothing is left
   * out (any length of it costs the same).
   */
  listWithoutListSize: 'list-without-list-size',
  /**
   * A slicing argument that an operation may leave out and that has no default: with
   * `requireOneSlicingArgument` (the spec's default) an operation without it is refused, although
   * the schema lets clients omit it; without, and without `assumedSize`, such an operation is
   * priced at `defaultListSize` items while the resolver decides how many it returns.
   */
  slicingArgumentWithoutDefault: 'slicing-argument-without-default',
  /**
   * A slicing argument that a client sets to any size: reported when `maxListSize` is `Infinity`
   * (the engine's default, not the plugin's), where nothing bounds the size a client asks for and a
   * negative value reaches the resolver priced as 0 items.
   */
  unboundedSlicingArgument: 'unbounded-slicing-argument',
  /**
   * A `@listSize(sizedFields:)` with neither `slicingArguments` nor `assumedSize`: it has no size to
   * hand, so it reaches none of the lists it names, and they are priced at their own `@listSize` or
   * at `defaultListSize`.
   */
  sizedFieldsReachNoList: 'sized-fields-reach-no-list',
  /**
   * A negative `@cost` weight on a type, field, argument or input field: it lowers the price of
   * work the server still does (a field's call cost and an object's type cost are clamped at 0, so
   * it never lowers a sibling's).
   */
  negativeWeight: 'negative-weight',
  /**
   * `@cost` or `@listSize` declared by the schema (under the names its `@link`s give them) but
   * applied nowhere: every weight is the spec's default, or every list is priced at
   * `defaultListSize`. Often the sign of annotations that were lost on the way (an introspection
   * result carries no applied directives, a gateway's API schema neither).
   */
  unusedCostDirective: 'unused-cost-directive',
  /**
   * (info) A field priced with a `@listSize` that `inferListSizes` gave it (a Relay connection
   * sized by `first`/`last`), not one the schema writes.
   */
  inferredListSize: 'inferred-list-size',
} as const;

export type CostLintRule = (typeof CostLintRule)[keyof typeof CostLintRule];

/** Options of {@link lintCostSchema}. */
export interface LintCostSchemaOptions {
  /**
   * As for `createCostAnalyzer`: a gateway's supergraph SDL, whose directives apply to `schema` by
   * schema coordinate.
   * @default undefined (the directives are read from `schema` itself)
   */
  supergraphSdl?: string;
  /**
   * The size an unsized list is priced at, as named in the findings.
   * @default 10 (the cost engine's and the plugin's default)
   */
  defaultListSize?: number;
  /**
   * The largest list size a client may choose, as the findings assume: `Infinity` reports every
   * slicing argument as unbounded (`unbounded-slicing-argument`).
   * @default 10_000 (the plugin's `maxListSize`)
   */
  maxListSize?: number;
  /**
   * As for `createCostAnalyzer`: the list sizes inferred where the schema gives none. Each field
   * that gets one is reported (`inferred-list-size`), and the lists it sizes are no longer unsized.
   * @default false
   */
  inferListSizes?: 'relay' | false;
}

type AnyField = GraphQLField<unknown, unknown>;

interface LintContext {
  readonly schema: GraphQLSchema;
  readonly table: CostTable;
  readonly defaultListSize: number;
  readonly maxListSize: number;
  /** The list fields priced at `defaultListSize` for want of a bound (`unsizedLists`). */
  readonly unsized: ReadonlySet<AnyField>;
}

/**
 * What in a schema's cost directives makes prices meaningless or unbounded, each at its schema
 * coordinate (see {@link CostLintRule} for the rules). `supergraphSdl` as for `createCostAnalyzer`
 * (a gateway's weights). The findings come type by type in the schema's order, then the unused
 * directives.
 *
 * @throws {CostSchemaError} when the cost directives cannot be read (as `createCostAnalyzer`).
 * @throws {TypeError | RangeError} naming the option when an option is invalid.
 */
export function lintCostSchema(schema: GraphQLSchema, options: LintCostSchemaOptions = {}): CostLintFinding[] {
  if (!isSchema(schema)) throw new TypeError('lintCostSchema: `schema` must be a GraphQLSchema.');
  const { supergraphSdl, defaultListSize, maxListSize, inferListSizes } = readOptions(options);
  const table = costTableOf(schema, supergraphSdl, IBM_READING, inferListSizes === false ? undefined : inferListSizes);
  const context: LintContext = {
    schema,
    table,
    defaultListSize,
    maxListSize,
    unsized: new Set(unsizedLists(table).map(({ field }) => field)),
  };
  const findings: CostLintFinding[] = table.inferredFields.map((inferred) => inferredFinding(context, inferred));
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__')) continue;
    const weight = table.declaredTypeWeight(type);
    if (weight !== undefined && weight < 0) findings.push(negativeWeight(type.name, weight));
    if (isInputObjectType(type)) {
      for (const field of Object.values(type.getFields())) {
        const inputWeight = table.declaredInputWeight(field);
        const coordinate = `${type.name}.${field.name}`;
        if (inputWeight !== undefined && inputWeight < 0) findings.push(negativeWeight(coordinate, inputWeight));
      }
    }
    if (!isObjectType(type) && !isInterfaceType(type)) continue;
    for (const field of Object.values(type.getFields()) as AnyField[]) {
      findings.push(...fieldFindings(context, `${type.name}.${field.name}`, field));
    }
  }
  for (const directive of schema.getDirectives()) {
    if (isSpecifiedDirective(directive)) continue;
    for (const arg of directive.args) {
      const weight = table.inputWeight(arg);
      if (weight < 0) findings.push(negativeWeight(`@${directive.name}(${arg.name}:)`, weight));
    }
  }
  const annotated = supergraphSdl === undefined ? schema : supergraphSchema(supergraphSdl);
  findings.push(...unusedDirectives(annotated));
  return findings;
}

/** Every option's name (the type keeps the list complete). */
const LINT_OPTIONS = Object.keys({
  supergraphSdl: true,
  defaultListSize: true,
  maxListSize: true,
  inferListSizes: true,
} as const satisfies Record<keyof LintCostSchemaOptions, true>);

function readOptions(options: LintCostSchemaOptions): Required<Omit<LintCostSchemaOptions, 'supergraphSdl'>> & {
  supergraphSdl: string | undefined;
} {
  if (options === null || typeof options !== 'object') {
    throw new TypeError('lintCostSchema: options must be an object.');
  }
  checkKnownOptions('lintCostSchema', options, LINT_OPTIONS);
  const { supergraphSdl } = options;
  if (supergraphSdl !== undefined && typeof supergraphSdl !== 'string') {
    throw new TypeError(`lintCostSchema: \`supergraphSdl\` must be a string; got ${typeof supergraphSdl}.`);
  }
  const defaultListSize = options.defaultListSize ?? 10;
  const maxListSize = options.maxListSize ?? 10_000;
  for (const [name, value] of [
    ['defaultListSize', defaultListSize],
    ['maxListSize', maxListSize],
  ] as const) {
    if (typeof value !== 'number' || Number.isNaN(value) || value < 0) {
      throw new RangeError(
        `lintCostSchema: \`${name}\` must be a number ≥ 0 (Infinity allowed); got ${String(value)}.`,
      );
    }
  }
  const inferListSizes = options.inferListSizes ?? false;
  if (inferListSizes !== false && inferListSizes !== 'relay') {
    throw new RangeError(`lintCostSchema: \`inferListSizes\` must be 'relay' or false; got ${String(inferListSizes)}.`);
  }
  return { supergraphSdl, defaultListSize, maxListSize, inferListSizes };
}

/** The `inferred-list-size` finding of a field `inferListSizes` gave a `@listSize`. */
function inferredFinding(context: LintContext, { coordinate, listSize }: InferredField): CostLintFinding {
  const written = listSizeText(listSize);
  const neither = listSize.slicingArguments.join(' nor ');
  return {
    rule: CostLintRule.inferredListSize,
    coordinate,
    severity: 'info',
    message:
      `${coordinate}: a Relay connection, priced as if it carried ${written} (inferListSizes: 'relay'): an ` +
      `operation that gives neither ${neither} is priced at defaultListSize (${context.defaultListSize}) items. ` +
      'graphql-budget annotate writes the directive into the SDL.',
  };
}

/** The findings of one field: its list, its `@listSize` rules and slicing arguments, its weights. */
function fieldFindings(context: LintContext, coordinate: string, field: AnyField): CostLintFinding[] {
  const { table } = context;
  const rule = table.field(field);
  const findings: CostLintFinding[] = [];
  if (rule.ownWeight !== undefined && rule.ownWeight < 0) findings.push(negativeWeight(coordinate, rule.ownWeight));
  for (const arg of field.args) {
    const weight = table.declaredInputWeight(arg);
    if (weight !== undefined && weight < 0) findings.push(negativeWeight(`${coordinate}(${arg.name}:)`, weight));
  }
  if (context.unsized.has(field)) {
    findings.push({
      rule: CostLintRule.listWithoutListSize,
      severity: 'warning',
      coordinate,
      message:
        `${coordinate}: a list that no @listSize sizes, so it is priced at defaultListSize ` +
        `(${context.defaultListSize}) items before it runs, whatever it returns (a longer list is charged for the ` +
        'excess after it ran, but maxCost and the budget check only see the estimate). ' +
        'Give it @listSize(assumedSize: …) or a slicing argument.',
    });
  }
  // Rules inherited from an interface field are reported there; inferred rules as inferred.
  if (rule.inferredListSize === undefined) {
    for (const listSize of rule.ownListSizes) findings.push(...listSizeFindings(context, coordinate, field, listSize));
  }
  const clientSized = rule.listSizes.some((listSize) => listSize.slicingArguments.length > 0);
  if (rule.returnsLeaf && rule.listDepth > 0 && clientSized && rule.weight === 0) {
    if (table.typeWeight(rule.namedType) === 0) {
      findings.push({
        rule: CostLintRule.unweightedClientSizedLeafList,
        severity: 'warning',
        coordinate,
        message:
          `${coordinate}: a list of ${rule.namedType.name} whose size a client chooses, without a @cost on the ` +
          `field or on ${rule.namedType.name}: any length costs the same, so only maxListSize bounds its work. ` +
          'Give it a @cost weight if its items are expensive.',
      });
    }
  }
  return findings;
}

/** The findings of one `@listSize` written on a field: its slicing arguments and its `sizedFields`. */
function listSizeFindings(
  context: LintContext,
  coordinate: string,
  field: AnyField,
  listSize: ListSizeRule,
): CostLintFinding[] {
  const findings: CostLintFinding[] = [];
  if (listSize.sizedFields !== undefined && listSize.slicingArguments.length === 0) {
    if (listSize.assumedSize === undefined) {
      const named = [...sizedFieldNames(listSize.sizedFields)].join(', ');
      findings.push({
        rule: CostLintRule.sizedFieldsReachNoList,
        severity: 'warning',
        coordinate,
        message:
          `${coordinate}: @listSize(sizedFields:) has neither slicingArguments nor assumedSize, so it has no size ` +
          `to hand and reaches none of the lists it names (${named}): they are priced at their own @listSize or at ` +
          `defaultListSize (${context.defaultListSize}). Add the slicing argument that sizes them, or an assumedSize.`,
      });
    }
  }
  const alone = listSize.slicingArguments.length === 1;
  for (const path of listSize.slicingArguments) {
    const written = path.join('.');
    const argCoordinate = `${coordinate}(${path[0] as string}:)`;
    const slicing = `slicing argument ${written}`;
    if (context.maxListSize === Number.POSITIVE_INFINITY) {
      findings.push({
        rule: CostLintRule.unboundedSlicingArgument,
        severity: 'warning',
        coordinate: argCoordinate,
        message:
          `${argCoordinate}: ${slicing} of ${coordinate} has no bound: with maxListSize Infinity a client asks ` +
          'for any number of items (and a negative value reaches the resolver, priced as 0 items). ' +
          "Keep the plugin's maxListSize (10,000 by default) finite.",
      });
    }
    if (alwaysGiven(field, path)) continue;
    if (listSize.requireOneSlicingArgument && alone) {
      findings.push({
        rule: CostLintRule.slicingArgumentWithoutDefault,
        severity: 'warning',
        coordinate: argCoordinate,
        message:
          `${argCoordinate}: ${slicing} of ${coordinate} has no default, so an operation that leaves it out is ` +
          'refused (COST_QUERY_PARSE_FAILURE: @listSize requires one slicing argument) although the schema lets ' +
          'clients omit it. Give it a default (first: Int = 10) or make it non-null.',
      });
    } else if (!listSize.requireOneSlicingArgument && listSize.assumedSize === undefined) {
      findings.push({
        rule: CostLintRule.slicingArgumentWithoutDefault,
        severity: 'warning',
        coordinate: argCoordinate,
        message:
          `${argCoordinate}: ${slicing} of ${coordinate} has no default and requireOneSlicingArgument is false, so ` +
          `an operation that leaves it out is priced at defaultListSize (${context.defaultListSize}) items while ` +
          'the resolver decides how many it returns. Give it a default, or the @listSize an assumedSize.',
      });
    }
  }
  return findings;
}

function negativeWeight(coordinate: string, weight: number): CostLintFinding {
  return {
    rule: CostLintRule.negativeWeight,
    severity: 'warning',
    coordinate,
    message:
      `${coordinate}: @cost weight ${weight} is negative: it lowers the price of work the server still does ` +
      "(down to 0 for its own field or object, never below: it cannot lower a sibling's). " +
      'Use 0 unless the discount is deliberate.',
  };
}

/**
 * Whether a slicing argument path always has a value after coercion: every step is non-null, or
 * has a default (an argument's default, already coerced, is read along the rest of the path).
 */
function alwaysGiven(field: AnyField, path: readonly string[]): boolean {
  const arg: GraphQLArgument | undefined = field.args.find((candidate) => candidate.name === path[0]);
  if (arg === undefined) return false;
  if (arg.defaultValue !== undefined && arg.defaultValue !== null) {
    let value: unknown = arg.defaultValue;
    for (const segment of path.slice(1)) {
      value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[segment] : undefined;
    }
    if (value !== undefined && value !== null) return true;
  }
  if (!isNonNullType(arg.type)) return false;
  let type: GraphQLInputType = arg.type;
  for (const segment of path.slice(1)) {
    const parent: GraphQLInputType = getNullableType(type);
    const inputField: GraphQLInputField | undefined = isInputObjectType(parent)
      ? parent.getFields()[segment]
      : undefined;
    if (inputField === undefined) return false;
    const hasDefault = inputField.defaultValue !== undefined && inputField.defaultValue !== null;
    if (!hasDefault && !isNonNullType(inputField.type)) return false;
    if (hasDefault) return true;
    type = inputField.type;
  }
  return true;
}

/** Every type, field, argument and input field of a schema, where a code-first schema keeps its directives. */
function* codeFirstElements(schema: GraphQLSchema): Generator<CodeFirstElement> {
  for (const type of Object.values(schema.getTypeMap())) {
    yield type;
    if (isObjectType(type) || isInterfaceType(type)) {
      for (const field of Object.values(type.getFields())) {
        yield field;
        yield* field.args;
      }
    } else if (isInputObjectType(type)) {
      yield* Object.values(type.getFields());
    }
  }
}

/**
 * `@cost` and `@listSize` (under the schema's names for them) when the schema defines them but no
 * type, field, argument, input field or directive argument applies them, in SDL or in a code-first
 * schema's `extensions`.
 */
function unusedDirectives(annotated: GraphQLSchema): CostLintFinding[] {
  const names = costDirectiveNames(annotated);
  const applied = new Set<string>();
  const nodes: ASTNode[] = [];
  for (const holder of [annotated, ...Object.values(annotated.getTypeMap()), ...annotated.getDirectives()]) {
    if (holder.astNode) nodes.push(holder.astNode);
    if ('extensionASTNodes' in holder) nodes.push(...holder.extensionASTNodes);
  }
  for (const node of nodes) {
    visit(node, {
      Directive(directive) {
        applied.add(directive.name.value);
      },
    });
  }
  for (const element of codeFirstElements(annotated)) {
    for (const directive of extensionDirectives(element)?.directives ?? []) applied.add(directive.name.value);
  }
  const findings: CostLintFinding[] = [];
  const unused = [
    [names.cost, 'every weight is the default (1 for an object or composite field, 0 for a scalar or enum)'],
    [names.listSize, 'every list is priced at defaultListSize items'],
  ] as const;
  for (const [name, consequence] of unused) {
    if (!annotated.getDirective(name) || applied.has(name)) continue;
    const coordinate = `@${name}`;
    findings.push({
      rule: CostLintRule.unusedCostDirective,
      severity: 'warning',
      coordinate,
      message: `${coordinate}: declared but applied nowhere, so ${consequence}. Annotate the schema, or check that the annotations reached this copy of it.`,
    });
  }
  return findings;
}
