import type { FieldNode, GraphQLCompositeType, GraphQLObjectType, SelectionSetNode } from 'graphql';
import type { CostTable } from './cost-table.js';
import { reported, scale } from './cost-math.js';
import { CostAnalysisError, CostErrorCode } from './errors.js';
import type { EstimateSettings } from './estimate.js';
import { FieldCallCache, type FieldCall } from './field-call.js';
import type { FieldCollector } from './field-collector.js';
import { IntrospectionCoster } from './introspection-cost.js';
import type { ResolvedOperation } from './operation.js';
import { scopeBelow, type SizeScope } from './size-scope.js';
import type { CostEstimate, FieldCostBreakdown } from './types.js';

/** GitHub's two counts for a part of an operation. */
export interface Demand {
  /** Requests its connections need: one per connection and per object the connection is fetched for. */
  readonly requests: number;
  /** Nodes its connections may return: each connection's page size times the objects it is fetched for. */
  readonly nodes: number;
}

const NO_DEMAND: Demand = { requests: 0, nodes: 0 };

/** GitHub's node limit: the most nodes the connections of one operation may return. */
export const GITHUB_NODE_LIMIT = 500_000;

/** GitHub's points for a number of requests: divided by 100 and rounded, at least 1. */
export function githubPoints(requests: number): number {
  return reported(Math.max(1, Math.round(requests / 100)));
}

/**
 * Whether a field is a connection in GitHub's sense: it fetches a page of items itself, so every
 * object it is selected on costs one request. That is a field whose `@listSize` (written,
 * inherited or inferred by `inferListSizes`) has slicing arguments or an `assumedSize`, unless an
 * enclosing field's `sizedFields` hands it its size (the `edges` and `nodes` of a connection are
 * its page, not connections of their own).
 */
export function isConnection(call: FieldCall, scope: SizeScope | undefined): boolean {
  if (scope?.sizeOf(call.definition.name) !== undefined) return false;
  return call.rule.listSizes.some((rule) => rule.slicingArguments.length > 0 || rule.assumedSize !== undefined);
}

/** Where a breakdown entry goes: response path so far and the number of objects it is fetched for. */
interface Trace {
  readonly path: string;
  readonly multiplier: number;
  readonly sink: FieldCostBreakdown[];
}

/**
 * GitHub's rate-limit score of an operation before it runs (GitHub GraphQL API, "Rate limits and
 * node limits for the GraphQL API": "Calculating a rate limit score before running the call" and
 * "Node limit"):
 *
 * - requests: each connection (see `isConnection`) needs one request per object it is selected
 *   on, which is the product of the page sizes of the lists above it; the operation's requests are
 *   their sum, and its points that sum divided by 100, rounded, and at least 1 (`githubPoints`);
 * - nodes: each connection may return its page size (`first` or `last`, else `assumedSize`, else
 *   `defaultListSize`) per object it is selected on; an operation whose nodes exceed 500,000 is
 *   refused (`MAX_NODE_LIMIT_EXCEEDED`) with GitHub's message.
 *
 * Lists are sized by the cost table as under the other models (slicing arguments, `assumedSize`,
 * enclosing `sizedFields`, `defaultListSize`); fields are collected as execution collects them,
 * and an interface or union counts its costliest possible type. `@cost` weights play no part.
 * Introspection (unless `introspection: 'free'`) needs no request, and its objects count as nodes,
 * so that nested introspection meets the node limit. The demand of a (type, merged selection sets,
 * inherited sizes) is memoized, as in `StaticEstimator` (the breakdown disables the memo).
 */
export class GitHubEstimator {
  readonly #memo = new Map<string, Demand>();
  #introspection: IntrospectionCoster | undefined;

  constructor(
    private readonly table: CostTable,
    private readonly operation: ResolvedOperation,
    private readonly collector: FieldCollector,
    private readonly settings: EstimateSettings,
    private readonly calls: FieldCallCache = new FieldCallCache(table, operation.variables, settings.maxListSize),
  ) {}

