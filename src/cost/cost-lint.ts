import { isSchema, isInterfaceType, isObjectType } from 'graphql';
import type { GraphQLField, GraphQLSchema } from 'graphql';
import { costTableOf } from './analyzer.js';

/** One thing in a schema that makes prices meaningless or unbounded, at its schema coordinate. */
export interface CostLintFinding {
  /** What kind of problem it is. */
  readonly rule: CostLintRule;
  /** Where: `Type.field`. */
  readonly coordinate: string;
  /** A sentence saying what is wrong and what to do, starting with the coordinate. */
  readonly message: string;
}

/** The kinds of `CostLintFinding`. */
export const CostLintRule = {
  /**
   * A list of scalars or enums whose size a client chooses (a slicing argument) and that weighs
   * nothing: no `@cost` on the field or on the item type. Only `maxListSize` bounds its work.
   */
  unweightedClientSizedLeafList: 'unweighted-client-sized-leaf-list',
} as const;

export type CostLintRule = (typeof CostLintRule)[keyof typeof CostLintRule];

/**
 * What in a schema's cost directives makes prices meaningless or unbounded, each at its schema
 * coordinate. `supergraphSdl` as for `createCostAnalyzer` (a gateway's weights).
 *
 * @throws {CostSchemaError} when the cost directives cannot be read (as `createCostAnalyzer`).
 */
export function lintCostSchema(schema: GraphQLSchema, options: { supergraphSdl?: string } = {}): CostLintFinding[] {
  if (!isSchema(schema)) throw new TypeError('lintCostSchema: `schema` must be a GraphQLSchema.');
  const table = costTableOf(schema, options.supergraphSdl);
  const findings: CostLintFinding[] = [];
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__') || !(isObjectType(type) || isInterfaceType(type))) continue;
    for (const field of Object.values(type.getFields()) as GraphQLField<unknown, unknown>[]) {
      const rule = table.field(field);
      const clientSized = rule.listSizes.some((listSize) => listSize.slicingArguments.length > 0);
      if (!rule.returnsLeaf || rule.listDepth === 0 || !clientSized) continue;
      if (rule.weight !== 0 || table.typeWeight(rule.namedType) !== 0) continue;
      const coordinate = `${type.name}.${field.name}`;
      findings.push({
        rule: CostLintRule.unweightedClientSizedLeafList,
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
