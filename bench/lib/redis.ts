import { Redis } from 'ioredis';
import { startRedisServer, type RedisServer } from '../../test/support/redis-server.js';

export type { RedisServer };

/**
 * Starts the benchmark's own throw-away redis-server on a free loopback port (never the shared
 * 6379), so the run may FLUSHALL it between measurements.
 */
export function startBenchRedis(): Promise<RedisServer> {
  return startRedisServer();
}

/** An ioredis client with the library defaults, as a user would create it. */
export async function connect(port: number): Promise<Redis> {
  const client = new Redis({ port, host: '127.0.0.1', lazyConnect: true });
  await client.connect();
  return client;
}
