// `graphql-budget/apollo`: the Apollo Server 5 plugin (also exported from `graphql-budget`).
export { queryBudgetPlugin, type QueryBudgetOptions } from './query-budget-plugin.js';
export type {
  ApolloBudgetPlugin,
  ApolloGraphQLRequest,
  ApolloRequestContext,
} from './apollo-types.js';
