import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startAppServers, type AppServerProcess } from '../support/app-processes.js';
import { itemsQuery } from './budget-server.js';

/** Two Apollo Servers in two OS processes, one Redis: one budget between them. */
describe('two app server processes sharing one Redis', () => {
  let apps: AppServerProcess[] = [];

  beforeAll(async () => {
    apps = await startAppServers(2, {
      REDIS_URL: `redis://127.0.0.1:${inject('redisPort')}`,
      KEY_PREFIX: `shared-${randomUUID().slice(0, 8)}:`,
      CAPACITY: 100,
      REFILL_PER_SECOND: 0,
      // This suite is about sharing, not deadlines: a generous deadline on a busy machine, and
      // 'deny' so that a store failure shows as 503 instead of silently admitting.
      STORE_TIMEOUT_MS: 2000,
      ON_STORE_ERROR: 'deny',
    });
  }, 60_000);

  afterAll(async () => {
    const codes = await Promise.all(apps.map((app) => app.stop()));
    expect(codes).toEqual([0, 0]);
    for (const app of apps) expect(app.output()).not.toMatch(/unhandledRejection/);
  });

  async function post(
    app: AppServerProcess,
    user: string,
    first: number,
  ): Promise<{ status: number; remaining: number | null }> {
    const response = await fetch(app.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-test-user': user },
      body: JSON.stringify({ query: itemsQuery(first) }),
    });
    const body = (await response.json()) as {
      extensions?: { cost?: { throttleStatus: { currentlyAvailable: number } | null } };
    };
    return { status: response.status, remaining: body.extensions?.cost?.throttleStatus?.currentlyAvailable ?? null };
  }

  it('admits exactly the capacity across both servers under concurrent load', async () => {
    // 100 tokens, operations of 10: one on each server first, then 38 more, 19 in flight at a time
    // spread over both servers. Exactly 8 of those fit.
    expect((await post(apps[0]!, 'shared-user', 8)).status).toBe(200);
    expect((await post(apps[1]!, 'shared-user', 8)).status).toBe(200);
    const replies: { app: number; status: number }[] = [];
    for (let wave = 0; wave < 2; wave++) {
      const batch = await Promise.all(
        Array.from({ length: 19 }, async (_, i) => {
          const app = (i + wave) % 2;
          const reply = await post(apps[app]!, 'shared-user', 8);
          return { app, status: reply.status };
        }),
      );
      replies.push(...batch);
    }
    expect(replies.filter((reply) => reply.status === 200)).toHaveLength(8);
    expect(replies.filter((reply) => reply.status === 429)).toHaveLength(30);
    expect(replies.filter((reply) => reply.app === 0)).toHaveLength(19);
  });

  it('one server sees what the other charged', async () => {
    const first = await post(apps[0]!, 'seen-user', 28);
    expect(first).toEqual({ status: 200, remaining: 70 });
    const second = await post(apps[1]!, 'seen-user', 8);
    expect(second).toEqual({ status: 200, remaining: 60 });
  });
});
