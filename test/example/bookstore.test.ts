import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEYS, ORGS, TIERS } from '../../examples/bookstore/callers.js';
import { RedisBucketStore, type BucketPolicy, type BucketStore } from '../../src/index.js';
import { startRedisCluster, type RedisCluster } from '../support/redis-cluster.js';
import { freePort, startRedisServer, type RedisServer } from '../support/redis-server.js';
import { runScript, startExample, type RunningExample } from './example-process.js';
import { allElements, parseXml } from './xml.js';
import { readmeExamples, replayExample as replay } from './readme-examples.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (file: string): string => readFileSync(join(ROOT, file), 'utf8');
const README = read('README.md');
const EXAMPLE_README = read('examples/bookstore/README.md');

/**
 * The documents whose curl examples are replayed against one running example, in this order. The
 * order is part of what the documents show: an example answers as shown only after the ones before
 * it (the README's anonymous 429 needs its caller's bucket as the README left it), so a new document
 * is appended here, and its examples either use callers of their own (docs/cost-model.md: dave) or
 * charge nothing (docs/http-contract.md: carol's 400, and grace and heidi sharing their organisation's
 * budget; docs/rate-limit-field.md: frank's dry run).
 */
const REPLAYED = ['README.md', 'docs/cost-model.md', 'docs/http-contract.md', 'docs/rate-limit-field.md'] as const;
/** Documents whose curl examples go to servers of their own, and the test that replays them there. */
const REPLAYED_ELSEWHERE = { 'docs/frameworks.md': 'test/example/frameworks.test.ts' } as const;
const examples = readmeExamples(README);
const replayed = REPLAYED.flatMap((file) => readmeExamples(read(file)).map((example) => ({ ...example, file })));
const exampleReadmeExamples = readmeExamples(EXAMPLE_README).map((example) => ({
  ...example,
  file: 'examples/bookstore/README.md',
}));

function describeStore(
  name: string,
  env: () => Record<string, string>,
  expectStoreLine: () => RegExp,
  args: readonly string[] = [],
): void {
  describe(`the bookstore example on ${name}`, () => {
    let app: RunningExample;

    beforeAll(async () => {
      app = await startExample(env(), 30_000, args);
    });
    afterAll(async () => {
      await app?.stop();
    });

    it('says on its first lines which store it uses and where', () => {
      const storeLine = app.lines.find((line) => line.startsWith('Bucket store: '));
      expect(app.lines.indexOf(storeLine as string)).toBeLessThanOrEqual(1);
      expect(storeLine).toMatch(expectStoreLine());
    });

    it(`answers every curl example of ${REPLAYED.join(', ')} with the response shown, in that order`, async () => {
      for (const example of replayed) expect(await replay(example, app.url)).toEqual([]);
    });

    it('treats an unknown key as an anonymous caller with the small budget', async () => {
      const response = await fetch(app.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer constructor' },
        body: JSON.stringify({ query: '{ book(id: "book-2") { title } }' }),
      });
      const body = (await response.json()) as {
        extensions: { cost: { throttleStatus: { maximumAvailable: number } } };
      };
      // 200, or 429 if the README's anonymous example just drained this address's bucket: either way
      // the budget reported is the anonymous one.
      expect([200, 429]).toContain(response.status);
      expect(body.extensions.cost.throttleStatus.maximumAvailable).toBe((TIERS.anonymous as BucketPolicy).capacity);
    });
  });
}

