import { OperationTypeNode } from 'graphql';
import type { GraphQLCompositeType, SelectionSetNode } from 'graphql';
import {
  MUTATION_BASE_COST,
  ROOT_SCOPE,
  reportedTotal,
  type ApolloEstimator,
  type ApolloScope,
} from './apollo-estimate.js';
import type { ApolloField, ApolloSelections } from './apollo-selections.js';
import { maxCost, scale, ZERO_COST, type Cost } from './cost-math.js';
import { errorPathsOf, type ErrorPaths, type ResponseError } from './error-paths.js';
import type { ResolvedOperation } from './operation.js';
import type { CostEstimate } from './types.js';

type ResponseObject = Readonly<Record<string, unknown>>;

/**
 * The actual cost of a response as Apollo Router's demand control computes it (its
 * `ResponseCostCalculator`, walking the response along the operation's selections as
 * `ApolloSelections` gathers them), except where an error hid work that may have been done:
 *
 * - Each field present in its parent object costs its arguments once, plus, for what it returned:
 *   an object, its weight (the field's `@cost`, else its type's, else 1) and its selection; a
 *   scalar, an enum value or a legitimate `null`, its weight if it has a `@cost` (field or type),
 *   else 0; a list, each item so (a list of objects costs one weight per object, a list of a
 *   weighted scalar one weight per value). The root object weighs 0; `@join__field(requires:)`
 *   selections are not counted (the router counts them in the estimate only).
 * - Every fragment is walked whatever its type condition, as in the estimate, so an object counts
 *   the fields of every fragment whose fields it has. The fields of a selection are gathered once
 *   (`ApolloSelections`, which counts that work against `maxNodes`), so the walk is linear in the
 *   response; the response itself bounds it, as in the IBM model.
 *
 * Where graphql-budget charges more than the router, to keep the refund guarantees of
 * `ActualRequest` (the router reads none of the response's errors):
 *
 * - `data: null` costs the whole estimate; a `null` where an error's path passes through or ends
 *   costs the field's estimate at that place; a `null` list item on an error's path, one value of
 *   the estimate (see `valueEstimate`). The router charges such a `null` its weight or 0.
 * - A mutation costs its base 10 and each root field present in the data its estimate, whatever
 *   it returned (the router charges no base and the response's values).
 * - A field is read under its response key, so an aliased field costs what it returned (the router
 *   looks a field up by its name, and finds nothing under an alias).
 */
export class ApolloActualCoster {
  readonly #operation: ResolvedOperation;
  readonly #selections: ApolloSelections;
  readonly #estimator: ApolloEstimator;
  /** Whether parts of the response being priced may be missing (see `cost`). */
  #incomplete = false;

  constructor(operation: ResolvedOperation, selections: ApolloSelections, estimator: ApolloEstimator) {
    this.#operation = operation;
    this.#selections = selections;
    this.#estimator = estimator;
  }

  /**
   * May be called again for another response of the same request. `incomplete`: parts of the
   * response may be missing (incremental delivery), so every field is priced at least at its
   * estimate at its place, and a field the response lacks at its estimate.
   */
  cost(
    data: ResponseObject | null | undefined,
    errors?: ReadonlyArray<ResponseError | null | undefined> | null,
    incomplete = false,
  ): CostEstimate {
    if (data === undefined) return { typeCost: 0, fieldCost: 0 };
    this.#incomplete = incomplete;
    if (data === null) return this.#estimator.estimate(false);
    const { operation, rootType } = this.#operation;
    if (operation.operation === OperationTypeNode.MUTATION) {
      const root = this.#mutationCost(data);
      return reportedTotal({ typeCost: root.typeCost, fieldCost: root.fieldCost + MUTATION_BASE_COST });
    }
    return reportedTotal(this.#objectCost(operation.selectionSet, rootType, data, ROOT_SCOPE, errorPathsOf(errors)));
  }

  /** A mutation's root fields present in the data, each at its estimate. */
  #mutationCost(data: ResponseObject): Cost {
    let typeCost = 0;
    let fieldCost = 0;
    for (const field of this.#selections.fieldsOf(this.#operation.operation.selectionSet, this.#operation.rootType)) {
      if (!Object.hasOwn(data, field.node.alias?.value ?? field.node.name.value)) continue;
      const cost = this.#estimator.fieldEstimate(field, ROOT_SCOPE);
      typeCost += scale(field.times, cost.typeCost);
      fieldCost += scale(field.times, cost.fieldCost);
    }
    return { typeCost, fieldCost };
  }

