// `graphql-budget/envelop`: the GraphQL Yoga and Envelop plugin (also exported from `graphql-budget`).
export { useQueryBudget, type UseQueryBudgetOptions } from './use-query-budget.js';
export type { EnvelopBudgetPlugin, EnvelopBudgetRequest } from './envelop-types.js';
