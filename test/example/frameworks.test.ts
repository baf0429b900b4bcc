/**
 * Replays docs/frameworks.md. Every block the page marks `<!-- file: NAME -->` is written out as it
 * stands (page-files.ts: only `'graphql-budget'` points at the sources) and run in this process:
 * the Express 5 server with cors(), the Fastify server with @fastify/cors, the NestJS modules
 * (schema-first, code-first through main.ts, and the guard that runs too late), the Federation
 * subgraph behind a real @apollo/gateway, and the page's curl requests (GET, CSRF prevention, APQ)
 * against the Express server. Each test checks what the page says about that stack over HTTP.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { composeServices } from '@apollo/composition';
import type { ApolloServer, BaseContext } from '@apollo/server';
import { Logger, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { type DocumentNode, getIntrospectionQuery } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/redis-server.js';
import { docBlocks, fileBlocks, type DocBlock } from './doc-blocks.js';
import { writePageFiles, type PageFiles } from './page-files.js';
import { readmeExamples, replayExample } from './readme-examples.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PAGE_FILE = 'docs/frameworks.md';
const PAGE = readFileSync(join(ROOT, PAGE_FILE), 'utf8');
const QUERY = '{ books(first: 2) { title similar(first: 2) { title } } }';
const ORIGIN = 'https://app.example';

const blocks = fileBlocks(PAGE);
/** The page's file, with each `[from, to]` replaced (the variants the page describes in words). */
function variant(file: string, ...replacements: [string, string][]): DocBlock {
  const block = blocks.get(file);
  if (block === undefined) throw new Error(`${PAGE_FILE}: no block marked file: ${file}`);
  let text = block.text;
  for (const [from, to] of replacements) {
    if (!text.includes(from)) throw new Error(`${PAGE_FILE} ${file}: no "${from}" to replace`);
    text = text.replace(from, to);
  }
  return { ...block, text };
}
const EXPRESS_WITHOUT_CORS_EXPOSE = 'express-without-cors-expose.ts';
const FASTIFY_OWN_HEADERS = 'fastify-own-headers.ts';
const GUARDED_WITHOUT_FALLBACK = 'guarded-without-fallback.module.ts';
const files: PageFiles = writePageFiles(
  'frameworks',
  new Map([
    ...blocks,
    [EXPRESS_WITHOUT_CORS_EXPOSE, variant('express.ts', ['      corsExposeHeaders: exposedHeaders,\n', ''])],
    [
      FASTIFY_OWN_HEADERS,
      variant(
        'fastify.ts',
        ['      corsExposeHeaders: false, // @fastify/cors exposes the budget headers below\n', ''],
        ['exposedHeaders: [...budgetExposedHeaders]', "exposedHeaders: ['X-Request-Id']"],
      ),
    ],
    [
      GUARDED_WITHOUT_FALLBACK,
      variant('guarded.module.ts', [
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the page's code, as text to replace
        'req.user ? `user:${req.user.id}` : `ip:${clientAddress(req.socket.remoteAddress, req.headers)}`',
        'req.user?.id as string',
      ]),
    ],
  ]),
  {
    'express.ts': ['server'],
    [EXPRESS_WITHOUT_CORS_EXPOSE]: ['server'],
    'fastify.ts': ['app'],
    [FASTIFY_OWN_HEADERS]: ['app'],
    'main.ts': ['app'],
    'subgraph.ts': ['server', 'typeDefs'],
    'gateway.ts': ['server'],
  },
);
afterAll(() => files.remove());

/** Imports one of the page's files with PORT (and `env`) set, as `PORT=… node file` would run it. */
async function run<T>(file: string, env: Record<string, string> = {}): Promise<{ module: T; url: string }> {
  const port = await freePort();
  Object.assign(process.env, env, { PORT: String(port) });
  const module = (await import(/* @vite-ignore */ files.url(file))) as T;
  return { module, url: `http://127.0.0.1:${port}/` };
}

interface Reply {
  status: number;
  headers: Headers;
  body: {
    data?: unknown;
    errors?: { message: string; extensions?: { code?: string } }[];
    extensions?: { cost?: { requestedQueryCost: number; throttleStatus: { currentlyAvailable: number } | null } };
  };
}