describe('README', () => {
  it('replays every document of docs/ that shows curl examples', () => {
    const withExamples = readdirSync(join(ROOT, 'docs'))
      .filter((name) => name.endsWith('.md'))
      .map((name) => `docs/${name}`)
      .filter((file) => readmeExamples(read(file)).length > 0);
    expect([...REPLAYED, ...Object.keys(REPLAYED_ELSEWHERE)]).toEqual(expect.arrayContaining(withExamples));
    for (const test of Object.values(REPLAYED_ELSEWHERE)) expect(existsSync(join(ROOT, test)), test).toBe(true);
  });

  it('has curl examples in the Quick start, each with the response it shows', () => {
    expect(examples.filter((e) => e.section === '## Quick start').length).toBeGreaterThanOrEqual(2);
    expect(examples.map((e) => e.response.status)).toContain(429);
  });

  it('starts with exactly two command lines: `npm install && npm start` and `npm test`', () => {
    const quickStart = README.split(/^## /m).find((section) => section.startsWith('Quick start')) ?? '';
    const commands = [...quickStart.matchAll(/^```sh\n([\s\S]*?)^```/gm)]
      .map((block) => (block[1] as string).trim())
      .filter((block) => !block.startsWith('curl'));
    expect(commands).toEqual(['npm install && npm start', 'npm test']);
    const scripts = (
      JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
    ).scripts;
    expect(scripts.start).toBe('tsx examples/bookstore/server.ts');
    expect(scripts.demo).toBe('tsx examples/bookstore/demo.ts');
  });

  it('lists every API key of the example with its tier and budget', () => {
    for (const [key, account] of API_KEYS) {
      const row = EXAMPLE_README.split('\n').find((line) => line.includes(`\`${key}\``));
      expect(row, key).toBeDefined();
      expect(row).toContain(account.name);
      expect(row).toContain(account.tier);
    }
    for (const [tier, policy] of Object.entries(TIERS)) {
      const row = EXAMPLE_README.split('\n').find((line) => line.startsWith(`| ${tier} `));
      expect(row, tier).toBeDefined();
      for (const bucket of Array.isArray(policy) ? policy : [policy]) {
        expect(row).toContain(`${bucket.capacity.toLocaleString('en-US')} tokens`);
        expect(row).toContain(`${bucket.refillPerSecond} per second`);
      }
    }
    for (const [name, org] of Object.entries(ORGS)) {
      const row = EXAMPLE_README.split('\n').find((line) => line.startsWith(`| ${name} `));
      expect(row, name).toBeDefined();
      expect(row).toContain(`${org.capacity.toLocaleString('en-US')} tokens`);
      expect(row).toContain(`${org.refillPerSecond} per second`);
    }
  });
});

describeStore(
  'the embedded MemoryBucketStore (`npm start` with no Redis)',
  () => ({}),
  () => /^Bucket store: MemoryBucketStore /,
);

// The same API on GraphQL Yoga answers every example as Apollo Server does.
describeStore(
  'GraphQL Yoga (`npm start -- --server yoga`), with the embedded MemoryBucketStore',
  () => ({}),
  () => /^Bucket store: MemoryBucketStore /,
  ['--server', 'yoga'],
);

describe("the example's own README", () => {
  let app: RunningExample;
  beforeAll(async () => {
    app = await startExample();
  });
  afterAll(async () => {
    await app?.stop();
  });

  it('shows a 400, a mutation and a union, each answered as shown', async () => {
    expect(exampleReadmeExamples.map((e) => e.response.status)).toEqual([400, 200, 200]);
    for (const example of exampleReadmeExamples) expect(await replay(example, app.url)).toEqual([]);
  });
});

describe('anonymous callers, by network', () => {
  const query = JSON.stringify({ query: '{ books(first: 3) { edges { node { title author { name } } } } }' }); // 19 of 30
  const ask = async (app: RunningExample, forwardedFor: string): Promise<number> => {
    const response = await fetch(app.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': forwardedFor },
      body: query,
    });
    await response.arrayBuffer();
    return response.status;
  };

  describe('behind a trusted proxy (TRUSTED_PROXIES=loopback: this client is the proxy)', () => {
    let app: RunningExample;
    beforeAll(async () => {
      app = await startExample({ TRUSTED_PROXIES: 'loopback' });
    });
    afterAll(async () => {
      await app?.stop();
    });

    it('says which proxies it trusts', () => {
      expect(app.lines).toContain('Anonymous callers from X-Forwarded-For behind: loopback');
    });

    it('gives two addresses of one IPv6 /64 one budget, and another /64 its own', async () => {
      expect(await ask(app, '2001:db8:7:7::1')).toBe(200);
      expect(await ask(app, '2001:db8:7:7::2')).toBe(429);
      expect(await ask(app, '2001:db8:7:8::1')).toBe(200);
    });

    it('gives ::ffff:1.2.3.4 the budget of 1.2.3.4', async () => {
      expect(await ask(app, '1.2.3.4')).toBe(200);
      expect(await ask(app, '::ffff:1.2.3.4')).toBe(429);
    });

    it('reads only the hop the proxy appended: what the client wrote before it changes nothing', async () => {
      expect(await ask(app, '198.51.100.1, 203.0.113.40')).toBe(200);
      expect(await ask(app, '198.51.100.2, 203.0.113.40')).toBe(429);
    });
  });

  describe('without a trusted proxy', () => {
    let app: RunningExample;
    beforeAll(async () => {
      app = await startExample();
    });
    afterAll(async () => {
      await app?.stop();
    });

    it('ignores a spoofed X-Forwarded-For: the socket is the caller', async () => {
      expect(await ask(app, '2001:db8:9:9::1')).toBe(200);
      expect(await ask(app, '2001:db8:a:a::1')).toBe(429);
      expect(await ask(app, '203.0.113.41')).toBe(429);
    });
  });
});

