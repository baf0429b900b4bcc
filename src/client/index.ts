// `graphql-budget/client`: what API clients import, with no server code and no client library
// imported (the clients' types are described structurally).
export {
  readBudget,
  type BucketStatus,
  type OperationBudget,
  type RateLimitField,
  type RateLimitPolicy,
  type ResponseBudget,
  type ResponseLike,
} from './read-budget.js';
export type { BudgetClientOptions, BudgetWait } from './client-options.js';
export { budgetPacer, type BudgetPacer, type PaceTicket } from './budget-pacer.js';
export { budgetFetch, type BudgetFetchOptions } from './budget-fetch.js';
export {
  budgetLinkHandler,
  type ApolloOperationLike,
  type BudgetLinkHandler,
  type ObservableLike,
  type ObserverLike,
} from './budget-link.js';
export {
  budgetExchange,
  type BudgetExchange,
  type ExchangeInputLike,
  type UrqlOperationLike,
  type WonkaSignal,
  type WonkaSource,
} from './budget-exchange.js';
export type { DocumentLike } from './document-operation.js';
