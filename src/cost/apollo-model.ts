import { ApolloActualCoster } from './apollo-actual.js';
import { ApolloEstimator } from './apollo-estimate.js';
import { ApolloSelections } from './apollo-selections.js';
import type { CostModel } from './cost-model.js';
import { APOLLO_READING } from './cost-table.js';

/**
 * Apollo Router's demand control: its estimate (`ApolloEstimator`) and its actual cost of a
 * response (`ApolloActualCoster`), with the refund guarantees of `ActualRequest` on top. The
 * response walk counts under no node limit, as the IBM model's.
 */
export const apolloCostModel: CostModel = {
  name: 'apollo',
  reading: APOLLO_READING,
  readsEveryArgument: false,
  estimate({ table, operation, settings }, breakdown) {
    const selections = new ApolloSelections(table.schema, operation.fragments, settings.maxNodes);
    return new ApolloEstimator(table, operation, selections, settings).estimate(breakdown);
  },
  actual({ table, operation, settings }, response) {
    const selections = new ApolloSelections(table.schema, operation.fragments, Number.POSITIVE_INFINITY);
    const estimator = new ApolloEstimator(table, operation, selections, settings);
    return new ApolloActualCoster(operation, selections, estimator).cost(
      response.data,
      response.errors,
      response.incomplete,
    );
  },
};
