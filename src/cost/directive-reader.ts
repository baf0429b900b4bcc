import {
  GraphQLDirective,
  GraphQLNonNull,
  GraphQLScalarType,
  Kind,
  getArgumentValues,
  getNullableType,
  isListType,
  isNonNullType,
  print,
} from 'graphql';
import type { ConstDirectiveNode, GraphQLArgument, GraphQLField, GraphQLSchema, GraphQLType } from 'graphql';
import { costDirective, listSizeDirective } from './directives.js';
import { costDirectiveNames, type CostDirectiveNames } from './link-names.js';
import { listSizeRule, type ListSizeRule } from './list-size-rule.js';

/** An AST node that may carry directives (a definition or an extension). */
export type DirectiveHolder = { readonly directives?: ReadonlyArray<ConstDirectiveNode> };

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

/** The argument shapes of the cost spec's `@listSize` (nullability aside). */
const LIST_SIZE_ARGUMENTS: Readonly<Record<string, string>> = {
  assumedSize: 'Int',
  slicingArguments: '[String]',
  sizedFields: '[String]',
  requireOneSlicingArgument: 'Boolean',
};

/** Options of {@link CostDirectiveReader}. */
export interface DirectiveReaderOptions {
  /**
   * Whether a directive that a `@link` names explicitly must be defined by the schema. Apollo
   * Router does not ask it (an undefined directive is simply never applied), so the `'apollo'`
   * model turns it off; a definition with other arguments stays a problem either way.
   */
  readonly requireLinkedDefinitions: boolean;
}

/**
 * Reads `@cost` and `@listSize` under the names the annotated schema gives them (see
 * `costDirectiveNames`). When the names come from a `@link`, the schema must define each directive
 * the link names explicitly (a direct link to the cost spec names both; a Federation link names
 * what it imports), unless `requireLinkedDefinitions` is off, and with the spec's arguments; a
 * problem names the link otherwise. Several `@listSize` on one field are read only where the
 * schema defines the directive `repeatable`.
 */
export class CostDirectiveReader {
  readonly names: CostDirectiveNames;
  private readonly costReader: GraphQLDirective;
  private readonly listSizeReader: GraphQLDirective;
  private readonly listSizeRepeatable: boolean;

  constructor(
    annotated: GraphQLSchema,
    private readonly problems: string[],
    private readonly options: DirectiveReaderOptions = { requireLinkedDefinitions: true },
  ) {
    const names = costDirectiveNames(annotated);
    this.names = names;
    this.costReader = new GraphQLDirective({
      name: names.cost,
      locations: costDirective.locations,
      args: { weight: { type: new GraphQLNonNull(CostWeightScalar) } },
    });
    this.listSizeReader = new GraphQLDirective({ ...listSizeDirective.toConfig(), name: names.listSize });
    const listSize = annotated.getDirective(names.listSize);
    this.listSizeRepeatable = listSize?.isRepeatable === true;
    if (names.link === undefined) return;
    const cost = annotated.getDirective(names.cost);
    this.checkDefinition('@cost', names.cost, cost, names.costRequired, costArgumentsFit);
    this.checkDefinition('@listSize', names.listSize, listSize, names.listSizeRequired, listSizeArgumentsFit);
  }

  /** The `@cost` weight on the first of `nodes` that has one; a weight that is not a number is a problem. */
  weight(nodes: readonly (DirectiveHolder | null | undefined)[], coordinate: string): number | undefined {
    const name = this.names.cost;
    for (const node of nodes) {
      const directive = node?.directives?.find((candidate) => candidate.name.value === name);
      if (directive === undefined) continue;
      try {
        return getArgumentValues(this.costReader, directive).weight as number;
      } catch {
        const weight = directive.arguments?.find((arg) => arg.name.value === 'weight');
        const written = weight === undefined ? 'no weight' : print(weight.value);
        this.problems.push(`${coordinate}: @${name} weight ${written} is not a finite number.`);
        return undefined;
      }
    }
    return undefined;
  }

  /**
   * Every `@listSize` on the field, as rules checked against `field`: those of the first of `nodes`
   * that has any (its SDL definition before the directives a code-first schema keeps in its
   * `extensions`, which some builders write in both places).
   */
  listSizes(
    field: GraphQLField<unknown, unknown>,
    nodes: readonly (DirectiveHolder | null | undefined)[],
    coordinate: string,
  ): ListSizeRule[] {
    const name = this.names.listSize;
    let applications: readonly ConstDirectiveNode[] = [];
    for (const node of nodes) {
      applications = node?.directives?.filter((directive) => directive.name.value === name) ?? [];
      if (applications.length > 0) break;
    }
    if (applications.length > 1 && !this.listSizeRepeatable) {
      this.problems.push(
        `${coordinate}: @${name} is given ${applications.length} times, but the schema does not define it repeatable.`,
      );
      return [];
    }
    const rules: ListSizeRule[] = [];
    for (const application of applications) {
      let values: Record<string, unknown>;
      try {
        values = getArgumentValues(this.listSizeReader, application);
      } catch (error) {
        this.problems.push(`${coordinate}: @${name} is malformed (${(error as Error).message}).`);
        continue;
      }
      const rule = listSizeRule(field, values, coordinate, this.problems);
      if (rule !== undefined) rules.push(rule);
    }
    return rules;
  }

  private checkDefinition(
    element: string,
    name: string,
    definition: GraphQLDirective | null | undefined,
    required: boolean,
    fits: (args: readonly GraphQLArgument[]) => boolean,
  ): void {
    const link = this.names.link as string;
    if (definition === null || definition === undefined) {
      if (required && this.options.requireLinkedDefinitions) {
        this.problems.push(`${link}: names the cost spec's ${element} @${name}, but the schema defines no @${name}.`);
      }
      return;
    }
    if (!fits(definition.args)) {
      const written = definition.args.map((arg) => `${arg.name}: ${String(arg.type)}`).join(', ');
      const wanted =
        element === '@cost'
          ? 'weight: String!, Int! or Float!'
          : Object.entries(LIST_SIZE_ARGUMENTS)
              .map(([arg, type]) => `${arg}: ${type}`)
              .join(', ');
      this.problems.push(
        `${link}: names the cost spec's ${element} @${name}, but the schema defines @${name}(${written}), ` +
          `which does not take the spec's arguments (${wanted}).`,
      );
    }
  }
}

function costArgumentsFit(args: readonly GraphQLArgument[]): boolean {
  const weight = args.find((arg) => arg.name === 'weight');
  if (weight === undefined || !['String', 'Int', 'Float'].includes(shapeOf(weight.type))) return false;
  return args.every((arg) => arg === weight || !isRequired(arg));
}

function listSizeArgumentsFit(args: readonly GraphQLArgument[]): boolean {
  return args.every((arg) => {
    const wanted = LIST_SIZE_ARGUMENTS[arg.name];
    return wanted === undefined ? !isRequired(arg) : shapeOf(arg.type) === wanted;
  });
}

function isRequired(arg: GraphQLArgument): boolean {
  return isNonNullType(arg.type) && arg.defaultValue === undefined;
}

/** A type as written without its `!`s: `[String!]!` → `[String]`. */
function shapeOf(type: GraphQLType): string {
  const nullable = getNullableType(type);
  return isListType(nullable) ? `[${shapeOf(nullable.ofType as GraphQLType)}]` : String(nullable);
}