/** POSTs a query as the holder of `key` (anonymous without), from `origin` when given. */
async function post(
  url: string,
  options: { key?: string; origin?: string; query?: string; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...options.headers };
  if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`;
  if (options.origin !== undefined) headers.origin = options.origin;
  const response = await fetch(url, {
    method: 'POST',
    headers,
    body: JSON.stringify({ query: options.query ?? QUERY }),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Reply['body'] };
}

/**
 * Expects `tokens` left after `reply`, or a little more: the buckets refill 1 token per second
 * while the test runs (up to 8 s of it here, on a loaded machine), and buckets that differ differ
 * by a query's 18.
 */
function expectLeft(reply: Reply, tokens: number): void {
  const left = reply.body.extensions?.cost?.throttleStatus?.currentlyAvailable;
  expect(left, JSON.stringify(reply.body.extensions?.cost)).toBeGreaterThanOrEqual(tokens);
  expect(left).toBeLessThanOrEqual(tokens + 8);
}
const exposed = (reply: Reply): string[] =>
  (reply.headers.get('access-control-expose-headers') ?? '').split(',').map((name) => name.trim().toLowerCase());

/** Posts as `key` until refused (at most 10 times: 100 tokens, 18 a query); returns the refusal. */
async function exhaust(url: string, key: string | undefined, origin?: string): Promise<Reply> {
  for (let i = 0; i < 10; i++) {
    const reply = await post(url, {
      ...(key === undefined ? {} : { key }),
      ...(origin === undefined ? {} : { origin }),
    });
    if (reply.status !== 200) return reply;
  }
  throw new Error('never refused');
}

describe('the page', () => {
  it('marks the files this test runs, and its curl requests all go to the Express server', () => {
    expect([...blocks.keys()].sort()).toEqual(
      [
        'app.module.ts',
        'auth.ts',
        'books.resolver.ts',
        'express.ts',
        'fastify.ts',
        'gateway.ts',
        'guarded.module.ts',
        'main.ts',
        'router.yaml',
        'schema-first.module.ts',
        'schema.ts',
        'subgraph.ts',
      ].sort(),
    );
    const examples = readmeExamples(PAGE);
    expect(examples.map((example) => example.section)).toEqual(Array(6).fill('## GET and persisted queries'));
    expect(examples.every((example) => example.request.url.startsWith('http://localhost:4000/graphql'))).toBe(true);
  });

  it('shows the SHA-256 of the document it persists', () => {
    const hash = createHash('sha256').update(QUERY).digest('hex');
    const hashes = [...PAGE.matchAll(/"sha256Hash":"(\w+)"/g)].map((match) => match[1]);
    expect(hashes).toHaveLength(3);
    expect(new Set(hashes)).toEqual(new Set([hash]));
  });
});

describe('Express 5 with cors()', () => {
  let server: ApolloServer<BaseContext>;
  let url: string;
  beforeAll(async () => {
    ({
      module: { server },
      url,
    } = await run<{ server: ApolloServer<BaseContext> }>('express.ts'));
  });
  afterAll(() => server?.stop());

  it('answers the curl requests of "GET and persisted queries" as shown, in order', async () => {
    const problems: string[] = [];
    for (const example of readmeExamples(PAGE)) {
      problems.push(...(await replayExample({ ...example, file: PAGE_FILE }, `${url}`)));
    }
    expect(problems).toEqual([]);
  });

  it('charges each signed-in user, and anonymous callers by address, in buckets of their own', async () => {
    expectLeft(await post(`${url}graphql`, { key: 'key-bob' }), 82);
    expectLeft(await post(`${url}graphql`, { key: 'key-bob' }), 64);
    expectLeft(await post(`${url}graphql`), 82);
    expectLeft(await post(`${url}graphql`, { key: 'not-a-key' }), 64);
  });

  it("lets a browser read the budget headers and cors()'s own, on a 429 Retry-After too", async () => {
    const ok = await post(`${url}graphql`, { origin: ORIGIN });
    expect(ok.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(ok.headers.get('x-request-id')).toMatch(/^[\da-f-]{36}$/);
    expect(exposed(ok)).toEqual(['x-request-id', 'ratelimit', 'ratelimit-policy']);
    const refused = await exhaust(`${url}graphql`, undefined, ORIGIN);
    expect(refused.status).toBe(429);
    expect(exposed(refused)).toEqual(['x-request-id', 'ratelimit', 'ratelimit-policy', 'retry-after']);
  });

  it("loses cors()'s X-Request-Id on budget responses without corsExposeHeaders, as the page says", async () => {
    const { module, url: other } = await run<{ server: ApolloServer<BaseContext> }>(EXPRESS_WITHOUT_CORS_EXPOSE);
    try {
      const reply = await post(`${other}graphql`, { origin: ORIGIN });
      expect(reply.headers.get('x-request-id')).not.toBeNull();
      expect(exposed(reply)).toEqual(['ratelimit', 'ratelimit-policy']);
    } finally {
      await module.server.stop();
    }
  });
});

describe('Fastify with @fastify/cors', () => {
  let app: FastifyInstance;
  let url: string;
  beforeAll(async () => {
    ({
      module: { app },
      url,
    } = await run<{ app: FastifyInstance }>('fastify.ts'));
  });
  afterAll(() => app?.close());

  it('charges the user the onRequest hook verified, and anonymous callers by address', async () => {
    const ann = await post(`${url}graphql`, { key: 'key-ann' });
    expect(ann.body.extensions?.cost).toMatchObject({ requestedQueryCost: 18 });
    expectLeft(ann, 82);
    expectLeft(await post(`${url}graphql`, { key: 'key-bob' }), 82);
    expectLeft(await post(`${url}graphql`, { key: 'key-ann' }), 64);
    expectLeft(await post(`${url}graphql`), 82);
  });

  it('exposes the budget headers through @fastify/cors when corsExposeHeaders is false', async () => {
    const ok = await post(`${url}graphql`, { key: 'key-bob', origin: ORIGIN });
    expect(ok.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(exposed(ok)).toEqual(['ratelimit', 'ratelimit-policy', 'retry-after']);
    const refused = await exhaust(`${url}graphql`, 'key-bob', ORIGIN);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(exposed(refused)).toEqual(['ratelimit', 'ratelimit-policy', 'retry-after']);
  });

  it("replaces @fastify/cors's header with the plugin's, as it does on Express", async () => {
    const { module, url: other } = await run<{ app: FastifyInstance }>(FASTIFY_OWN_HEADERS);
    try {
      expect(exposed(await post(`${other}graphql`, { origin: ORIGIN }))).toEqual(['ratelimit', 'ratelimit-policy']);
      // Without a budget header to expose (Apollo's own 400), @fastify/cors's value stands.
      const unpriced = await post(`${other}graphql`, { origin: ORIGIN, query: '{' });
      expect(unpriced.status).toBe(400);
      expect(exposed(unpriced)).toEqual(['x-request-id']);
    } finally {
      await module.app.close();
    }
  });
});

describe('NestJS', () => {
  beforeAll(() => Logger.overrideLogger(false)); // Nest's start-up lines, for every app below

  /** Starts a Nest app from one of the page's modules, as main.ts does (without its CORS line). */
  async function startModule(file: string, name: string): Promise<{ app: INestApplication; url: string }> {
    const module = (await import(/* @vite-ignore */ files.url(file))) as Record<string, new () => unknown>;
    const app = await NestFactory.create(module[name] as new () => unknown);
    const port = await freePort();
    await app.listen(port, '127.0.0.1');
    return { app, url: `http://127.0.0.1:${port}/graphql` };
  }

  describe('schema-first (schema-first.module.ts)', () => {
    let nest: { app: INestApplication; url: string };
    beforeAll(async () => {
      nest = await startModule('schema-first.module.ts', 'SchemaFirstModule');
    });
    afterAll(() => nest?.app.close());

    it('prices by the SDL directives and charges the caller the context named', async () => {
      const ann = await post(nest.url, { key: 'key-ann' });
      expect(ann.body.extensions?.cost).toMatchObject({ requestedQueryCost: 18, actualQueryCost: 18 });
      expectLeft(ann, 82);
      expectLeft(await post(nest.url, { key: 'key-bob' }), 82);
      expectLeft(await post(nest.url), 82);
      expectLeft(await post(nest.url, { key: 'key-ann' }), 64);
    });
  });

  describe('code-first (main.ts, app.module.ts, books.resolver.ts)', () => {
    let app: INestApplication;
    let url: string;
    beforeAll(async () => {
      const started = await run<{ app: INestApplication }>('main.ts');
      app = started.module.app;
      url = `${started.url}graphql`;
    });
    afterAll(() => app?.close());

    it('prices by the @Directive() directives: 18, as on the README server', async () => {
      const reply = await post(url, { key: 'key-ann' });
      expect(reply.status).toBe(200);
      expect(reply.body.extensions?.cost).toMatchObject({ requestedQueryCost: 18, actualQueryCost: 18 });
      // Without the directives the books would be 10 (defaultListSize) and each similar list 10.
      expect(reply.body.data).toEqual({
        books: [
          { title: 'The Silent Harbour', similar: [{ title: 'The Glass Atlas' }, { title: 'The Paper Harbour' }] },
          { title: 'The Glass Atlas', similar: [{ title: 'The Silent Harbour' }, { title: 'The Paper Harbour' }] },
        ],
      });
    });

    it('charges the user the context function authenticated, each in a bucket of their own', async () => {
      expectLeft(await post(url, { key: 'key-bob' }), 82);
      expectLeft(await post(url, { key: 'key-ann' }), 64);
      expectLeft(await post(url), 82);
    });

    it("answers a 429 with Retry-After, exposed by Nest's CORS", async () => {
      const refused = await exhaust(url, 'key-bob', ORIGIN);
      expect(refused.status).toBe(429);
      expect(refused.body.errors?.[0]?.extensions?.code).toBe('RATE_LIMITED');
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(refused.headers.get('access-control-allow-origin')).toBe(ORIGIN);
      expect(exposed(refused)).toEqual(['ratelimit', 'ratelimit-policy', 'retry-after']);
    });

    it("lets GraphiQL's standard introspection query through for free outside production", async () => {
      expect(process.env.NODE_ENV).not.toBe('production');
      const reply = await post(url, { key: 'key-ann', query: getIntrospectionQuery() });
      expect(reply.status).toBe(200);
      expect(reply.body.errors).toBeUndefined();
      expect(reply.body.extensions?.cost).toMatchObject({ requestedQueryCost: 0 });
    });
  });

  describe('a guard that sets req.user (guarded.module.ts)', () => {
    let nest: { app: INestApplication; url: string };
    beforeAll(async () => {
      nest = await startModule('guarded.module.ts', 'GuardedAppModule');
    });
    afterAll(() => nest?.app.close());

    it('lets signed-in users in, but identify saw no user: ann and bob pay from one address bucket', async () => {
      const ann = await post(nest.url, { key: 'key-ann' });
      expect(ann.status).toBe(200);
      expect(ann.body.data).toBeDefined();
      expectLeft(ann, 82);
      expectLeft(await post(nest.url, { key: 'key-bob' }), 64);
    });

    it('charges a request the guard then refuses', async () => {
      const refused = await post(nest.url);
      expect(refused.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
      expect(refused.body.data).toBeNull();
      expectLeft(refused, 46);
    });

    it('fails every request with a 500 when identify does not fall back to the address', async () => {
      const other = await startModule(GUARDED_WITHOUT_FALLBACK, 'GuardedAppModule');
      try {
        const reply = await post(other.url, { key: 'key-ann' });
        expect(reply.status).toBe(500);
        expect(reply.body.errors?.[0]?.extensions?.code).toBe('INTERNAL_SERVER_ERROR');
        expect(reply.body.data).toBeUndefined();
      } finally {
        await other.app.close();
      }
    });
  });
});

