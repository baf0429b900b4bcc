import { OperationTypeNode } from 'graphql';
import type { FieldNode, GraphQLAbstractType, GraphQLObjectType, SelectionSetNode } from 'graphql';
import type { CostTable, FieldCostRule } from './cost-table.js';
import { maxCost, reported, ZERO_COST, type Cost } from './cost-math.js';
import { errorPathsOf, type ErrorPaths, type ResponseError } from './error-paths.js';
import { StaticEstimator, type EstimateSettings } from './estimate.js';
import { FieldCallCache, type FieldCall } from './field-call.js';
import type { CollectedFields, FieldCollector } from './field-collector.js';
import type { ResolvedOperation } from './operation.js';
import { ResponseFields, type ResponseObject } from './response-fields.js';
import { ResponsePlan, type PlannedField, type PlannedObject } from './response-plan.js';
import { scopeBelow, type SizeScope } from './size-scope.js';
import type { CostEstimate } from './types.js';

/**
 * The cost of what a response actually returned: the static estimate's rules (see
 * `StaticEstimator`) applied to the response `data` instead of to assumed sizes, except where an
 * error hid the work that was done.
 *
 * - A field is paid (its call cost) when its response key is present in its parent object, even
 *   when its value is null; a field absent from the data (parent nulled, partial data) is not.
 * - Type weights are paid once per non-null value, using the real length of every list.
 * - An object under an interface or union is priced as its `__typename` names, read under a
 *   response key that selects `__typename` for every possible type (a key that some member aliases
 *   to another field names nothing: its value is data, such as a vendor named "Product").
 *   Otherwise the possible types whose collected response keys are the object's keys are
 *   candidates and the costliest is taken (all possible types if none match); the result then
 *   stays an upper bound, like the estimate, and never prices an object below its runtime type.
 * - Work an error hid is charged at the estimate, since it may have run: `data: null` (an error
 *   nulled the root) costs the whole estimate; a field whose value is null where an error's path
 *   passes through or ends costs its estimate at that place (slicing arguments, `assumedSize`,
 *   the enclosing fields' `sizedFields`, abstract types at their costliest), and a null list item
 *   on an error's path one item of it (the remaining list levels). A null no error path reaches
 *   is legitimate and costs its call only. Without errors the walk allocates nothing more.
 * - A mutation's root fields present in the data ran, with their side effects: each costs its
 *   estimate whatever it returned, or what it returned where that is more.
 * - Clamping at 0 happens per field, as in the estimate; so `actual ≤ estimate` whenever every
 *   list is no longer than its estimated size.
 */
export class ActualCoster {
  private readonly calls: FieldCallCache;
  /** The selection sets below each collected field group (the same array on every visit). */
  private readonly selectionSets = new Map<readonly FieldNode[], readonly SelectionSetNode[]>();
  private readonly responseFields: ResponseFields;
  private readonly rootSelectionSets: readonly SelectionSetNode[];
  /** Prices the subtrees errors nulled; made on the first response that has one. */
  private estimator: StaticEstimator | undefined;
  /** Whether parts of the response being priced may be missing (see `cost`). */
  private incomplete = false;

  constructor(
    private readonly table: CostTable,
    private readonly operation: ResolvedOperation,
    private readonly collector: FieldCollector,
    private readonly settings: EstimateSettings,
  ) {
    this.calls = new FieldCallCache(table, operation.variables, settings.maxListSize);
    this.responseFields = new ResponseFields(table.schema, collector);
    this.rootSelectionSets = [operation.operation.selectionSet];
  }

  /**
   * May be called again for another response of the same request. `incomplete`: parts of the
   * response may be missing (a result delivered incrementally, merged so far), so every field is
   * priced at least at its estimate at its place, and a field the response lacks at its estimate.
   */
  cost(
    data: ResponseObject | null | undefined,
    errors?: ReadonlyArray<ResponseError | null | undefined> | null,
    incomplete = false,
  ): CostEstimate {
    if (data === undefined) return { typeCost: 0, fieldCost: 0 };
    this.incomplete = incomplete;
    if (data === null) return this.estimated().estimate(false);
    const root =
      this.operation.operation.operation === OperationTypeNode.MUTATION
        ? this.mutationCost(data, errorPathsOf(errors))
        : this.objectCost(this.operation.rootType, this.rootSelectionSets, data, undefined, errorPathsOf(errors));
    return { typeCost: reported(Math.max(0, root.typeCost)), fieldCost: reported(root.fieldCost) };
  }

