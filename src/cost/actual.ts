import { getNamedType, getNullableType, isLeafType, isListType, isObjectType } from 'graphql';
import type {
  FieldNode,
  GraphQLAbstractType,
  GraphQLObjectType,
  GraphQLOutputType,
  SelectionSetNode,
} from 'graphql';
import type { CostTable } from './cost-table.js';
import { addCost, maxCost, reported, ZERO_COST, type Cost } from './cost-math.js';
import { fieldDefinition, priceFieldCall } from './field-call.js';
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
  constructor(
    private readonly table: CostTable,
    private readonly operation: ResolvedOperation,
    private readonly collector: FieldCollector,
    private readonly introspectionIsFree: boolean,
  ) {}

  cost(data: ResponseObject | null | undefined): CostEstimate {
    if (data === null || data === undefined) return { typeCost: 0, fieldCost: 0 };
    const root = this.objectCost(this.operation.rootType, [this.operation.operation.selectionSet], data);
    return { typeCost: reported(Math.max(0, root.typeCost)), fieldCost: reported(root.fieldCost) };
  }

  private objectCost(type: GraphQLObjectType, selectionSets: readonly SelectionSetNode[], value: ResponseObject): Cost {
    let cost: Cost = { typeCost: this.table.typeWeight(type), fieldCost: 0 };
    for (const [responseKey, nodes] of this.collector.collect(type, selectionSets)) {
      if (Object.hasOwn(value, responseKey)) cost = addCost(cost, this.fieldCost(type, nodes, value[responseKey]));
    }
    return cost;
  }

  private fieldCost(parent: GraphQLObjectType, nodes: readonly FieldNode[], value: unknown): Cost {
    const definition = fieldDefinition(this.table.schema, parent, (nodes[0] as FieldNode).name.value);
    if (definition === undefined) return ZERO_COST;
    const call = priceFieldCall(this.table, definition, nodes, this.operation.variables);
    if (call.isIntrospection && this.introspectionIsFree) return ZERO_COST;
    const selectionSets = nodes.map((node) => node.selectionSet as SelectionSetNode);
    const returned = this.valueCost(definition.type, selectionSets, value);
    return {
      typeCost: Math.max(0, returned.typeCost),
      fieldCost: Math.max(0, call.callCost + returned.fieldCost),
    };
  }

  private valueCost(type: GraphQLOutputType, selectionSets: readonly SelectionSetNode[], value: unknown): Cost {
    if (value === null || value === undefined) return ZERO_COST;
    const nullable = getNullableType(type);
    if (isListType(nullable)) {
      if (!Array.isArray(value)) return ZERO_COST;
      let cost = ZERO_COST;
      for (const item of value) cost = addCost(cost, this.valueCost(nullable.ofType, selectionSets, item));
      return cost;
    }
    const named = getNamedType(nullable);
    if (isLeafType(named)) return { typeCost: this.table.typeWeight(named), fieldCost: 0 };
    if (typeof value !== 'object') return ZERO_COST;
    const object = value as ResponseObject;
    if (isObjectType(named)) return this.objectCost(named, selectionSets, object);
    let cost: Cost | undefined;
    for (const candidate of this.runtimeTypes(named, selectionSets, object)) {
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
    const named = object['__typename'];
    if (typeof named === 'string') {
      const type = schema.getType(named);
      if (isObjectType(type) && schema.isSubType(abstract, type)) {
        const typename = this.collector.collect(type, selectionSets).get('__typename');
        if (typename?.[0]?.name.value === '__typename') return [type];
      }
    }
    const possible = schema.getPossibleTypes(abstract);
    const candidates: GraphQLObjectType[] = [];
    for (const type of possible) {
      const fields = this.collector.collect(type, selectionSets);
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