describe('a Federation subgraph behind @apollo/gateway', () => {
  const secret = `secret-${process.pid}`;
  let subgraph: { server: ApolloServer<BaseContext>; url: string };
  let gateway: { server: ApolloServer<BaseContext>; url: string };

  beforeAll(async () => {
    const started = await run<{ server: ApolloServer<BaseContext>; typeDefs: DocumentNode }>('subgraph.ts', {
      ROUTER_SECRET: secret,
    });
    subgraph = { server: started.module.server, url: started.url };
    const composed = composeServices([{ name: 'books', typeDefs: started.module.typeDefs, url: started.url }]);
    if (composed.errors !== undefined) throw composed.errors[0];
    const supergraph = join(files.dir, 'supergraph.graphql');
    writeFileSync(supergraph, composed.supergraphSdl);
    const front = await run<{ server: ApolloServer<BaseContext> }>('gateway.ts', { SUPERGRAPH_PATH: supergraph });
    gateway = { server: front.module.server, url: front.url };
  });
  afterAll(async () => {
    await gateway?.server.stop();
    await subgraph?.server.stop();
  });

  it('charges the caller whose Authorization header the gateway propagated', async () => {
    const reply = await post(gateway.url, { key: 'key-ann' });
    expect(reply.status).toBe(200);
    expect(reply.body.errors).toBeUndefined();
    expect(reply.body.data).toMatchObject({ books: [{ title: 'The Silent Harbour' }, { title: 'The Glass Atlas' }] });
    await post(gateway.url, { key: 'key-ann' });
    // Asked directly, with the router's secret, the subgraph shows ann's bucket after both: 100 − 2 × 18.
    const direct = await post(subgraph.url, { key: 'key-ann', headers: { 'x-router-secret': secret } });
    expect(direct.body.extensions?.cost).toMatchObject({ requestedQueryCost: 18 });
    expectLeft(direct, 46);
  });

  it('refuses requests that did not come through the router, and callers without a key, before charging', async () => {
    const direct = await post(subgraph.url, { key: 'key-bob' });
    expect(direct.status).toBe(403);
    expect(direct.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const forged = await post(subgraph.url, { key: 'key-bob', headers: { 'x-router-secret': 'guess' } });
    expect(forged.status).toBe(403);
    // Through the gateway, the subgraph's 401 becomes the gateway's error (code kept) in a 200.
    const anonymous = await post(gateway.url);
    expect(anonymous.status).toBe(200);
    expect(anonymous.body.errors?.[0]).toMatchObject({
      message: '401: Unauthorized',
      extensions: { code: 'UNAUTHENTICATED' },
    });
    expect(anonymous.body.data).toBeNull();
    // bob's bucket is untouched by all three.
    expectLeft(await post(subgraph.url, { key: 'key-bob', headers: { 'x-router-secret': secret } }), 82);
  });

  it("passes a subgraph's refusal to the client as the gateway's error in a 200, without Retry-After", async () => {
    let reply: Reply | undefined;
    for (let i = 0; i < 10 && (reply === undefined || reply.body.errors === undefined); i++) {
      reply = await post(gateway.url, { key: 'key-ann' });
    }
    expect(reply?.status).toBe(200);
    expect(reply?.headers.get('retry-after')).toBeNull();
    expect(reply?.headers.get('ratelimit')).toBeNull();
    expect(reply?.body.data).toBeNull();
    expect(reply?.body.errors).toEqual([
      {
        message: '429: Too Many Requests',
        extensions: expect.objectContaining({
          code: 'INTERNAL_SERVER_ERROR',
          // The subgraph's own answer, nested.
          response: expect.objectContaining({
            status: 429,
            body: expect.objectContaining({
              errors: [expect.objectContaining({ extensions: expect.objectContaining({ code: 'RATE_LIMITED' }) })],
            }),
          }),
        }),
      },
    ]);
  });

  it('shows router.yaml propagating the headers the subgraph reads', () => {
    const yaml = blocks.get('router.yaml')?.text ?? '';
    expect(yaml).toMatch(/- propagate:\n\s+named: authorization\n/);
    expect(yaml).toMatch(/- insert:\n\s+name: x-router-secret\n\s+value: "\$\{env\.ROUTER_SECRET\}"\n/);
    const subgraphCode = blocks.get('subgraph.ts')?.text ?? '';
    expect(subgraphCode).toContain("req.headers['x-router-secret']");
    expect(subgraphCode).toContain('req.headers.authorization');
    expect(docBlocks(PAGE).filter((block) => block.lang === 'yaml')).toHaveLength(1);
  });
});
