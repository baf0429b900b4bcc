import { Redis } from 'ioredis';
import { describe, expect, inject, it } from 'vitest';
import { startRedisServer } from '../support/redis-server.js';

describe('test redis harness', () => {
  it('provides a server that is not the shared 6379 instance', async () => {
    const port = inject('redisPort');
    expect(port).not.toBe(6379);
    const client = new Redis({ port, host: '127.0.0.1', lazyConnect: true });
    await client.connect();
    expect(await client.ping()).toBe('PONG');
    client.disconnect();
  });

  it('can kill and restart its own server', async () => {
    const server = await startRedisServer();
    const client = new Redis({
      port: server.port,
      host: '127.0.0.1',
      maxRetriesPerRequest: 0,
      retryStrategy: () => 50,
    });
    await client.set('k', '1');
    await server.restart();
    await new Promise((r) => setTimeout(r, 200));
    expect(await client.get('k')).toBeNull();
    client.disconnect();
    await server.stop();
  });
});
