// Public API of graphql-budget: named re-exports only.

// Bucket stores
export type { BucketPolicy, BucketResult, BucketStore } from './bucket/types.js';

// Cost engine
export type { CostEstimate, EstimateCostOptions, FieldCostBreakdown } from './cost/types.js';

// Apollo Server plugin