describe('with REDIS_URL', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  describeStore(
    'RedisBucketStore',
    () => ({ REDIS_URL: redis.url }),
    () => new RegExp(`^Bucket store: RedisBucketStore on redis://127\\.0\\.0\\.1:${redis.port}`),
  );

  it('keeps the buckets in that Redis', async () => {
    const client = new Redis(redis.url, { lazyConnect: true });
    try {
      await client.connect();
      // The anonymous caller's bucket from the README's 429 example (19 s from full), under a key of
      // the form docs/operations.md shows: prefix, `k:`, identity.
      const anonymous = (await client.keys('*')).filter((key) => /^gb:k:ip:[0-9a-f:.]+$/.test(key));
      expect(anonymous).toHaveLength(1);
      expect(await client.pttl(anonymous[0] as string)).toBeGreaterThan(0);
    } finally {
      client.disconnect();
    }
  });
});

describe('with REDIS_URL pointing at a Redis that is down, then comes up', () => {
  let app: RunningExample;
  let redis: RedisServer | undefined;
  let port: number;
  beforeAll(async () => {
    port = await freePort();
    app = await startExample({ REDIS_URL: `redis://127.0.0.1:${port}` });
  });
  afterAll(async () => {
    await app?.stop();
    await redis?.stop();
  });

  const ask = async (): Promise<{ status: number; throttleStatus: unknown; data: unknown }> => {
    const response = await fetch(app.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer free-key-carol' },
      body: JSON.stringify({ query: '{ book(id: "book-3") { title } }' }),
    });
    const body = (await response.json()) as { data?: unknown; extensions: { cost: { throttleStatus: unknown } } };
    return { status: response.status, throttleStatus: body.extensions.cost.throttleStatus, data: body.data };
  };

  it("starts anyway, says so, and charges each caller in this process meanwhile ('local')", async () => {
    expect(app.lines.some((line) => line.includes('is unreachable'))).toBe(true);
    const started = performance.now();
    const answer = await ask();
    expect(performance.now() - started).toBeLessThan(2_000); // not ioredis' ~70 s of retries
    expect(answer.status).toBe(200);
    expect(answer.data).toEqual({ book: { title: 'The Distant Harbour' } });
    // Charged against an in-process bucket with carol's policy (free tier: 100, 5 per second).
    expect(answer.throttleStatus).toMatchObject({ maximumAvailable: 100, restoreRate: 5 });
  });

  it('shares budgets through Redis again once it is up', async () => {
    redis = await startRedisServer({ port });
    const deadline = Date.now() + 15_000;
    while (!app.lines.some((line) => line.includes('is back')) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    expect(app.lines.some((line) => line.includes('is back'))).toBe(true);
    // The plugin's circuit breaker probes the store again after its cool-down (500 ms by default);
    // from then on carol's buckets live in Redis: her burst window, read through a store on it.
    const client = new Redis(redis.url, { lazyConnect: true });
    try {
      await client.connect();
      const store: BucketStore = new RedisBucketStore(client);
      const burst = {
        key: 'key:carol\u0000burst',
        hashTag: 'key:carol',
        policy: { capacity: 100, refillPerSecond: 5 },
      };
      const read = async (): Promise<number> =>
        store.peekAll
          ? ((await store.peekAll([burst]))[0]?.remaining ?? 100)
          : (await store.peek(burst.key, burst.policy)).remaining;
      let remaining = await read();
      while (remaining >= 100 && Date.now() < deadline) {
        await ask();
        remaining = await read();
        if (remaining >= 100) await new Promise((r) => setTimeout(r, 200));
      }
      expect(remaining).toBeLessThan(100);
    } finally {
      client.disconnect();
    }
  });
});