  /**
   * The walk of this operation's complete, error-free responses, compiled (see `ResponsePlan`), or
   * undefined where the plan would not price as `cost` does (a mutation, a selection under an
   * interface or union) or would visit more than `maxFields` fields.
   */
  plan(maxFields: number): ResponsePlan | undefined {
    if (this.operation.operation.operation === OperationTypeNode.MUTATION) return undefined;
    const count = { visited: 0, objects: 0, fields: 0, keyCharacters: 0 };
    const root = this.planObject(this.operation.rootType, this.rootSelectionSets, count, maxFields);
    if (root === undefined) return undefined;
    return new ResponsePlan(root, ResponsePlan.bytesOf(count.objects, count.fields, count.keyCharacters));
  }

  private planObject(
    type: GraphQLObjectType,
    selectionSets: readonly SelectionSetNode[],
    count: { visited: number; objects: number; fields: number; keyCharacters: number },
    maxFields: number,
  ): PlannedObject | undefined {
    count.objects += 1;
    const fields: PlannedField[] = [];
    for (const [responseKey, nodes] of this.fieldsOf(type, selectionSets)) {
      count.visited += 1;
      if (count.visited > maxFields) return undefined;
      const call = this.priced(type, nodes);
      if (call === null) continue;
      const { rule } = call;
      const leafWeight = rule.returnsLeaf ? this.table.typeWeight(rule.namedType) : undefined;
      // A leaf that weighs nothing and whose call costs nothing adds 0 wherever it is (costs clamp at 0).
      if (leafWeight !== undefined && leafWeight <= 0 && call.callCost <= 0) continue;
      count.fields += 1;
      count.keyCharacters += responseKey.length;
      let object: PlannedObject | undefined;
      if (!rule.returnsLeaf) {
        if (rule.objectType === undefined) return undefined;
        object = this.planObject(rule.objectType, this.selectionSetsOf(rule, nodes), count, maxFields);
        if (object === undefined) return undefined;
      }
      fields.push({
        responseKey,
        callCost: call.callCost,
        listDepth: rule.listDepth,
        leafWeight,
        object,
      });
    }
    return { typeWeight: this.table.typeWeight(type), fields };
  }

  private estimated(): StaticEstimator {
    this.estimator ??= new StaticEstimator(this.table, this.operation, this.collector, this.settings, this.calls);
    return this.estimator;
  }

  /**
   * The root object of a mutation: each root field present in the data at its estimate, or at what
   * it returned where that is more (a list longer than it was priced for).
   */
  private mutationCost(data: ResponseObject, errors: ErrorPaths | undefined): Cost {
    const type = this.operation.rootType;
    let typeCost = this.table.typeWeight(type);
    let fieldCost = 0;
    for (const [responseKey, nodes] of this.fieldsOf(type, this.rootSelectionSets)) {
      if (!Object.hasOwn(data, responseKey)) continue;
      const call = this.priced(type, nodes);
      if (call === null) continue;
      const estimate = this.estimated().fieldEstimate(call, this.selectionSetsOf(call.rule, nodes), undefined);
      const returned = this.fieldCost(type, nodes, data[responseKey], undefined, errors?.get(responseKey));
      const field = maxCost(estimate, returned);
      typeCost += field.typeCost;
      fieldCost += field.fieldCost;
    }
    return { typeCost, fieldCost };
  }

  /**
   * `scope` holds what enclosing fields' `sizedFields` hand to this object's fields; `errors` the
   * error paths below this object, undefined when none reaches it.
   */
  private objectCost(
    type: GraphQLObjectType,
    selectionSets: readonly SelectionSetNode[],
    value: ResponseObject,
    scope: SizeScope | undefined,
    errors: ErrorPaths | undefined,
  ): Cost {
    let typeCost = this.table.typeWeight(type);
    let fieldCost = 0;
    for (const [responseKey, nodes] of this.fieldsOf(type, selectionSets)) {
      const present = Object.hasOwn(value, responseKey);
      if (!present && !this.incomplete) continue;
      const field = present
        ? this.fieldCost(type, nodes, value[responseKey], scope, errors?.get(responseKey))
        : this.missingFieldCost(type, nodes, scope);
      typeCost += field.typeCost;
      fieldCost += field.fieldCost;
    }
    return { typeCost, fieldCost };
  }

