import cors from 'cors';
import express from 'express';
import { ApolloServer } from '@apollo/server';
import { expressMiddleware } from '@as-integrations/express5';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import { queryBudgetPlugin } from '../../src/plugin/query-budget-plugin.js';
import type { QueryBudgetOptions } from '../../src/plugin/options.js';
import { itemsQuery, serversStoppedAfterEach, startBudgetServer } from './budget-server.js';
import { itemsResolvers, itemsTypeDefs } from '../support/items-schema.js';

/** Browsers may read the budget headers of a cross-origin response (Access-Control-Expose-Headers). */

const servers = serversStoppedAfterEach();
const policy = { capacity: 10, refillPerSecond: 1 };
const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(stops.splice(0).map((stop) => stop()));
});

const exposed = (headers: Headers) =>
  (headers.get('access-control-expose-headers') ?? '').split(',').map((name) => name.trim().toLowerCase());

describe('startStandaloneServer', () => {
  it('exposes RateLimit, RateLimit-Policy and, on a 429, Retry-After to a cross-origin caller', async () => {
    const server = await startBudgetServer({ store: new MemoryBucketStore(), policy });
    servers.push(server);
    const headers = { origin: 'https://app.example' };
    const ok = await server.post(itemsQuery(4), { user: 'ann', headers });
    expect(ok.headers.get('ratelimit')).toMatch(/r=4/);
    expect(exposed(ok.headers)).toEqual(['ratelimit', 'ratelimit-policy']);
    const refused = await server.post(itemsQuery(8), { user: 'ann', headers });
    expect(refused.status).toBe(429);
    expect(exposed(refused.headers)).toEqual(expect.arrayContaining(['ratelimit', 'ratelimit-policy', 'retry-after']));
    // Not a CORS request: nothing to expose.
    const sameOrigin = await server.post(itemsQuery(1), { user: 'bob' });
    expect(sameOrigin.headers.get('access-control-expose-headers')).toBeNull();
  });
});

describe('Express 5 with cors()', () => {
  async function expressServer(
    corsOptions: cors.CorsOptions,
    plugin: Partial<QueryBudgetOptions> = {},
  ): Promise<string> {
    const apollo = new ApolloServer({
      typeDefs: itemsTypeDefs,
      resolvers: itemsResolvers,
      plugins: [queryBudgetPlugin({ identify: () => 'caller', store: new MemoryBucketStore(), policy, ...plugin })],
    });
    await apollo.start();
    const app = express();
    app.use('/graphql', cors(corsOptions), express.json(), expressMiddleware(apollo));
    const listening = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => listening.once('listening', resolve));
    stops.push(async () => {
      await apollo.stop();
      await new Promise((resolve) => listening.close(resolve));
    });
    return `http://127.0.0.1:${(listening.address() as AddressInfo).port}/graphql`;
  }

  const send = (url: string) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'https://app.example' },
      body: JSON.stringify({ query: itemsQuery(2) }),
    });

  it('exposes the budget headers behind a plain cors()', async () => {
    const response = await send(await expressServer({}));
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(exposed(response.headers)).toEqual(['ratelimit', 'ratelimit-policy']);
  });

  it("keeps the middleware's own exposed headers when they are listed in corsExposeHeaders", async () => {
    const url = await expressServer({ exposedHeaders: ['X-Request-Id'] }, { corsExposeHeaders: ['X-Request-Id'] });
    expect(exposed((await send(url)).headers)).toEqual(['x-request-id', 'ratelimit', 'ratelimit-policy']);
  });

  it("leaves the middleware's header alone with corsExposeHeaders: false", async () => {
    const url = await expressServer({ exposedHeaders: ['X-Request-Id', 'RateLimit'] }, { corsExposeHeaders: false });
    expect(exposed((await send(url)).headers)).toEqual(['x-request-id', 'ratelimit']);
  });
});
