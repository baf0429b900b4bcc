// Public API of graphql-budget: named re-exports only.

// Bucket stores
export type { BucketCallOptions, BucketPolicy, BucketResult, BucketStore } from './bucket/types.js';
export { RedisBucketStore, type RedisBucketStoreOptions } from './bucket/redis-store.js';
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
  CostRequest,
  EstimateCostOptions,
  EstimateRequest,
  FieldCostBreakdown,
} from './cost/types.js';
export { costDirective, costDirectivesTypeDefs, listSizeDirective } from './cost/directives.js';
export { createCostAnalyzer, defaultChargedCost, estimateCost } from './cost/analyzer.js';
export { CostAnalysisError, CostErrorCode, CostSchemaError } from './cost/errors.js';

// Apollo Server plugin
