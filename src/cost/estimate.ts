import type { FieldNode, GraphQLCompositeType, GraphQLObjectType, SelectionSetNode } from 'graphql';
import type { CostTable } from './cost-table.js';
import { FieldCallCache, type FieldCall } from './field-call.js';
import type { FieldCollector } from './field-collector.js';
import { maxCost, reported, scale, ZERO_COST, type Cost } from './cost-math.js';
import type { ResolvedOperation } from './operation.js';
import type { CostEstimate, FieldCostBreakdown } from './types.js';

/** Settings of one static estimate. */
export interface EstimateSettings {
  readonly defaultListSize: number;
  readonly introspectionIsFree: boolean;
}

/** The size `@listSize(sizedFields:)` of the enclosing field hands to its child lists. */
interface SizedFields {
  readonly names: readonly string[];
  readonly size: number;
}

/** Where a breakdown entry goes: response path so far and the product of enclosing list sizes. */
interface Trace {
  readonly path: string;
  readonly multiplier: number;
  readonly sink: FieldCostBreakdown[];
}

/**
 * The static estimate of the IBM "GraphQL Cost Directives" spec ("Static analysis of the
 * operation") for one resolved operation.
 *
 * - typeCost: the root type's weight plus, for every field, the weight of its named return type
 *   and of everything selected below it, times the field's list size.
 * - fieldCost: for every field, its call cost (see `priceFieldCall`) plus the fieldCost of its
 *   selection times its list size.
 * - Fields are collected as execution collects them (duplicates and fragments merged, `@skip` /
 *   `@include` applied). Each field's typeCost and fieldCost are clamped at 0 separately, so a
 *   negative weight offsets its own field and never a sibling.
 * - An abstract type costs the maximum, over its possible object types, of that type's weight plus
 *   its collected selection (typeCost and fieldCost maximised separately).
 * - List size: a slicing argument or `assumedSize` of the field's `@listSize`; with `sizedFields`
 *   that size goes to the named child lists instead, and the field's own list falls back to
 *   `defaultListSize`. A nested list `[[T]]` multiplies by the size once per list level. A field
 *   whose `@listSize` requires one slicing argument and gets none or several is rejected
 *   (`priceFieldCall`).
 *
 * The cost of a (type, merged selection sets, inherited size) is memoized, so the work is linear in
 * the distinct selections reached after fragment expansion (the breakdown disables the memo).
 */
export class StaticEstimator {
  private readonly memo = new Map<string, Cost>();
  private readonly calls: FieldCallCache;

  constructor(
    private readonly table: CostTable,
    private readonly operation: ResolvedOperation,
    private readonly collector: FieldCollector,
    private readonly settings: EstimateSettings,
  ) {
    this.calls = new FieldCallCache(table, operation.variables);
  }

  estimate(breakdown: boolean): CostEstimate {
    const sink: FieldCostBreakdown[] | undefined = breakdown ? [] : undefined;
    const trace = sink === undefined ? undefined : { path: '', multiplier: 1, sink };
    const root = this.objectCost(this.operation.rootType, [this.operation.operation.selectionSet], undefined, trace);
    const estimate: CostEstimate = {
      typeCost: reported(Math.max(0, root.typeCost)),
      fieldCost: reported(root.fieldCost),
    };
    if (sink !== undefined) estimate.fields = sink;
    return estimate;
  }

  /** Cost of one instance of a composite type with the given merged selection sets. */
  private selectionCost(
    type: GraphQLCompositeType,
    selectionSets: readonly SelectionSetNode[],
    sized: SizedFields | undefined,
    trace: Trace | undefined,
  ): Cost {
    if (this.table.isObjectType(type)) return this.objectCost(type, selectionSets, sized, trace);
    let best = ZERO_COST;
    let bestTotal = Number.NEGATIVE_INFINITY;
    let bestEntries: FieldCostBreakdown[] = [];
    for (const possible of this.table.schema.getPossibleTypes(type)) {
      const entries: FieldCostBreakdown[] = [];
      const branch = trace === undefined ? undefined : { ...trace, sink: entries };
      const cost = this.objectCost(possible, selectionSets, sized, branch);
      if (cost.typeCost + cost.fieldCost > bestTotal) {
        bestTotal = cost.typeCost + cost.fieldCost;
        bestEntries = entries;
      }
      best = maxCost(best, cost);
    }
    trace?.sink.push(...bestEntries);
    return best;
  }

