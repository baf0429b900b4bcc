/**
 * Attack: trip server code and read what it says.
 *
 *   requests that make `identify`, `policy` or `cost` throw (or return garbage)
 *
 * An error message that travels to the client can carry configuration: connection strings, tier
 * names, capacities, internal keys. Answering it as a client error (400) also tells the attacker
 * the request was at fault, and invites them to vary it.
 *
 * Guarantee: a failure of server code is a 500 INTERNAL_SERVER_ERROR with a generic message, logged
 * in full server-side; client mistakes stay 400 with a clear code; a GraphQLError that the server's
 * own `identify` or `policy` throws on purpose is passed through as is.
 */
import { GraphQLError } from 'graphql';
import { describe, expect, it } from 'vitest';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import {
  itemsQuery,
  startBudgetServer,
  type BudgetServer,
  type PluginOptions,
  serversStoppedAfterEach,
} from '../plugin/budget-server.js';

const SECRET = 'redis://admin:hunter2@10.0.0.7:6379';
const servers = serversStoppedAfterEach();

async function start(options: PluginOptions): Promise<BudgetServer> {
  const server = await startBudgetServer({ store: new MemoryBucketStore(), ...options });
  servers.push(server);
  return server;
}

describe.each<[string, PluginOptions]>([
  [
    'identify throws',
    {
      identify: () => {
        throw new Error(`lookup failed on ${SECRET}`);
      },
    },
  ],
  ['identify returns an empty key', { identify: () => '' }],
  [
    'policy throws',
    {
      policy: () => {
        throw new TypeError(`no tier "enterprise-${SECRET}"`);
      },
    },
  ],
  ['policy returns garbage', { policy: () => ({ capacity: -1, refillPerSecond: SECRET }) as never }],
  ['cost returns NaN', { cost: () => Number.NaN }],
  [
    'cost throws',
    {
      cost: () => {
        throw new Error(`pricing table ${SECRET} missing`);
      },
    },
  ],
])('%s', (_name, options) => {
  it('answers 500 INTERNAL_SERVER_ERROR with a generic message and logs the cause', async () => {
    const server = await start(options);
    const reply = await server.post(itemsQuery(3), { user: 'mallory' });
    expect(reply.status).toBe(500);
    expect(reply.body.errors).toHaveLength(1);
    expect(reply.body.errors?.[0]?.extensions?.code).toBe('INTERNAL_SERVER_ERROR');
    expect(reply.body.errors?.[0]?.message).toBe(
      'The query budget could not be decided because of an error on the server.',
    );
    expect(JSON.stringify(reply.body)).not.toMatch(/hunter2|10\.0\.0\.7|enterprise|capacity|stacktrace/);
    expect(reply.body.data).toBeUndefined();
    const logged = server.logs.filter((log) => log.level === 'error');
    expect(logged).toHaveLength(1);
    expect(logged[0]?.message).toMatch(/`identify`|`policy`|`cost`/);
  });
});

describe('what stays as it is', () => {
  it('a GraphQLError thrown by identify on purpose reaches the client with its status', async () => {
    const server = await start({
      identify: () => {
        throw new GraphQLError('Sign in first.', { extensions: { code: 'UNAUTHENTICATED', http: { status: 401 } } });
      },
    });
    const reply = await server.post(itemsQuery(3));
    expect(reply.status).toBe(401);
    expect(reply.body.errors?.[0]?.message).toBe('Sign in first.');
  });

  it('client mistakes stay 400 with a clear code', async () => {
    const server = await start({});
    const reply = await server.post('query Q($n: Int) { items(first: $n) { id } }', {
      user: 'ann',
      variables: { n: 'many' },
    });
    expect(reply.status).toBe(400);
    expect(reply.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });
});
