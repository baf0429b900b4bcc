// What the fragments that set up a server assume: the parts of your Apollo server around the
// plugin (your schema, your resolvers, your context type), and the library's own exports.
import type { BucketPolicy, BucketStore, QueryBudgetOptions } from 'graphql-budget';

export { ApolloServer } from '@apollo/server';
export { createCostAnalyzer, queryBudgetPlugin } from 'graphql-budget';

/** What your context function puts in every request's context. */
export interface MyContext {
  /** The owner of the API key the request carried, as your authentication verified it. */
  apiKeyOwner: string;
  plan: 'free' | 'pro';
}

/** Your schema's SDL, and its resolvers. */
export declare const typeDefs: string;
export declare const resolvers: { Query: Record<string, () => unknown> };

/** A store (docs/operations.md, "Adding the plugin"), a caller key and a policy. */
export declare const store: BucketStore;
export declare const identify: QueryBudgetOptions['identify'];
export declare const policy: BucketPolicy;

/** Somewhere your server writes audit records. */
export declare const auditLog: { write(entry: Record<string, unknown>): void };
