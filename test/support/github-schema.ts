import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildClientSchema, type GraphQLSchema, type IntrospectionQuery } from 'graphql';

/**
 * GitHub's public GraphQL schema as a user has it: the introspection result that
 * `@octokit/graphql-schema` ships (its SDL does not build in graphql-js: duplicate fields). The
 * package's exports name no file, so the path is the installed one.
 */
export const GITHUB_SCHEMA_JSON: string = fileURLToPath(
  new URL('../../node_modules/@octokit/graphql-schema/schema.json', import.meta.url),
);

let schema: GraphQLSchema | undefined;

/** GitHub's schema, built once per test file. */
export function githubSchema(): GraphQLSchema {
  if (schema === undefined) {
    const json = JSON.parse(readFileSync(GITHUB_SCHEMA_JSON, 'utf8')) as {
      data?: IntrospectionQuery;
    } & IntrospectionQuery;
    schema = buildClientSchema(json.data ?? json);
  }
  return schema;
}

/**
 * The worked examples of GitHub's "Rate limits and node limits for the GraphQL API": two node
 * counts (550 and 22,060 nodes) and a rate-limit score (5,101 requests, 51 points).
 */
export const GITHUB_EXAMPLES = {
  simpleNodes: /* GraphQL */ `query {
    viewer {
      repositories(first: 50) {
        edges {
          repository: node {
            name
            issues(first: 10) {
              totalCount
              edges { node { title bodyHTML } }
            }
          }
        }
      }
    }
  }`,
  complexNodes: /* GraphQL */ `query {
    viewer {
      repositories(first: 50) {
        edges {
          repository: node {
            name
            pullRequests(first: 20) {
              edges {
                pullRequest: node {
                  title
                  comments(first: 10) { edges { comment: node { bodyHTML } } }
                }
              }
            }
            issues(first: 20) {
              totalCount
              edges {
                issue: node {
                  title
                  bodyHTML
                  comments(first: 10) { edges { comment: node { bodyHTML } } }
                }
              }
            }
          }
        }
      }
      followers(first: 10) { edges { follower: node { login } } }
    }
  }`,
  score: /* GraphQL */ `query {
    viewer {
      login
      repositories(first: 100) {
        edges {
          node {
            id
            issues(first: 50) {
              edges {
                node {
                  id
                  labels(first: 60) { edges { node { id name } } }
                }
              }
            }
          }
        }
      }
    }
  }`,
} as const;

/** "A repository's 50 issues with 10 labels each" (`$first` issues). */
export const REPOSITORY_ISSUES = /* GraphQL */ `query RepositoryIssues($first: Int = 50) {
  repository(owner: "octokit", name: "graphql-schema") {
    issues(first: $first) {
      nodes {
        title
        labels(first: 10) { nodes { name } }
      }
    }
  }
}`;