  #objectCost(
    selectionSet: SelectionSetNode,
    parent: GraphQLCompositeType,
    object: ResponseObject,
    scope: ApolloScope,
    errors: ErrorPaths | undefined,
  ): Cost {
    let typeCost = 0;
    let fieldCost = 0;
    for (const field of this.#selections.fieldsOf(selectionSet, parent)) {
      const responseKey = field.node.alias?.value ?? field.node.name.value;
      const present = Object.hasOwn(object, responseKey);
      if (!present && !this.#incomplete) continue;
      const cost = present
        ? this.#fieldCost(field, object[responseKey], scope, errors?.get(responseKey))
        : this.#estimator.definitionOf(field) === undefined
          ? ZERO_COST
          : this.#estimator.fieldEstimate(field, scope);
      typeCost += scale(field.times, cost.typeCost);
      fieldCost += scale(field.times, cost.fieldCost);
    }
    return { typeCost, fieldCost };
  }

  #fieldCost(field: ApolloField, value: unknown, scope: ApolloScope, errors: ErrorPaths | undefined): Cost {
    const definition = this.#estimator.definitionOf(field);
    if (definition === undefined) return ZERO_COST;
    if (errors !== undefined && (value === null || value === undefined)) {
      return this.#estimator.fieldEstimate(field, scope);
    }
    const returned = this.#valueCost(
      field,
      value,
      scope,
      errors,
      this.#estimator.sizing(field, definition, scope).rule.listDepth,
    );
    const cost = {
      typeCost: returned.typeCost,
      fieldCost: returned.fieldCost + this.#estimator.argumentsOf(field.node, definition),
    };
    return this.#incomplete ? maxCost(cost, this.#estimator.fieldEstimate(field, scope)) : cost;
  }

  /**
   * What one value (or list of values) the field returned costs, `levels` list levels above the
   * field's named type; `scope` is the one the field sits in.
   */
  #valueCost(
    field: ApolloField,
    value: unknown,
    scope: ApolloScope,
    errors: ErrorPaths | undefined,
    levels: number,
  ): Cost {
    const definition = this.#estimator.definitionOf(field);
    if (definition === undefined) return ZERO_COST;
    if (Array.isArray(value)) {
      let typeCost = 0;
      let fieldCost = 0;
      for (let index = 0; index < value.length; index++) {
        const item: unknown = value[index];
        const itemErrors = errors?.get(index);
        const cost =
          itemErrors !== undefined && (item === null || item === undefined)
            ? this.#estimator.valueEstimate(field, scope, levels > 1)
            : this.#valueCost(field, item, scope, itemErrors, levels - 1);
        typeCost += cost.typeCost;
        fieldCost += cost.fieldCost;
      }
      return { typeCost, fieldCost };
    }
    const sizing = this.#estimator.sizing(field, definition, scope);
    const { rule } = sizing;
    const isObject = value !== null && typeof value === 'object';
    const own = this.#estimator.weightOf(rule, isObject ? 1 : 0);
    const weight: Cost = own.own ? { typeCost: 0, fieldCost: own.weight } : { typeCost: own.weight, fieldCost: 0 };
    if (!isObject || rule.returnsLeaf || field.node.selectionSet === undefined) return weight;
    const selection = this.#objectCost(
      field.node.selectionSet,
      rule.namedType as GraphQLCompositeType,
      value as ResponseObject,
      sizing.below,
      errors,
    );
    return { typeCost: weight.typeCost + selection.typeCost, fieldCost: weight.fieldCost + selection.fieldCost };
  }
}
