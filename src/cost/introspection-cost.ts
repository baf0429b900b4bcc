import { defaultFieldResolver, getArgumentValues, getNamedType, isLeafType, isObjectType } from 'graphql';
import type {
  FieldNode,
  GraphQLField,
  GraphQLObjectType,
  GraphQLOutputType,
  GraphQLResolveInfo,
  SelectionSetNode,
} from 'graphql';
import type { CostTable } from './cost-table.js';
import { ZERO_COST, type Cost } from './cost-math.js';
import type { FieldCall, FieldCallCache } from './field-call.js';
import type { FieldCollector } from './field-collector.js';
import type { ResolvedOperation } from './operation.js';

type AnyField = GraphQLField<unknown, unknown>;

/**
 * The exact price of an introspection selection (`__schema { … }`, `__type(name:) { … }`) on one
 * schema: what the response will hold, computed from the schema itself with graphql-js's own
 * introspection resolvers (pure functions of the schema), priced by the same rules as a response
 * (each field present its call cost, each non-null value its type's weight). So introspection is
 * priced by the schema's real sizes: its actual types, the fields of each, the arguments of each
 * field, and so on, not `defaultListSize` per list, and not the largest count at every level.
 *
 * The work is memoized per (value, type, merged selection sets): a type reached from many fields
 * (every `type { … }` of the fields that return it) is priced once per selection, so the work is
 * bounded by the schema's size times the operation's, and every visit counts against `maxNodes`.
 */
export class IntrospectionCoster {
  readonly #memo = new Map<unknown, Map<string, Cost>>();
  readonly #info: GraphQLResolveInfo;

  constructor(
    private readonly table: CostTable,
    private readonly operation: ResolvedOperation,
    private readonly collector: FieldCollector,
    private readonly calls: FieldCallCache,
  ) {
    this.#info = { schema: table.schema } as GraphQLResolveInfo;
  }

  /** A root introspection field (`__schema` or `__type`) with its merged selection sets. */
  fieldCost(call: FieldCall, nodes: readonly FieldNode[], selectionSets: readonly SelectionSetNode[]): Cost {
    const value = this.#resolve(call.definition, undefined, nodes);
    const returned = this.#valueCost(call.definition.type, value, selectionSets);
    return { typeCost: Math.max(0, returned.typeCost), fieldCost: Math.max(0, call.callCost + returned.fieldCost) };
  }

  #resolve(definition: AnyField, source: unknown, nodes: readonly FieldNode[]): unknown {
    const args = getArgumentValues(
      definition,
      nodes[0] as FieldNode,
      this.operation.variables as Record<string, unknown>,
    );
    const resolve = definition.resolve ?? defaultFieldResolver;
    return resolve(source, args, undefined, this.#info);
  }

  /** What a value of `type` (list levels included) costs with its selection. */
  #valueCost(type: GraphQLOutputType, value: unknown, selectionSets: readonly SelectionSetNode[]): Cost {
    if (value === null || value === undefined) return ZERO_COST;
    const named = getNamedType(type);
    if (Array.isArray(value)) {
      let typeCost = 0;
      let fieldCost = 0;
      for (const item of value) {
        const cost = this.#valueCost(named, item, selectionSets);
        typeCost += cost.typeCost;
        fieldCost += cost.fieldCost;
      }
      return { typeCost, fieldCost };
    }
    if (isLeafType(named) || !isObjectType(named)) return { typeCost: this.table.typeWeight(named), fieldCost: 0 };
    return this.#objectCost(named, value, selectionSets);
  }

  #objectCost(type: GraphQLObjectType, value: unknown, selectionSets: readonly SelectionSetNode[]): Cost {
    const key = `${type.name}:${this.collector.keyOf(selectionSets)}`;
    let byValue = this.#memo.get(value);
    const cached = byValue?.get(key);
    if (cached !== undefined) return cached;
    let typeCost = this.table.typeWeight(type);
    let fieldCost = 0;
    for (const [, nodes] of this.collector.collect(type, selectionSets, key)) {
      this.collector.tick();
      const call = this.calls.price(type, nodes);
      if (call === null) continue; // __typename
      const below = call.rule.returnsLeaf ? [] : nodes.map((node) => node.selectionSet as SelectionSetNode);
      const returned = this.#valueCost(call.definition.type, this.#resolve(call.definition, value, nodes), below);
      typeCost += Math.max(0, returned.typeCost);
      fieldCost += Math.max(0, call.callCost + returned.fieldCost);
    }
    const cost = { typeCost, fieldCost };
    if (byValue === undefined) {
      byValue = new Map();
      this.#memo.set(value, byValue);
    }
    byValue.set(key, cost);
    return cost;
  }
}
