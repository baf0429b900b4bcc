import { getIntrospectionQuery, printSchema } from 'graphql';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import { githubSchema } from '../support/github-schema.js';
import {
  costOf,
  serversStoppedAfterEach,
  startBudgetServer,
  type BudgetServer,
  type ServerKind,
} from './budget-server.js';

// The standard introspection query (what Apollo Sandbox, GraphiQL and graphql-codegen send) on a
// server built from GitHub's schema (1,606 types in @octokit/graphql-schema 15): pricing it visits
// about 90,000 of the schema's values, far beyond maxNodes (10,000), which bounds a client's own
// selections. It must load outside production, and be priced, not refused, where production
// prices introspection. Both servers, over HTTP.

const schema = { typeDefs: printSchema(githubSchema()), resolvers: {} };
/** Room for the introspection query's price, measured: 28,530 objects and 40,055 field calls. */
const policy = { capacity: 100_000, refillPerSecond: 0 };
const servers = serversStoppedAfterEach();
const savedEnv = process.env.NODE_ENV;
afterEach(() => {
  process.env.NODE_ENV = savedEnv;
});

/** A GitHub-schema server, with NODE_ENV as given while the plugin is built. */
async function githubServer(server: ServerKind, nodeEnv: string | undefined): Promise<BudgetServer> {
  if (nodeEnv === undefined) delete process.env.NODE_ENV;
  else process.env.NODE_ENV = nodeEnv;
  const started = await startBudgetServer(
    { store: new MemoryBucketStore(), policy },
    { server, schema, introspection: true },
  );
  process.env.NODE_ENV = savedEnv;
  servers.push(started);
  return started;
}

function typesOf(body: { data?: Record<string, unknown> | null }): number {
  return (body.data as { __schema: { types: unknown[] } }).__schema.types.length;
}

describe.each(['apollo', 'yoga'] as const)("the standard introspection query on GitHub's schema (%s)", (server) => {
  it('loads the schema with NODE_ENV unset, free', async () => {
    const github = await githubServer(server, undefined);
    const reply = await github.post(getIntrospectionQuery(), { user: 'sandbox' });
    expect(reply.body.errors).toBeUndefined();
    expect(reply.status).toBe(200);
    expect(typesOf(reply.body)).toBe(Object.keys(githubSchema().getTypeMap()).length);
    expect(costOf(reply)).toMatchObject({ requestedQueryCost: 0, actualQueryCost: 0 });
  });

  it('is priced in production, by what it returns', async () => {
    const github = await githubServer(server, 'production');
    const reply = await github.post(getIntrospectionQuery(), { user: 'codegen' });
    expect(reply.body.errors).toBeUndefined();
    expect(reply.status).toBe(200);
    expect(typesOf(reply.body)).toBe(Object.keys(githubSchema().getTypeMap()).length);
    expect(costOf(reply)).toMatchObject({
      requestedQueryCost: 28_530 + 40_055,
      throttleStatus: { currentlyAvailable: 100_000 - 28_530 - 40_055 },
    });
  });

  it('still refuses an introspection repeated to make the server work, after bounded work', async () => {
    const github = await githubServer(server, 'production');
    // graphql-js refuses introspection nested deeper than 3 lists (MaxIntrospectionDepthRule), so
    // the work comes from breadth: 300 aliases of every field of every type.
    const aliases = Array.from({ length: 300 }, (_, index) => `a${index}: types { fields { name type { name } } }`);
    const reply = await github.post(`{ __schema { ${aliases.join(' ')} } }`, { user: 'attacker' });
    expect(reply.status).toBe(400);
    expect(reply.body.errors?.[0]?.extensions?.code).toBe('COST_ANALYSIS_LIMIT');
    expect(reply.body.errors?.[0]?.message).toMatch(/^The operation's introspection is too large to price/);
  });
});
