import { OperationTypeNode } from 'graphql';
import type { FieldNode, GraphQLAbstractType, GraphQLObjectType, SelectionSetNode } from 'graphql';
import type { CostTable } from './cost-table.js';
import { errorPathsOf, type ErrorPaths, type ResponseError } from './error-paths.js';
import type { FieldCall, FieldCallCache } from './field-call.js';
import type { FieldCollector } from './field-collector.js';
import { githubPoints, isConnection, type GitHubEstimator } from './github-estimate.js';
import type { ResolvedOperation } from './operation.js';
import { ResponseFields, type ResponseObject } from './response-fields.js';
import { scopeBelow, type SizeScope } from './size-scope.js';
import type { CostEstimate } from './types.js';

/**
 * GitHub's points for what a response holds: the estimate's formula (see `GitHubEstimator`) over
 * the connections the response shows were fetched. A connection present under an object needed
 * one request for it; the objects below a connection are the ones its lists returned, however
 * many, so a page longer than its `first` fetches more. The requests are summed, divided by 100,
 * rounded, at least 1. No node limit applies: the response is already built.
 *
 * The guarantees of `ActualRequest` hold as under the other models: `data` undefined costs
 * nothing and `data: null` the estimate; a null where an error's path passes or ends costs its
 * estimate at that place (a null list item, one item of it); a mutation's root fields present cost
 * at least their estimate; and with `incomplete`, every field at least its estimate, a field the
 * response lacks at its estimate.
 */
export class GitHubActualCoster {
  readonly #fields: ResponseFields;
  readonly #rootSelectionSets: readonly SelectionSetNode[];
  readonly #selectionSets = new Map<readonly FieldNode[], readonly SelectionSetNode[]>();
  #incomplete = false;

  constructor(
    table: CostTable,
    private readonly operation: ResolvedOperation,
    collector: FieldCollector,
    private readonly calls: FieldCallCache,
    private readonly estimator: GitHubEstimator,
  ) {
    this.#fields = new ResponseFields(table.schema, collector);
    this.#rootSelectionSets = [operation.operation.selectionSet];
  }

  cost(
    data: ResponseObject | null | undefined,
    errors: ReadonlyArray<ResponseError | null | undefined> | null | undefined,
    incomplete: boolean,
  ): CostEstimate {
    if (data === undefined) return { typeCost: 0, fieldCost: 0 };
    if (data === null) return { typeCost: 0, fieldCost: githubPoints(this.estimator.demand().requests) };
    this.#incomplete = incomplete;
    const paths = errorPathsOf(errors);
    const requests =
      this.operation.operation.operation === OperationTypeNode.MUTATION
        ? this.#mutationRequests(data, paths)
        : this.#objectRequests(this.operation.rootType, this.#rootSelectionSets, data, undefined, paths);
    return { typeCost: 0, fieldCost: githubPoints(requests) };
  }

  /** A mutation's root fields present in the data, each at its estimate or at what it returned where that is more. */
  #mutationRequests(data: ResponseObject, errors: ErrorPaths | undefined): number {
    const type = this.operation.rootType;
    let requests = 0;
    for (const [responseKey, nodes] of this.#fields.fieldsOf(type, this.#rootSelectionSets)) {
      if (!Object.hasOwn(data, responseKey)) continue;
      const call = this.#priced(type, nodes);
      if (call === null) continue;
      const estimated = this.estimator.fieldDemand(call, this.#selectionSetsOf(call, nodes), undefined).requests;
      const returned = this.#fieldRequests(type, nodes, data[responseKey], undefined, errors?.get(responseKey));
      requests += Math.max(estimated, returned);
    }
    return requests;
  }

  #objectRequests(
    type: GraphQLObjectType,
    selectionSets: readonly SelectionSetNode[],
    value: ResponseObject,
    scope: SizeScope | undefined,
    errors: ErrorPaths | undefined,
  ): number {
    let requests = 0;
    for (const [responseKey, nodes] of this.#fields.fieldsOf(type, selectionSets)) {
      if (Object.hasOwn(value, responseKey)) {
        requests += this.#fieldRequests(type, nodes, value[responseKey], scope, errors?.get(responseKey));
      } else if (this.#incomplete) {
        const call = this.#priced(type, nodes);
        if (call !== null)
          requests += this.estimator.fieldDemand(call, this.#selectionSetsOf(call, nodes), scope).requests;
      }
    }
    return requests;
  }

  #fieldRequests(
    parent: GraphQLObjectType,
    nodes: readonly FieldNode[],
    value: unknown,
    scope: SizeScope | undefined,
    errors: ErrorPaths | undefined,
  ): number {
    const call = this.#priced(parent, nodes);
    if (call === null) return 0;
    const selectionSets = this.#selectionSetsOf(call, nodes);
    if (errors !== undefined && (value === null || value === undefined)) {
      return this.estimator.fieldDemand(call, selectionSets, scope).requests;
    }
    const returned =
      (isConnection(call, scope) ? 1 : 0) +
      this.#valueRequests(call, call.rule.listDepth, selectionSets, value, scope, errors);
    if (!this.#incomplete) return returned;
    return Math.max(returned, this.estimator.fieldDemand(call, selectionSets, scope).requests);
  }

  #valueRequests(
    call: FieldCall,
    depth: number,
    selectionSets: readonly SelectionSetNode[],
    value: unknown,
    scope: SizeScope | undefined,
    errors: ErrorPaths | undefined,
  ): number {
    if (value === null || value === undefined || call.rule.returnsLeaf) return 0;
    if (depth > 0) {
      if (!Array.isArray(value)) return 0;
      let requests = 0;
      for (let index = 0; index < value.length; index++) {
        const item: unknown = value[index];
        const itemErrors = errors?.get(index);
        requests +=
          itemErrors !== undefined && (item === null || item === undefined)
            ? this.estimator.valueDemand(call, selectionSets, scope, depth - 1).requests
            : this.#valueRequests(call, depth - 1, selectionSets, item, scope, itemErrors);
      }
      return requests;
    }
    if (typeof value !== 'object') return 0;
    const object = value as ResponseObject;
    const below = scopeBelow(scope, call.definition.name, call.scope);
    const { rule } = call;
    if (rule.objectType !== undefined)
      return this.#objectRequests(rule.objectType, selectionSets, object, below, errors);
    let requests = 0;
    for (const candidate of this.#fields.runtimeTypes(rule.namedType as GraphQLAbstractType, selectionSets, object)) {
      requests = Math.max(requests, this.#objectRequests(candidate, selectionSets, object, below, errors));
    }
    return requests;
  }

  /** The priced call of a collected field, or null when it needs no request (`__typename`, introspection). */
  #priced(parent: GraphQLObjectType, nodes: readonly FieldNode[]): FieldCall | null {
    const call = this.calls.price(parent, nodes);
    return call === null || call.isIntrospection ? null : call;
  }

  #selectionSetsOf(call: FieldCall, nodes: readonly FieldNode[]): readonly SelectionSetNode[] {
    let selectionSets = this.#selectionSets.get(nodes);
    if (selectionSets === undefined) {
      selectionSets = call.rule.returnsLeaf ? [] : nodes.map((node) => node.selectionSet as SelectionSetNode);
      this.#selectionSets.set(nodes, selectionSets);
    }
    return selectionSets;
  }
}