  /**
   * The points (`fieldCost`; `typeCost` is 0) and, when asked, one breakdown entry per connection
   * and per introspection root field (`multiplier × fieldCost` requests, `multiplier × nodes` nodes).
   * @throws {CostAnalysisError} `MAX_NODE_LIMIT_EXCEEDED` above GitHub's node limit.
   */
  estimate(breakdown: boolean): CostEstimate {
    const sink: FieldCostBreakdown[] | undefined = breakdown ? [] : undefined;
    const trace = sink === undefined ? undefined : { path: '', multiplier: 1, sink };
    const demand = this.#objectDemand(
      this.operation.rootType,
      [this.operation.operation.selectionSet],
      undefined,
      trace,
    );
    if (!(demand.nodes <= GITHUB_NODE_LIMIT)) throw nodeLimitError(demand.nodes);
    const estimate: CostEstimate = { typeCost: 0, fieldCost: githubPoints(demand.requests) };
    if (sink !== undefined) estimate.fields = sink;
    return estimate;
  }

  /** The whole operation's demand, the node limit aside (for a response whose root an error nulled). */
  demand(): Demand {
    return this.#objectDemand(this.operation.rootType, [this.operation.operation.selectionSet], undefined, undefined);
  }

  /** One call of a field at its place, with everything below it. */
  fieldDemand(call: FieldCall, selectionSets: readonly SelectionSetNode[], scope: SizeScope | undefined): Demand {
    return this.#callDemand(call, '', selectionSets, scope, undefined);
  }

  /** One value of a list field `levels` list levels above its named type, with everything below it. */
  valueDemand(
    call: FieldCall,
    selectionSets: readonly SelectionSetNode[],
    scope: SizeScope | undefined,
    levels: number,
  ): Demand {
    const size = this.#listSize(call, scope);
    let count = 1;
    for (let level = 0; level < levels; level += 1) count = scale(count, size);
    const instance = this.#instanceDemand(call, selectionSets, scope, undefined);
    return { requests: scale(count, instance.requests), nodes: scale(count, instance.nodes) };
  }

  #selectionDemand(
    type: GraphQLCompositeType,
    selectionSets: readonly SelectionSetNode[],
    scope: SizeScope | undefined,
    trace: Trace | undefined,
  ): Demand {
    if (this.table.isObjectType(type)) return this.#objectDemand(type, selectionSets, scope, trace);
    let requests = 0;
    let nodes = 0;
    let bestEntries: FieldCostBreakdown[] = [];
    let best: Demand | undefined;
    for (const possible of this.table.schema.getPossibleTypes(type)) {
      const entries: FieldCostBreakdown[] = [];
      const demand = this.#objectDemand(possible, selectionSets, scope, trace && { ...trace, sink: entries });
      if (
        best === undefined ||
        demand.requests > best.requests ||
        (demand.requests === best.requests && demand.nodes > best.nodes)
      ) {
        best = demand;
        bestEntries = entries;
      }
      requests = Math.max(requests, demand.requests);
      nodes = Math.max(nodes, demand.nodes);
    }
    trace?.sink.push(...bestEntries);
    return { requests, nodes };
  }

  #objectDemand(
    type: GraphQLObjectType,
    selectionSets: readonly SelectionSetNode[],
    scope: SizeScope | undefined,
    trace: Trace | undefined,
  ): Demand {
    const collectKey = `${type.name}:${this.collector.keyOf(selectionSets)}`;
    const key = trace !== undefined ? undefined : scope === undefined ? collectKey : `${collectKey}|${scope.key}`;
    const cached = key === undefined ? undefined : this.#memo.get(key);
    if (cached !== undefined) return cached;
    let requests = 0;
    let nodes = 0;
    for (const [responseKey, fieldNodes] of this.collector.collect(type, selectionSets, collectKey)) {
      this.collector.tick();
      const demand = this.#collectedFieldDemand(type, responseKey, fieldNodes, scope, trace);
      requests += demand.requests;
      nodes += demand.nodes;
    }
    const demand = { requests, nodes };
    if (key !== undefined) this.#memo.set(key, demand);
    return demand;
  }

  #collectedFieldDemand(
    parent: GraphQLObjectType,
    responseKey: string,
    fieldNodes: readonly FieldNode[],
    scope: SizeScope | undefined,
    trace: Trace | undefined,
  ): Demand {
    const call = this.calls.price(parent, fieldNodes);
    if (call === null) return NO_DEMAND;
    const selectionSets = call.rule.returnsLeaf
      ? NO_SELECTION_SETS
      : fieldNodes.map((node) => node.selectionSet as SelectionSetNode);
    if (!call.isIntrospection) return this.#callDemand(call, responseKey, selectionSets, scope, trace);
    if (this.settings.introspectionIsFree) return NO_DEMAND;
    this.#introspection ??= new IntrospectionCoster(this.table, this.operation, this.collector, this.calls);
    const nodes = this.#introspection.fieldCost(call, fieldNodes, selectionSets).typeCost;
    trace?.sink.push({
      path: pathOf(trace, responseKey),
      typeCost: 0,
      fieldCost: 0,
      multiplier: trace.multiplier,
      nodes,
    });
    return { requests: 0, nodes };
  }

  #callDemand(
    call: FieldCall,
    responseKey: string,
    selectionSets: readonly SelectionSetNode[],
    scope: SizeScope | undefined,
    trace: Trace | undefined,
  ): Demand {
    const size = this.#listSize(call, scope);
    let count = 1;
    for (let level = 0; level < call.rule.listDepth; level += 1) count = scale(count, size);
    const connection = isConnection(call, scope);
    const page = connection ? this.#pageSize(call, count) : 0;
    let below: Trace | undefined;
    if (trace !== undefined) {
      const path = pathOf(trace, responseKey);
      if (connection) {
        const entry: FieldCostBreakdown = {
          path,
          typeCost: 0,
          fieldCost: 1,
          multiplier: trace.multiplier,
          nodes: page,
        };
        if (call.rule.inferredListSize !== undefined) entry.inferredListSize = call.rule.inferredListSize;
        trace.sink.push(entry);
      }
      below = { path, multiplier: scale(trace.multiplier, count), sink: trace.sink };
    }
    const child = this.#instanceDemand(call, selectionSets, scope, below);
    return {
      requests: (connection ? 1 : 0) + scale(count, child.requests),
      nodes: page + scale(count, child.nodes),
    };
  }

  /**
   * The nodes one call of a connection returns: its own list's items, or the size its `sizedFields`
   * hand to its lists (`defaultListSize` when no slicing argument or `assumedSize` gives one).
   */
  #pageSize(call: FieldCall, count: number): number {
    const own = call.rule.listDepth > 0 ? count : 0;
    const handsDown = call.rule.listSizes.some((rule) => rule.sizedFields !== undefined);
    return Math.max(own, handsDown ? (call.handedSize ?? this.settings.defaultListSize) : 0);
  }

  #instanceDemand(
    call: FieldCall,
    selectionSets: readonly SelectionSetNode[],
    scope: SizeScope | undefined,
    trace: Trace | undefined,
  ): Demand {
    if (call.rule.returnsLeaf) return NO_DEMAND;
    const below = scopeBelow(scope, call.definition.name, call.scope);
    return this.#selectionDemand(call.rule.namedType as GraphQLCompositeType, selectionSets, below, trace);
  }

  /** Items per list level, as `StaticEstimator` sizes them. */
  #listSize(call: FieldCall, scope: SizeScope | undefined): number {
    return (
      scope?.sizeOf(call.definition.name) ??
      call.ownSize ??
      this.table.introspectionSize(call.definition) ??
      this.settings.defaultListSize
    );
  }
}

function pathOf(trace: Trace, responseKey: string): string {
  return trace.path === '' ? responseKey : `${trace.path}.${responseKey}`;
}

/** GitHub's refusal of an operation above its node limit, in GitHub's words. */
function nodeLimitError(nodes: number): CostAnalysisError {
  const requested = Number.isFinite(nodes) ? `up to ${nodes.toLocaleString('en-US')}` : 'an unbounded number of';
  return new CostAnalysisError(
    CostErrorCode.nodeLimit,
    `This query requests ${requested} possible nodes which exceeds the maximum limit of ${GITHUB_NODE_LIMIT.toLocaleString('en-US')}.`,
  );
}

// Stryker disable next-line ArrayDeclaration: a leaf's selection sets are never read (instanceDemand returns at returnsLeaf first)
const NO_SELECTION_SETS: readonly SelectionSetNode[] = [];