  private fieldCost(
    parent: GraphQLObjectType,
    nodes: readonly FieldNode[],
    value: unknown,
    scope: SizeScope | undefined,
    errors: ErrorPaths | undefined,
  ): Cost {
    const call = this.priced(parent, nodes);
    if (call === null) return ZERO_COST;
    const selectionSets = this.selectionSetsOf(call.rule, nodes);
    if (errors !== undefined && (value === null || value === undefined)) {
      return this.estimated().fieldEstimate(call, selectionSets, scope);
    }
    const returned = this.valueCost(call, call.rule.listDepth, selectionSets, value, scope, errors);
    const cost = {
      typeCost: Math.max(0, returned.typeCost),
      fieldCost: Math.max(0, call.callCost + returned.fieldCost),
    };
    return this.incomplete ? maxCost(cost, this.estimated().fieldEstimate(call, selectionSets, scope)) : cost;
  }

  /** A field an incomplete response does not hold (yet): its estimate at its place. */
  private missingFieldCost(parent: GraphQLObjectType, nodes: readonly FieldNode[], scope: SizeScope | undefined): Cost {
    const call = this.priced(parent, nodes);
    if (call === null) return ZERO_COST;
    return this.estimated().fieldEstimate(call, this.selectionSetsOf(call.rule, nodes), scope);
  }

  /** The priced call of a collected field, or null when it costs nothing (`__typename`, free introspection). */
  private priced(parent: GraphQLObjectType, nodes: readonly FieldNode[]): FieldCall | null {
    const call = this.calls.price(parent, nodes);
    if (call === null || (call.isIntrospection && this.settings.introspectionIsFree)) return null;
    return call;
  }

  private fieldsOf(type: GraphQLObjectType, selectionSets: readonly SelectionSetNode[]): CollectedFields {
    return this.responseFields.fieldsOf(type, selectionSets);
  }

  private selectionSetsOf(rule: FieldCostRule, nodes: readonly FieldNode[]): readonly SelectionSetNode[] {
    let selectionSets = this.selectionSets.get(nodes);
    // Stryker disable next-line ConditionalExpression: a cache; a fresh array holds the same selection sets, which the collector keys by identity
    if (selectionSets === undefined) {
      // Stryker disable next-line ArrayDeclaration: a leaf's selection sets are never read (valueCost and the estimate return at returnsLeaf first)
      selectionSets = rule.returnsLeaf ? [] : nodes.map((node) => node.selectionSet as SelectionSetNode);
      this.selectionSets.set(nodes, selectionSets);
    }
    return selectionSets;
  }

  /**
   * Cost of a value `call` returned, `depth` list levels above the field's named type; `scope` is
   * the one the field sits in.
   */
  private valueCost(
    call: FieldCall,
    depth: number,
    selectionSets: readonly SelectionSetNode[],
    value: unknown,
    scope: SizeScope | undefined,
    errors: ErrorPaths | undefined,
  ): Cost {
    if (value === null || value === undefined) return ZERO_COST;
    const rule = call.rule;
    if (depth > 0) {
      if (!Array.isArray(value)) return ZERO_COST;
      let typeCost = 0;
      let fieldCost = 0;
      for (let index = 0; index < value.length; index++) {
        const item: unknown = value[index];
        const itemErrors = errors?.get(index);
        const cost =
          itemErrors !== undefined && (item === null || item === undefined)
            ? this.estimated().valueEstimate(call, selectionSets, scope, depth - 1)
            : this.valueCost(call, depth - 1, selectionSets, item, scope, itemErrors);
        typeCost += cost.typeCost;
        fieldCost += cost.fieldCost;
      }
      return { typeCost, fieldCost };
    }
    if (rule.returnsLeaf) return { typeCost: this.table.typeWeight(rule.namedType), fieldCost: 0 };
    if (typeof value !== 'object') return ZERO_COST;
    const object = value as ResponseObject;
    const below = scopeBelow(scope, call.definition.name, call.scope);
    if (rule.objectType !== undefined) return this.objectCost(rule.objectType, selectionSets, object, below, errors);
    let cost: Cost | undefined;
    const candidates = this.responseFields.runtimeTypes(rule.namedType as GraphQLAbstractType, selectionSets, object);
    for (const candidate of candidates) {
      const candidateCost = this.objectCost(candidate, selectionSets, object, below, errors);
      cost = cost === undefined ? candidateCost : maxCost(cost, candidateCost);
    }
    return cost ?? ZERO_COST;
  }
}
