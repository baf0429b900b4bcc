import type { CostModel } from './cost-model.js';
import { IBM_READING } from './cost-table.js';
import { FieldCallCache } from './field-call.js';
import { FieldCollector } from './field-collector.js';
import { GitHubActualCoster } from './github-actual.js';
import { GitHubEstimator } from './github-estimate.js';

/**
 * GitHub's GraphQL API rate limit: an operation's points from the requests its connections need
 * (`GitHubEstimator`), with GitHub's node limit, and the same formula over the connections a
 * response holds (`GitHubActualCoster`), with the refund guarantees of `ActualRequest` on top. The
 * directives are read as the IBM spec reads them; only `@listSize` matters here.
 */
export const githubCostModel: CostModel = {
  name: 'github',
  reading: IBM_READING,
  readsEveryArgument: false,
  estimate({ table, operation, settings }, breakdown) {
    const collector = new FieldCollector(table.schema, operation, settings.maxNodes);
    return new GitHubEstimator(table, operation, collector, settings).estimate(breakdown);
  },
  actual({ table, operation, settings }, response) {
    const collector = new FieldCollector(table.schema, operation, Number.POSITIVE_INFINITY);
    const calls = new FieldCallCache(table, operation.variables, settings.maxListSize);
    const estimator = new GitHubEstimator(table, operation, collector, settings, calls);
    return new GitHubActualCoster(table, operation, collector, calls, estimator).cost(
      response.data,
      response.errors,
      response.incomplete,
    );
  },
};
