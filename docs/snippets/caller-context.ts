// What the identify fragment of docs/operations.md ("Choosing identify") assumes: a server whose
// context holds the authenticated user, if any, and the client's network.
import type { IncomingMessage } from 'node:http';
import type { ApolloServer } from '@apollo/server';

export { startStandaloneServer } from '@apollo/server/standalone';
export { clientAddressKey, queryBudgetPlugin } from 'graphql-budget';

export interface User {
  id: string;
}

export interface Context {
  user: User | undefined;
  /** The client's network (`clientAddressKey`): an IPv4 address, or an IPv6 /64. */
  address: string;
}

export declare const server: ApolloServer<Context>;

/** Your authentication: the user a request's credentials prove, or undefined. */
export declare function authenticate(req: IncomingMessage): Promise<User | undefined>;
