// Public API of graphql-budget: named re-exports only.

// Bucket stores
export type {
  BucketCallOptions,
  BucketLimit,
  BucketPolicy,
  BucketResult,
  BucketStore,
  MultiBucketResult,
} from './bucket/types.js';
export { consumeInOrder } from './bucket/multi-charge.js';
export { RedisBucketStore, type RedisBucketStoreOptions } from './bucket/redis-store.js';
export type { BatchOptions } from './bucket/script-batcher.js';
export type {
  IoredisBucketClient,
  NodeRedisBucketClient,
  NodeRedisClusterBucketClient,
  RedisBucketClient,
} from './bucket/redis-client.js';
export { MemoryBucketStore, type MemoryBucketStoreOptions } from './bucket/memory-store.js';
export { BucketStoreError, BucketStoreTimeoutError } from './bucket/errors.js';
export { bucketKey } from './bucket/bucket-key.js';

// Cost engine
export type {
  ActualRequest,
  ComplexityEstimator,
  ComplexityEstimatorArgs,
  CostAnalyzer,
  CostAnalyzerOptions,
  CostEstimate,
  CostModelName,
  CostRequest,
  EstimateCostOptions,
  EstimateRequest,
  FieldCostBreakdown,
} from './cost/types.js';
export { costDirective, costDirectivesTypeDefs, listSizeDirective } from './cost/directives.js';
export { createCostAnalyzer, defaultChargedCost, estimateCost } from './cost/analyzer.js';
export { CostAnalysisError, CostErrorCode, CostSchemaError } from './cost/errors.js';
export { CostLintRule, lintCostSchema, type CostLintFinding, type LintCostSchemaOptions } from './cost/cost-lint.js';

// The request path's options and outcomes, whatever the server
export { queryBudgetDefaults, type BudgetOptions } from './core/options.js';
export { CostResult, type BudgetMode, type StoreErrorPolicy, type StoreOutcome } from './core/outcomes.js';
export type { BudgetLogger } from './core/logger.js';
export { BudgetErrorCode } from './core/errors.js';
export { budgetExposedHeaders } from './core/cors-headers.js';
export type { BudgetStatus, CostExtension, ThrottleStatus } from './core/cost-extension.js';
export type { BudgetLimit } from './core/limits.js';
export type { CircuitBreakerOptions } from './core/circuit-breaker.js';
export type { BudgetDecision } from './core/decision-event.js';
export { rateLimitResolvers, rateLimitTypeDefs, type RateLimitView } from './core/rate-limit-field.js';
export type { BudgetedSubscription } from './core/subscription.js';
export {
  clientAddressKey,
  type ClientAddressKey,
  type ClientAddressKeyOptions,
  type RequestHeaders,
} from './core/client-address.js';

// Apollo Server 5 (also `graphql-budget/apollo`)
export {
  queryBudgetPlugin,
  type ApolloBudgetPlugin,
  type ApolloGraphQLRequest,
  type ApolloRequestContext,
  type QueryBudgetOptions,
} from './apollo/index.js';

// GraphQL Yoga and other Envelop servers (also `graphql-budget/envelop`)
export {
  useQueryBudget,
  type EnvelopBudgetPlugin,
  type EnvelopBudgetRequest,
  type UseQueryBudgetOptions,
} from './envelop/index.js';

// Operations over graphql-ws, and operations outside any server's request pipeline
export {
  budgetedSubscribe,
  graphqlWsBudget,
  type BudgetedExecute,
  type BudgetedSubscribe,
  type BudgetedSubscribeOptions,
  type GraphqlWsBudget,
} from './graphql-ws/graphql-ws-budget.js';
export {
  chargeOperation,
  payDebts,
  type ChargedOperation,
  type ChargeOperationOptions,
} from './core/charge-operation.js';
