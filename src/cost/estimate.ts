import type { FieldNode, GraphQLCompositeType, GraphQLObjectType, SelectionSetNode } from 'graphql';
import type { CostTable } from './cost-table.js';
import { FieldCallCache, type FieldCall } from './field-call.js';
import { IntrospectionCoster } from './introspection-cost.js';
import type { FieldCollector } from './field-collector.js';
import { maxCost, reported, scale, ZERO_COST, type Cost } from './cost-math.js';
import type { ResolvedOperation } from './operation.js';
import { scopeBelow, type SizeScope } from './size-scope.js';
import type { CostEstimate, FieldCostBreakdown } from './types.js';

/** Settings of one static estimate. */
export interface EstimateSettings {
  readonly defaultListSize: number;
  readonly introspectionIsFree: boolean;
  /** Largest list size a client may choose (see `CostAnalyzerOptions.maxListSize`). */
  readonly maxListSize: number;
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
 *   that size goes to the named lists below instead (a name, or a path such as `"results { page }"`),
 *   and the field's own list falls back to `defaultListSize`. Several `@listSize` (a repeatable
 *   definition): the largest size wins. A nested list `[[T]]` multiplies by the size once per list
 *   level. A field whose `@listSize` requires one slicing argument and gets none or several is
 *   rejected (`priceFieldCall`).
 *
 * The cost of a (type, merged selection sets, inherited size) is memoized, so the work is linear in
 * the distinct selections reached after fragment expansion (the breakdown disables the memo).
 *
 * Throughout, `scope` holds the sizes that enclosing fields' `@listSize(sizedFields:)` hand to the
 * fields of the selection being priced (undefined when none do).
 */
export class StaticEstimator {
  private readonly memo = new Map<string, Cost>();
  /** Prices introspection selections from the schema itself. */
  private introspection: IntrospectionCoster | undefined;

  constructor(
    private readonly table: CostTable,
    private readonly operation: ResolvedOperation,
    private readonly collector: FieldCollector,
    private readonly settings: EstimateSettings,
    private readonly calls: FieldCallCache = new FieldCallCache(table, operation.variables, settings.maxListSize),
  ) {}

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

  /**
   * One field call as `estimate()` prices it at one place: its call cost plus its list size times
   * the estimate of its selection, each total clamped at 0. `selectionSets` are the merged
   * selection sets below the field (none for a leaf).
   */
  fieldEstimate(call: FieldCall, selectionSets: readonly SelectionSetNode[], scope: SizeScope | undefined): Cost {
    // Stryker disable next-line StringLiteral: the response key only names breakdown entries, and this call has no trace
    return this.callCost(call, '', selectionSets, scope, undefined);
  }

  /**
   * One value of a list field `levels` list levels above its named type, as `estimate()` prices it
   * (unclamped, as an item adds to its list): the field's list size once per remaining level, times
   * one instance of the named type with the field's selection.
   */
  valueEstimate(
    call: FieldCall,
    selectionSets: readonly SelectionSetNode[],
    scope: SizeScope | undefined,
    levels: number,
  ): Cost {
    const size = this.listSize(call, scope);
    let count = 1;
    for (let level = 0; level < levels; level += 1) count = scale(count, size);
    const instance = this.instanceCost(call, selectionSets, scope, undefined);
    return { typeCost: scale(count, instance.typeCost), fieldCost: scale(count, instance.fieldCost) };
  }