  private objectCost(
    type: GraphQLObjectType,
    selectionSets: readonly SelectionSetNode[],
    sized: SizedFields | undefined,
    trace: Trace | undefined,
  ): Cost {
    const collectKey = `${type.name}:${this.collector.keyOf(selectionSets)}`;
    let key: string | undefined;
    if (trace === undefined)
      key = sized === undefined ? collectKey : `${collectKey}|${sized.size}:${sized.names.join(',')}`;
    const cached = key === undefined ? undefined : this.memo.get(key);
    if (cached !== undefined) return cached;
    let typeCost = this.table.typeWeight(type);
    let fieldCost = 0;
    for (const [responseKey, nodes] of this.collector.collect(type, selectionSets, collectKey)) {
      this.collector.tick();
      const field = this.fieldCost(type, responseKey, nodes, sized, trace);
      typeCost += field.typeCost;
      fieldCost += field.fieldCost;
    }
    const cost = { typeCost, fieldCost };
    if (key !== undefined) this.memo.set(key, cost);
    return cost;
  }

  private fieldCost(
    parent: GraphQLObjectType,
    responseKey: string,
    nodes: readonly FieldNode[],
    sized: SizedFields | undefined,
    trace: Trace | undefined,
  ): Cost {
    const call = this.calls.price(parent, nodes);
    if (call === null) return ZERO_COST;
    if (call.isIntrospection && this.settings.introspectionIsFree) return ZERO_COST;

    const { listDepth, namedType: named, returnsLeaf } = call.rule;
    const ownSizedFields = call.listSize?.sizedFields ?? [];
    const childSized =
      ownSizedFields.length > 0 && call.expectedSize !== undefined
        ? { names: ownSizedFields, size: call.expectedSize }
        : undefined;
    const size = this.listSize(call, sized);
    let count = 1;
    for (let level = 0; level < listDepth; level += 1) count = scale(count, size);

    const path = trace === undefined ? '' : trace.path === '' ? responseKey : `${trace.path}.${responseKey}`;
    trace?.sink.push({
      path,
      fieldCost: call.callCost,
      typeCost: Math.max(0, scale(count, this.table.typeWeight(named))),
      multiplier: trace.multiplier,
    });
    const child = returnsLeaf
      ? { typeCost: this.table.typeWeight(named), fieldCost: 0 }
      : this.selectionCost(
          named as GraphQLCompositeType,
          nodes.map((node) => node.selectionSet as SelectionSetNode),
          childSized,
          trace === undefined ? undefined : { path, multiplier: scale(trace.multiplier, count), sink: trace.sink },
        );
    return {
      typeCost: Math.max(0, scale(count, child.typeCost)),
      fieldCost: Math.max(0, call.callCost + scale(count, child.fieldCost)),
    };
  }

  /**
   * Items per list level (IBM spec "@listSize"): the size the parent's `sizedFields` hands to this
   * field, else this field's slicing argument or `assumedSize` (unless its own `sizedFields` hand
   * that size down instead), else `defaultListSize`.
   */
  private listSize(call: FieldCall, sized: SizedFields | undefined): number {
    if (sized?.names.includes(call.definition.name)) return sized.size;
    const handsSizeDown = (call.listSize?.sizedFields.length ?? 0) > 0;
    if (!handsSizeDown && call.expectedSize !== undefined) return call.expectedSize;
    return this.settings.defaultListSize;
  }
}
