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
import { CostAnalysisError, CostErrorCode } from './errors.js';
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
 * bounded by the schema's size times the operation's. Collecting the operation's selections counts
 * against `maxNodes` as any selection does, but visiting the schema's values does not: the
 * standard introspection query visits about eight values per element of the schema (90,000 on
 * GitHub's), far beyond what `maxNodes` allows a client's own selections. Those visits have a
 * bound of their own (`introspectionWorkLimit`), the larger of `maxNodes` and 16 per element of
 * the schema, so that an introspection nested on purpose is refused after bounded work.
 */
export class IntrospectionCoster {
  readonly #memo = new Map<unknown, Map<string, Cost>>();
  readonly #info: GraphQLResolveInfo;
  readonly #limit: number;
  readonly #arguments = new Map<readonly FieldNode[], Record<string, unknown>>();
  readonly #below = new Map<readonly FieldNode[], readonly SelectionSetNode[]>();
  readonly #keys = new Map<readonly SelectionSetNode[], Map<GraphQLObjectType, string>>();
  /** Introspection fields resolved so far (each once per value, type and selection). */
  #visits = 0;

  constructor(
    private readonly table: CostTable,
    private readonly operation: ResolvedOperation,
    private readonly collector: FieldCollector,
    private readonly calls: FieldCallCache,
  ) {
    this.#info = { schema: table.schema } as GraphQLResolveInfo;
    this.#limit = introspectionWorkLimit(table, collector.maxNodes);
  }

  /** A root introspection field (`__schema` or `__type`) with its merged selection sets. */
  fieldCost(call: FieldCall, nodes: readonly FieldNode[], selectionSets: readonly SelectionSetNode[]): Cost {
    const value = this.#resolve(call.definition, undefined, nodes);
    const returned = this.#valueCost(call.definition.type, value, selectionSets);
    return { typeCost: Math.max(0, returned.typeCost), fieldCost: Math.max(0, call.callCost + returned.fieldCost) };
  }

  #resolve(definition: AnyField, source: unknown, nodes: readonly FieldNode[]): unknown {
    // The same arguments for every value the field is resolved on.
    let args = this.#arguments.get(nodes);
    if (args === undefined) {
      args = getArgumentValues(definition, nodes[0] as FieldNode, this.operation.variables as Record<string, unknown>);
      this.#arguments.set(nodes, args);
    }
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
    const key = this.#keyOf(type, selectionSets);
    let byValue = this.#memo.get(value);
    const cached = byValue?.get(key);
    if (cached !== undefined) return cached;
    let typeCost = this.table.typeWeight(type);
    let fieldCost = 0;
    for (const [, nodes] of this.collector.collect(type, selectionSets, key)) {
      this.#visits += 1;
      if (this.#visits > this.#limit) throw tooLargeIntrospection(this.#limit);
      const call = this.calls.price(type, nodes);
      if (call === null) continue; // __typename
      const below = call.rule.returnsLeaf ? NO_SELECTION_SETS : this.#selectionSetsBelow(nodes);
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

  /** The selection sets below a field group: one array per group, so that its memo key is built once. */
  #selectionSetsBelow(nodes: readonly FieldNode[]): readonly SelectionSetNode[] {
    let below = this.#below.get(nodes);
    if (below === undefined) {
      below = nodes.map((node) => node.selectionSet as SelectionSetNode);
      this.#below.set(nodes, below);
    }
    return below;
  }

  /** `${type.name}:${collector.keyOf(selectionSets)}`, built once per array and type. */
  #keyOf(type: GraphQLObjectType, selectionSets: readonly SelectionSetNode[]): string {
    let byType = this.#keys.get(selectionSets);
    if (byType === undefined) {
      byType = new Map();
      this.#keys.set(selectionSets, byType);
    }
    let key = byType.get(type);
    if (key === undefined) {
      key = `${type.name}:${this.collector.keyOf(selectionSets)}`;
      byType.set(type, key);
    }
    return key;
  }
}

const NO_SELECTION_SETS: readonly SelectionSetNode[] = [];

/** Introspection fields resolved per element of the schema at most, in pricing one operation's introspection. */
const VISITS_PER_ELEMENT = 16;

/** The most schema values pricing one operation's introspection may visit: see `IntrospectionCoster`. */
export function introspectionWorkLimit(table: CostTable, maxNodes: number): number {
  return Math.max(maxNodes, VISITS_PER_ELEMENT * table.schemaElements());
}

function tooLargeIntrospection(limit: number): CostAnalysisError {
  return new CostAnalysisError(
    CostErrorCode.limit,
    `The operation's introspection is too large to price: pricing it resolves more than ${limit} fields of the ` +
      `schema's introspection (${VISITS_PER_ELEMENT} per type, field, argument, input field and enum value of the ` +
      'schema), the limit. Ask for less at once: the standard introspection query needs about half of it.',
  );
}