describe('with REDIS_CLUSTER_NODES', () => {
  let cluster: RedisCluster;
  beforeAll(async () => {
    cluster = await startRedisCluster();
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  const nodes = (): string => cluster.startupNodes.map((node) => `${node.host}:${node.port}`).join(',');
  describeStore(
    'RedisBucketStore over an ioredis Cluster',
    () => ({ REDIS_CLUSTER_NODES: nodes() }),
    () =>
      new RegExp(
        `^Bucket store: RedisBucketStore on the Redis Cluster at ${nodes().replaceAll('.', '\\.').replaceAll(',', ', ')}$`,
      ),
  );
});

describe('npm run demo -- --quick', () => {
  let app: RunningExample;
  let dir: string;
  beforeAll(async () => {
    app = await startExample();
    dir = mkdtempSync(join(tmpdir(), 'graphql-budget-demo-'));
  });
  afterAll(async () => {
    await app?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('prints a line per request and writes demo-budget.svg where it runs: well-formed, one series per caller and one for the organisation', async () => {
    const demo = runScript('examples/bookstore/demo.ts', ['--quick', app.url], { cwd: dir });
    expect(await demo.exited, demo.lines.join('\n')).toBe(0);

    const requests = demo.lines.filter((line) => /^\[\s*\d+\.\d+ s\] /.test(line));
    expect(requests.length).toBeGreaterThan(10);
    expect(requests.some((line) => / 200 allowed/.test(line))).toBe(true);
    expect(requests.some((line) => / 429 throttled by \w+\s+Retry-After: \d+ s/.test(line))).toBe(true);
    // bob (pro) is refused by the organisation's shared budget while his own still holds the cost.
    const byOrg = requests.filter((line) => /^\S+\s+s\] bob .* 429 throttled by org/.test(line.replace(/^\[\s*/, '[')));
    expect(byOrg.length).toBeGreaterThan(0);
    for (const line of byOrg) {
      const [, cost, own] = /cost\s+(\d+)\s+own\s+(\d+)\/1000/.exec(line) ?? [];
      if (own !== undefined) expect(Number(own)).toBeGreaterThan(Number(cost));
    }

    const svg = parseXml(readFileSync(join(dir, 'demo-budget.svg'), 'utf8'));
    expect(svg.name).toBe('svg');
    const series = allElements(svg).filter((element) => element.attributes.class === 'series');
    expect(series.map((element) => element.attributes['data-caller'])).toEqual(['alice', 'bob', 'acme (shared)']);
    for (const element of series) {
      const line = element.children.find((child) => child.name === 'path' && child.attributes.class === undefined);
      expect((line?.attributes.d ?? '').split('L').length).toBeGreaterThan(5);
      expect(element.children.some((child) => child.attributes.class === 'allowed')).toBe(true);
    }
    expect(series.some((element) => element.children.some((child) => child.attributes.class === 'rejected'))).toBe(
      true,
    );
  });
});
