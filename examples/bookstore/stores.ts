import { Cluster, Redis } from 'ioredis';
import { MemoryBucketStore, RedisBucketStore, type BucketStore } from '../../src/index.js';

/** The bucket store the example runs on, a line saying what and where, and how to let go of it. */
export interface SelectedStore {
  store: BucketStore;
  description: string;
  /** Resolves true once the store can answer, false if it still cannot after `timeoutMs`. */
  ready(timeoutMs?: number): Promise<boolean>;
  close(): Promise<void>;
}

/** Waits for an ioredis client's `ready` event. */
function whenReady(client: Redis | Cluster, timeoutMs = 3_000): Promise<boolean> {
  if (client.status === 'ready') return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      client.off('ready', onReady);
      resolve(false);
    }, timeoutMs);
    const onReady = (): void => {
      clearTimeout(timer);
      resolve(true);
    };
    client.once('ready', onReady);
  });
}

/** `redis://user:secret@host:6379/0` → `redis://user:***@host:6379/0`, for logs. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparsable REDIS_URL)';
  }
}

/** `host:port,host:port` → ioredis cluster start-up nodes. */
export function parseClusterNodes(value: string): { host: string; port: number }[] {
  const nodes = value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map((entry) => {
      const colon = entry.lastIndexOf(':');
      const host = colon > 0 ? entry.slice(0, colon) : '';
      const port = Number(entry.slice(colon + 1));
      if (!host || !Number.isInteger(port) || port < 1 || port > 65535) {
        throw new RangeError(`REDIS_CLUSTER_NODES: "${entry}" is not host:port.`);
      }
      return { host, port };
    });
  if (nodes.length === 0) throw new RangeError('REDIS_CLUSTER_NODES is set but lists no host:port.');
  return nodes;
}

// The client a limiter wants (see docs/operations.md, "Adding the plugin"): with ioredis' defaults a
// command to a dead Redis waits ~70 s and runs late on reconnect; here it fails at once, is never
// resent, and the plugin's `onStoreError` decides what the request gets. Auto-pipelining sends the
// commands of concurrent requests in one socket write.
export const clientOptions = {
  enableAutoPipelining: true,
  enableOfflineQueue: false,
  maxRetriesPerRequest: 0,
  autoResendUnfulfilledCommands: false,
  retryStrategy: (attempt: number) => Math.min(attempt * 50, 200),
};

/** One log line when the connection is lost and one when it is back, instead of one per retry. */
function logConnection(client: Redis | Cluster, where: string, log: (line: string) => void): void {
  let down = false;
  client.on('error', (error: Error) => {
    if (down) return;
    down = true;
    log(
      `Redis at ${where} is unreachable (${error.message}); each server process charges its own in-process buckets until it is back.`,
    );
  });
  client.on('ready', () => {
    if (down) log(`Redis at ${where} is back; budgets are shared through it again.`);
    down = false;
  });
}

/**
 * Chooses the store from the environment:
 * - `REDIS_CLUSTER_NODES=host:port,…` → `RedisBucketStore` over an ioredis `Cluster`;
 * - `REDIS_URL=redis://…` → `RedisBucketStore` over an ioredis `Redis`;
 * - neither → the embedded `MemoryBucketStore` (no Redis needed; budgets live in this process).
 */
export function storeFromEnv(
  env: Readonly<Record<string, string | undefined>>,
  log: (line: string) => void = (line) => console.warn(line),
): SelectedStore {
  const clusterNodes = env.REDIS_CLUSTER_NODES?.trim();
  const redisUrl = env.REDIS_URL?.trim();
  if (clusterNodes && redisUrl) {
    throw new RangeError('Set either REDIS_URL or REDIS_CLUSTER_NODES, not both.');
  }
  if (clusterNodes) {
    const nodes = parseClusterNodes(clusterNodes);
    const cluster = new Cluster(nodes, {
      redisOptions: clientOptions,
      enableAutoPipelining: true,
      enableOfflineQueue: false,
      clusterRetryStrategy: clientOptions.retryStrategy,
    });
    logConnection(cluster, `the cluster ${clusterNodes}`, log);
    return {
      store: new RedisBucketStore(cluster),
      description: `RedisBucketStore on the Redis Cluster at ${nodes.map((n) => `${n.host}:${n.port}`).join(', ')}`,
      ready: (timeoutMs) => whenReady(cluster, timeoutMs),
      close: async () => void (await cluster.quit().catch(() => cluster.disconnect())),
    };
  }
  if (redisUrl) {
    const redis = new Redis(redisUrl, clientOptions);
    logConnection(redis, redactUrl(redisUrl), log);
    return {
      store: new RedisBucketStore(redis),
      description: `RedisBucketStore on ${redactUrl(redisUrl)}`,
      ready: (timeoutMs) => whenReady(redis, timeoutMs),
      close: async () => void (await redis.quit().catch(() => redis.disconnect())),
    };
  }
  return {
    store: new MemoryBucketStore(),
    description: 'MemoryBucketStore in this process (no Redis; budgets are not shared between instances)',
    ready: async () => true,
    close: async () => {},
  };
}
