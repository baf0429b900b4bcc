import { isObjectType } from 'graphql';
import type { FieldNode, GraphQLAbstractType, GraphQLObjectType, SelectionSetNode } from 'graphql';
import type { CostTable, FieldCostRule } from './cost-table.js';
import { maxCost, reported, ZERO_COST, type Cost } from './cost-math.js';
import { FieldCallCache } from './field-call.js';
import type { CollectedFields, FieldCollector } from './field-collector.js';
import type { ResolvedOperation } from './operation.js';
import type { CostEstimate } from './types.js';

type ResponseObject = Readonly<Record<string, unknown>>;

/**
 * The cost of what a response actually returned: the static estimate's rules (see
 * `StaticEstimator`) applied to the response `data` instead of to assumed sizes.
 *
 * - A field is paid (its call cost) when its response key is present in its parent object, even
 *   when its value is null; a field absent from the data (parent nulled, partial data) is not.
 * - Type weights are paid once per non-null value, using the real length of every list.
 * - An object under an interface or union is priced as its `__typename` (under any alias) names.
 *   Without `__typename`, the possible types whose collected response keys match the object's
 *   keys are candidates and the costliest is taken (all possible types if none match); the
 *   result then stays an upper bound, like the estimate.
 * - Clamping at 0 happens per field, as in the estimate; so `actual ≤ estimate` whenever every
 *   list is no longer than its estimated size.
 */
export class ActualCoster {
  private readonly calls: FieldCallCache;
  /** The selection sets below each collected field group (the same array on every visit). */
  private readonly selectionSets = new Map<readonly FieldNode[], readonly SelectionSetNode[]>();
  /** The collector's answers by selection-set array and type, without building its string key per object. */
  private readonly collected = new Map<readonly SelectionSetNode[], Map<GraphQLObjectType, CollectedFields>>();
  private readonly rootSelectionSets: readonly SelectionSetNode[];

  constructor(
    private readonly table: CostTable,
    private readonly operation: ResolvedOperation,
    private readonly collector: FieldCollector,
    private readonly introspectionIsFree: boolean,
  ) {
    this.calls = new FieldCallCache(table, operation.variables);
    this.rootSelectionSets = [operation.operation.selectionSet];
  }

  /** May be called again for another response of the same request: each call starts a fresh `maxNodes` count. */
  cost(data: ResponseObject | null | undefined): CostEstimate {
    if (data === null || data === undefined) return { typeCost: 0, fieldCost: 0 };
    this.collector.visited = 0;
    const root = this.objectCost(this.operation.rootType, this.rootSelectionSets, data);
    return { typeCost: reported(Math.max(0, root.typeCost)), fieldCost: reported(root.fieldCost) };
  }

  private objectCost(type: GraphQLObjectType, selectionSets: readonly SelectionSetNode[], value: ResponseObject): Cost {
    let typeCost = this.table.typeWeight(type);
    let fieldCost = 0;
    for (const [responseKey, nodes] of this.fieldsOf(type, selectionSets)) {
      if (!Object.hasOwn(value, responseKey)) continue;
      const field = this.fieldCost(type, nodes, value[responseKey]);
      typeCost += field.typeCost;
      fieldCost += field.fieldCost;
    }
    return { typeCost, fieldCost };
  }

  private fieldCost(parent: GraphQLObjectType, nodes: readonly FieldNode[], value: unknown): Cost {
    const call = this.calls.price(parent, nodes);
    if (call === null) return ZERO_COST;
    if (call.isIntrospection && this.introspectionIsFree) return ZERO_COST;
    const returned = this.valueCost(call.rule, call.rule.listDepth, this.selectionSetsOf(call.rule, nodes), value);
    return {
      typeCost: Math.max(0, returned.typeCost),
      fieldCost: Math.max(0, call.callCost + returned.fieldCost),
    };
  }

  private fieldsOf(type: GraphQLObjectType, selectionSets: readonly SelectionSetNode[]): CollectedFields {
    let byType = this.collected.get(selectionSets);
    if (byType === undefined) {
      byType = new Map();
      this.collected.set(selectionSets, byType);
    }
    let fields = byType.get(type);
    if (fields === undefined) {
      fields = this.collector.collect(type, selectionSets);
      byType.set(type, fields);
    }
    return fields;
  }

  private selectionSetsOf(rule: FieldCostRule, nodes: readonly FieldNode[]): readonly SelectionSetNode[] {
    let selectionSets = this.selectionSets.get(nodes);
    if (selectionSets === undefined) {
      selectionSets = rule.returnsLeaf ? [] : nodes.map((node) => node.selectionSet as SelectionSetNode);
      this.selectionSets.set(nodes, selectionSets);
    }
    return selectionSets;
  }

  /** Cost of a returned value `depth` list levels above the field's named type. */
  private valueCost(
    rule: FieldCostRule,
    depth: number,
    selectionSets: readonly SelectionSetNode[],
    value: unknown,
  ): Cost {
    if (value === null || value === undefined) return ZERO_COST;
    if (depth > 0) {
      if (!Array.isArray(value)) return ZERO_COST;
      let typeCost = 0;
      let fieldCost = 0;
      for (const item of value) {
        const cost = this.valueCost(rule, depth - 1, selectionSets, item);
        typeCost += cost.typeCost;
        fieldCost += cost.fieldCost;
      }
      return { typeCost, fieldCost };
    }
    if (rule.returnsLeaf) return { typeCost: this.table.typeWeight(rule.namedType), fieldCost: 0 };
    if (typeof value !== 'object') return ZERO_COST;
    const object = value as ResponseObject;
    if (rule.objectType !== undefined) return this.objectCost(rule.objectType, selectionSets, object);
    let cost: Cost | undefined;
    for (const candidate of this.runtimeTypes(rule.namedType as GraphQLAbstractType, selectionSets, object)) {
      const candidateCost = this.objectCost(candidate, selectionSets, object);
      cost = cost === undefined ? candidateCost : maxCost(cost, candidateCost);
    }
    return cost ?? ZERO_COST;
  }

  /** The object types a response object under an abstract type may be (one when `__typename` says). */
  private runtimeTypes(
    abstract: GraphQLAbstractType,
    selectionSets: readonly SelectionSetNode[],
    object: ResponseObject,
  ): readonly GraphQLObjectType[] {
    const schema = this.table.schema;
    const named = object.__typename;
    if (typeof named === 'string') {
      const type = schema.getType(named);
      if (isObjectType(type) && schema.isSubType(abstract, type)) {
        const typename = this.fieldsOf(type, selectionSets).get('__typename');
        if (typename?.[0]?.name.value === '__typename') return [type];
      }
    }
    const possible = schema.getPossibleTypes(abstract);
    const candidates: GraphQLObjectType[] = [];
    for (const type of possible) {
      const fields = this.fieldsOf(type, selectionSets);
      const typename = typenameOf(fields, object);
      if (typename === type.name) return [type];
      if (typename === undefined && keysMatch(fields, object)) candidates.push(type);
    }
    return candidates.length > 0 ? candidates : possible;
  }
}

/** The value of the first response key that selects `__typename`, if any. */
function typenameOf(fields: CollectedFields, object: ResponseObject): string | undefined {
  for (const [responseKey, nodes] of fields) {
    if (nodes[0]?.name.value === '__typename' && typeof object[responseKey] === 'string') {
      return object[responseKey] as string;
    }
  }
  return undefined;
}

function keysMatch(fields: CollectedFields, object: ResponseObject): boolean {
  let count = 0;
  for (const key in object) {
    if (!fields.has(key)) return false;
    count += 1;
  }
  return count === fields.size;
}
