/**
 * Attack (on other callers' privacy, through a shared cache): request a cacheable query by GET.
 *
 *   GET /?query={ books { title } }        (the schema says @cacheControl(maxAge: 60))
 *
 * Apollo's cache control answers such a query with `cache-control: max-age=60, public`, and the
 * plugin adds the caller's budget to it (`extensions.cost.throttleStatus`, the `RateLimit`
 * header): a CDN or shared proxy then serves one caller's budget to everyone who asks next.
 *
 * Guarantee: a response that carries one caller's budget is never publicly cacheable. By default
 * (`cacheableResponses: 'private'`) its cache policy is restricted to PRIVATE; with
 * `'unannotated'` it stays public and goes out without the caller's budget.
 */
import { afterEach, expect, it } from 'vitest';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import { costDirectivesTypeDefs } from '../../src/cost/directives.js';
import { serversStoppedAfterEach, startBudgetServer, type PluginOptions } from '../plugin/budget-server.js';

const typeDefs = `${costDirectivesTypeDefs}
enum CacheControlScope { PUBLIC PRIVATE }
directive @cacheControl(maxAge: Int, scope: CacheControlScope, inheritMaxAge: Boolean) on FIELD_DEFINITION | OBJECT | INTERFACE | UNION
type Book @cacheControl(maxAge: 60) { title: String }
type Query { books: [Book!]! @cacheControl(maxAge: 60) @listSize(assumedSize: 2) }
`;
const schema = { typeDefs, resolvers: { Query: { books: () => [{ title: 'A' }, { title: 'B' }] } } };
const servers = serversStoppedAfterEach();
afterEach(() => undefined);

async function get(options: PluginOptions): Promise<{ headers: Headers; body: { extensions?: { cost?: unknown } } }> {
  const server = await startBudgetServer({ store: new MemoryBucketStore(), ...options }, { schema });
  servers.push(server);
  const url = new URL(server.url);
  url.searchParams.set('query', '{ books { title } }');
  // Apollo's CSRF prevention wants a header a simple browser request cannot carry.
  const response = await fetch(url, { headers: { 'apollo-require-preflight': 'true', 'x-test-user': 'carol' } });
  return { headers: response.headers, body: (await response.json()) as { extensions?: { cost?: unknown } } };
}

it("makes a response that carries the caller's budget private, not public", async () => {
  const { headers, body } = await get({});
  expect(headers.get('ratelimit')).toMatch(/r=/);
  expect(body.extensions?.cost).toBeDefined();
  expect(headers.get('cache-control')).toBe('max-age=60, private');
});

it("sends it public and without the caller's budget with cacheableResponses: 'unannotated'", async () => {
  const { headers, body } = await get({ cacheableResponses: 'unannotated' });
  expect(headers.get('cache-control')).toBe('max-age=60, public');
  expect(headers.get('ratelimit')).toBeNull();
  expect(headers.get('ratelimit-policy')).toBeNull();
  expect(body.extensions?.cost).toBeUndefined();
});
