/**
 * The four clients under test, each with only the library's helper added and nothing hand-written
 * about budgets: Apollo Client 4 and 3 (`budgetLinkHandler` in a link before `HttpLink`), urql
 * (`budgetExchange` before `fetchExchange`) and graphql-request (`budgetFetch` as its fetch).
 * Runs in Node (test/client/clients.test.ts) and, bundled, in Chromium (test/client/browser.test.ts):
 * it imports nothing of Node.
 */
import {
  ApolloClient as ApolloClient4,
  ApolloLink as ApolloLink4,
  HttpLink as HttpLink4,
  InMemoryCache as InMemoryCache4,
  gql as gql4,
} from '@apollo/client';
import {
  ApolloClient as ApolloClient3,
  ApolloLink as ApolloLink3,
  HttpLink as HttpLink3,
  InMemoryCache as InMemoryCache3,
  gql as gql3,
} from 'apollo-client-3/core/index.js';
import { Client as UrqlClient, fetchExchange, gql as gqlUrql } from '@urql/core';
import { GraphQLClient } from 'graphql-request';
import { budgetExchange, budgetFetch, budgetLinkHandler, type BudgetClientOptions } from '../../src/client/index.js';

/**
 * Operations of the example bookstore and their price for an anonymous caller (30 tokens, refilling
 * 1 per second): the price is what the caller's bucket must hold for the operation to run.
 */
export const BOOKSTORE = {
  /** 12 tokens: the root, the list field and ten books. */
  bestsellers: '{ bestsellers { title } }',
  /** 3 tokens. */
  book: 'query Book($id: ID!) { book(id: $id) { title } }',
  /** 8 tokens asked for (a result priced as its dearest member, an author with a book); 4 charged. */
  search:
    'query Search { search(text: "atlas", first: 2) { __typename ... on Book { title } ... on Author { name books(first: 1) { title } } } }',
  /** 7 tokens. */
  oneBook: '{ books(first: 1) { edges { node { title } } } }',
  /** 12 tokens. */
  addReview: 'mutation AddReview { addReview(bookId: "book-7", rating: 5, body: "Could not put it down.") { id } }',
  /** 184 tokens: more than an anonymous bucket holds, so a 400 COST_ESTIMATED_TOO_EXPENSIVE. */
  tooExpensive: '{ books(first: 20) { edges { node { title reviews(first: 5) { rating } } } } }',
} as const;

export const CLIENT_NAMES = ['Apollo Client 4', 'Apollo Client 3', 'urql', 'graphql-request'] as const;
export type ClientName = (typeof CLIENT_NAMES)[number];

/** What the application sees of one operation. */
export interface Outcome {
  readonly data: unknown;
  /** The first error's `extensions.code`, else `HTTP <status>` for an error without one; null on success. */
  readonly code: string | null;
}

export interface ClientUnderTest {
  send(document: string, variables?: Record<string, unknown>): Promise<Outcome>;
}

export interface ClientSetup {
  /** The GraphQL endpoint. */
  readonly url: string;
  /** What sends the requests (a test's loopback fetch, the browser's own). */
  readonly fetch: typeof fetch;
  readonly options?: BudgetClientOptions;
  /** Request headers, e.g. an API key. */
  readonly headers?: Record<string, string>;
  /** urql only: send queries as GET (urql's default), not POST. */
  readonly urqlGet?: boolean;
}

type Errors = readonly { readonly extensions?: { readonly code?: unknown } | null }[] | undefined;

const codeOf = (errors: Errors, status?: number): string | null => {
  const code = errors?.[0]?.extensions?.code;
  if (typeof code === 'string') return code;
  return status === undefined ? 'UNKNOWN' : `HTTP ${status}`;
};

/** Apollo Client 4's errors: CombinedGraphQLErrors (`errors`) or ServerError (`statusCode`, `bodyText`). */
function apollo4Outcome(error: unknown): Outcome {
  const { errors, statusCode, bodyText } = error as { errors?: Errors; statusCode?: number; bodyText?: string };
  if (errors) return { data: null, code: codeOf(errors) };
  let parsed: { errors?: Errors } = {};
  try {
    parsed = JSON.parse(bodyText ?? '');
  } catch {}
  return { data: null, code: codeOf(parsed.errors, statusCode) };
}

/** Apollo Client 3's ApolloError: `graphQLErrors`, or a `networkError` with `statusCode` and `result`. */
function apollo3Outcome(error: unknown): Outcome {
  const { graphQLErrors, networkError } = error as {
    graphQLErrors?: Errors;
    networkError?: { statusCode?: number; result?: { errors?: Errors } } | null;
  };
  if (graphQLErrors && graphQLErrors.length > 0) return { data: null, code: codeOf(graphQLErrors) };
  return { data: null, code: codeOf(networkError?.result?.errors, networkError?.statusCode) };
}

export function makeClient(name: ClientName, setup: ClientSetup): ClientUnderTest {
  const { url, fetch, options, headers = {} } = setup;
  const isMutation = (document: string): boolean => document.trimStart().startsWith('mutation');
  switch (name) {
    case 'Apollo Client 4': {
      const client = new ApolloClient4({
        link: ApolloLink4.from([
          new ApolloLink4(budgetLinkHandler(options)),
          new HttpLink4({ uri: url, fetch, headers }),
        ]),
        cache: new InMemoryCache4(),
      });
      return {
        send: async (document, variables) => {
          const query = gql4(document);
          try {
            const result = isMutation(document)
              ? await client.mutate({ mutation: query, variables })
              : await client.query({ query, variables, fetchPolicy: 'no-cache' });
            return { data: result.data, code: null };
          } catch (error) {
            return apollo4Outcome(error);
          }
        },
      };
    }
    case 'Apollo Client 3': {
      const client = new ApolloClient3({
        link: ApolloLink3.from([
          new ApolloLink3(budgetLinkHandler(options)),
          new HttpLink3({ uri: url, fetch, headers }),
        ]),
        cache: new InMemoryCache3(),
      });
      return {
        send: async (document, variables) => {
          const query = gql3(document);
          try {
            const result = isMutation(document)
              ? await client.mutate({ mutation: query, variables })
              : await client.query({ query, variables, fetchPolicy: 'no-cache' });
            return { data: result.data, code: null };
          } catch (error) {
            return apollo3Outcome(error);
          }
        },
      };
    }
    case 'urql': {
      const client = new UrqlClient({
        url,
        fetch,
        fetchOptions: { headers },
        preferGetMethod: setup.urqlGet ? 'force' : false,
        exchanges: [budgetExchange(options), fetchExchange],
      });
      return {
        send: async (document, variables = {}) => {
          const query = gqlUrql(document);
          const result = isMutation(document)
            ? await client.mutation(query, variables).toPromise()
            : await client.query(query, variables, { requestPolicy: 'network-only' }).toPromise();
          if (!result.error) return { data: result.data, code: null };
          const status = (result.error.response as Response | undefined)?.status;
          return { data: null, code: codeOf(result.error.graphQLErrors, status) };
        },
      };
    }
    case 'graphql-request': {
      const client = new GraphQLClient(url, { fetch: budgetFetch({ ...options, fetch }), headers });
      return {
        send: async (document, variables) => {
          try {
            return { data: await client.request(document, variables), code: null };
          } catch (error) {
            const { response } = error as { response?: { errors?: Errors; status?: number } };
            if (!response) throw error;
            return { data: null, code: codeOf(response.errors, response.status) };
          }
        },
      };
    }
  }
}