  /** Cost of one instance of a composite type with the given merged selection sets. */
  private selectionCost(
    type: GraphQLCompositeType,
    selectionSets: readonly SelectionSetNode[],
    scope: SizeScope | undefined,
    trace: Trace | undefined,
  ): Cost {
    if (this.table.isObjectType(type)) return this.objectCost(type, selectionSets, scope, trace);
    let best = ZERO_COST;
    let bestTotal = Number.NEGATIVE_INFINITY;
    let bestEntries: FieldCostBreakdown[] = [];
    for (const possible of this.table.schema.getPossibleTypes(type)) {
      const entries: FieldCostBreakdown[] = [];
      const branch = trace === undefined ? undefined : { ...trace, sink: entries };
      const cost = this.objectCost(possible, selectionSets, scope, branch);
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
    scope: SizeScope | undefined,
    trace: Trace | undefined,
  ): Cost {
    const collectKey = `${type.name}:${this.collector.keyOf(selectionSets)}`;
    let key: string | undefined;
    if (trace === undefined) key = scope === undefined ? collectKey : `${collectKey}|${scope.key}`;
    // Stryker disable next-line ConditionalExpression: the memo holds string keys only, so a lookup under an undefined key misses as the guard does
    const cached = key === undefined ? undefined : this.memo.get(key);
    if (cached !== undefined) return cached;
    let typeCost = this.table.typeWeight(type);
    let fieldCost = 0;
    for (const [responseKey, nodes] of this.collector.collect(type, selectionSets, collectKey)) {
      this.collector.tick();
      const field = this.fieldCost(type, responseKey, nodes, scope, trace);
      typeCost += field.typeCost;
      fieldCost += field.fieldCost;
    }
    const cost = { typeCost, fieldCost };
    // Stryker disable next-line ConditionalExpression: an entry under an undefined key is never looked up (lookups are guarded above)
    if (key !== undefined) this.memo.set(key, cost);
    return cost;
  }

  private fieldCost(
    parent: GraphQLObjectType,
    responseKey: string,
    nodes: readonly FieldNode[],
    scope: SizeScope | undefined,
    trace: Trace | undefined,
  ): Cost {
    const call = this.calls.price(parent, nodes);
    if (call === null) return ZERO_COST;
    if (call.isIntrospection && this.settings.introspectionIsFree) return ZERO_COST;
    const selectionSets = call.rule.returnsLeaf
      ? NO_SELECTION_SETS
      : nodes.map((node) => node.selectionSet as SelectionSetNode);
    if (call.isIntrospection) {
      this.introspection ??= new IntrospectionCoster(this.table, this.operation, this.collector, this.calls);
      const cost = this.introspection.fieldCost(call, nodes, selectionSets);
      trace?.sink.push({
        path: trace.path === '' ? responseKey : `${trace.path}.${responseKey}`,
        ...cost,
        multiplier: trace.multiplier,
      });
      return cost;
    }
    return this.callCost(call, responseKey, selectionSets, scope, trace);
  }

  private callCost(
    call: FieldCall,
    responseKey: string,
    selectionSets: readonly SelectionSetNode[],
    scope: SizeScope | undefined,
    trace: Trace | undefined,
  ): Cost {
    const size = this.listSize(call, scope);
    let count = 1;
    for (let level = 0; level < call.rule.listDepth; level += 1) count = scale(count, size);

    let below: Trace | undefined;
    if (trace !== undefined) {
      const path = trace.path === '' ? responseKey : `${trace.path}.${responseKey}`;
      const entry: FieldCostBreakdown = {
        path,
        fieldCost: call.callCost,
        typeCost: Math.max(0, scale(count, this.table.typeWeight(call.rule.namedType))),
        multiplier: trace.multiplier,
      };
      if (call.rule.inferredListSize !== undefined) entry.inferredListSize = call.rule.inferredListSize;
      trace.sink.push(entry);
      below = { path, multiplier: scale(trace.multiplier, count), sink: trace.sink };
    }
    const child = this.instanceCost(call, selectionSets, scope, below);
    return {
      typeCost: Math.max(0, scale(count, child.typeCost)),
      fieldCost: Math.max(0, call.callCost + scale(count, child.fieldCost)),
    };
  }

  /**
   * One instance of the field's named type: its weight, and for a composite type its selection
   * (priced in the scope below the field, where `scope` is the one the field sits in).
   */
  private instanceCost(
    call: FieldCall,
    selectionSets: readonly SelectionSetNode[],
    scope: SizeScope | undefined,
    trace: Trace | undefined,
  ): Cost {
    const named = call.rule.namedType;
    if (call.rule.returnsLeaf) return { typeCost: this.table.typeWeight(named), fieldCost: 0 };
    const below = scopeBelow(scope, call.definition.name, call.scope);
    return this.selectionCost(named as GraphQLCompositeType, selectionSets, below, trace);
  }

  /**
   * Items per list level (IBM spec "@listSize"): the size the enclosing fields' `sizedFields` hand
   * to this field, else this field's own (its slicing argument or `assumedSize`, unless its
   * `sizedFields` hand that size down instead), else for an introspection field the schema's real
   * size (`CostTable.introspectionSize`), else `defaultListSize`.
   */
  private listSize(call: FieldCall, scope: SizeScope | undefined): number {
    return (
      scope?.sizeOf(call.definition.name) ??
      call.ownSize ??
      this.table.introspectionSize(call.definition) ??
      this.settings.defaultListSize
    );
  }
}

// Stryker disable next-line ArrayDeclaration: a leaf's selection sets are never read (instanceCost returns at returnsLeaf first)
const NO_SELECTION_SETS: readonly SelectionSetNode[] = [];
