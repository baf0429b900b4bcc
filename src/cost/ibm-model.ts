import { ActualCoster } from './actual.js';
import type { CostModel } from './cost-model.js';
import { IBM_READING } from './cost-table.js';
import { StaticEstimator } from './estimate.js';
import { FieldCollector } from './field-collector.js';

/**
 * The IBM "GraphQL Cost Directives" spec: the static analysis of an operation (`StaticEstimator`)
 * and the same rules applied to a response (`ActualCoster`). The response walk counts under no
 * node limit: the response, already built, bounds its work, and no size of it may become a refund.
 */
export const ibmCostModel: CostModel = {
  name: 'ibm',
  reading: IBM_READING,
  readsEveryArgument: false,
  estimate({ table, operation, settings }, breakdown) {
    const collector = new FieldCollector(table.schema, operation, settings.maxNodes);
    return new StaticEstimator(table, operation, collector, settings).estimate(breakdown);
  },
  actual({ table, operation, settings }, response) {
    const collector = new FieldCollector(table.schema, operation, Number.POSITIVE_INFINITY);
    return new ActualCoster(table, operation, collector, settings).cost(
      response.data,
      response.errors,
      response.incomplete,
    );
  },
  plan({ table, operation, settings }, maxFields) {
    const collector = new FieldCollector(table.schema, operation, Number.POSITIVE_INFINITY);
    return new ActualCoster(table, operation, collector, settings).plan(maxFields);
  },
};
