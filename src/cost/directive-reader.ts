import { GraphQLDirective, GraphQLNonNull, GraphQLScalarType, Kind, getArgumentValues, print } from 'graphql';
import type { ConstDirectiveNode, FieldDefinitionNode, GraphQLField, GraphQLSchema } from 'graphql';
import { costDirective, listSizeDirective } from './directives.js';
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

/** The names of `@cost` and `@listSize`, without the `@`. */
export interface CostDirectiveNames {
  readonly cost: string;
  readonly listSize: string;
}

/**
 * Reads `@cost` and `@listSize` (IBM cost spec names). Several `@listSize` on one field are read
 * only where the schema defines the directive `repeatable`.
 */
export class CostDirectiveReader {
  readonly names: CostDirectiveNames = { cost: costDirective.name, listSize: listSizeDirective.name };
  private readonly costReader: GraphQLDirective;
  private readonly listSizeReader: GraphQLDirective;
  private readonly listSizeRepeatable: boolean;

  constructor(
    annotated: GraphQLSchema,
    private readonly problems: string[],
  ) {
    const names = this.names;
    this.costReader = new GraphQLDirective({
      name: names.cost,
      locations: costDirective.locations,
      args: { weight: { type: new GraphQLNonNull(CostWeightScalar) } },
    });
    this.listSizeReader = new GraphQLDirective({ ...listSizeDirective.toConfig(), name: names.listSize });
    const listSize = annotated.getDirective(names.listSize);
    this.listSizeRepeatable = listSize?.isRepeatable === true;
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

  /** Every `@listSize` on the field definition `node`, as rules checked against `field`. */
  listSizes(
    field: GraphQLField<unknown, unknown>,
    node: FieldDefinitionNode | null | undefined,
    coordinate: string,
  ): ListSizeRule[] {
    const name = this.names.listSize;
    const applications = node?.directives?.filter((directive) => directive.name.value === name) ?? [];
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
}
