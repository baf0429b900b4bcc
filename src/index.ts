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
  CostModel,
  CostRequest,
  EstimateCostOptions,
  EstimateRequest,
  FieldCostBreakdown,
} from './cost/types.js';
export { costDirective, costDirectivesTypeDefs, listSizeDirective } from './cost/directives.js';
export { createCostAnalyzer, defaultChargedCost, estimateCost } from './cost/analyzer.js';
export { CostAnalysisError, CostErrorCode, CostSchemaError } from './cost/errors.js';
export { CostLintRule, lintCostSchema, type CostLintFinding, type LintCostSchemaOptions } from './cost/cost-lint.js';

// Apollo Server plugin
export { queryBudgetPlugin } from './plugin/query-budget-plugin.js';
export { queryBudgetDefaults, type BudgetMode, type QueryBudgetOptions } from './plugin/options.js';
export { BudgetErrorCode } from './plugin/errors.js';
export { budgetExposedHeaders } from './plugin/cors-headers.js';
export type { BudgetStatus, CostExtension, ThrottleStatus } from './plugin/cost-extension.js';
export type { BudgetLimit } from './plugin/limits.js';
export type { CircuitBreakerOptions } from './plugin/circuit-breaker.js';
export type { StoreErrorPolicy } from './plugin/guarded-store.js';
export { CostResult, type BudgetDecision, type StoreOutcome } from './plugin/decision-event.js';
export { rateLimitResolvers, rateLimitTypeDefs, type RateLimitView } from './plugin/rate-limit-field.js';

// Operations outside Apollo Server's request pipeline (subscriptions)
export {
  budgetedSubscribe,
  type BudgetedSubscribe,
  type BudgetedSubscribeOptions,
} from './plugin/budgeted-subscribe.js';
export { chargeOperation, type ChargedOperation, type ChargeOperationOptions } from './plugin/charge-operation.js';
