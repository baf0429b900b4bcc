import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { freePort, redisCommand, startRedisServer, type RedisServer } from './redis-server.js';

const run = promisify(execFile);

/** One node of a test cluster, with the role it had when last asked. */
export interface ClusterNode {
  readonly server: RedisServer;
  readonly port: number;
}

/** A 3-master/3-replica Redis Cluster this test run owns, built from `redis-server` processes. */
export interface RedisCluster {
  /** All six nodes, in creation order (the first three start as masters). */
  readonly nodes: readonly ClusterNode[];
  /** `host:port` pairs for ioredis `new Cluster(startupNodes)`. */
  readonly startupNodes: readonly { host: string; port: number }[];
  /** The `cluster-node-timeout` the nodes run with, in ms. */
  readonly nodeTimeoutMs: number;
  /** The nodes that are masters right now, according to a live node's `CLUSTER NODES`. */
  masters(): Promise<ClusterNode[]>;
  /** The node serving `key`'s slot right now. */
  masterFor(key: string): Promise<ClusterNode>;
  /**
   * SIGKILLs a master (the given one, or the first live master) and resolves once a replica has
   * taken over its slots and every live node reports `cluster_state:ok`. Returns the killed node
   * and the ms between the kill and a healthy cluster.
   */
  killMaster(node?: ClusterNode): Promise<{ killed: ClusterNode; failoverMs: number }>;
  /** Resolves once every live node reports `cluster_state:ok` and every live replica's link is up. */
  waitHealthy(timeoutMs?: number): Promise<void>;
  /** Sends one command to one node and returns the reply. */
  command(node: ClusterNode, ...args: (string | number)[]): Promise<unknown>;
  /** Kills every node and removes their directories. Safe to call twice. */
  stop(): Promise<void>;
}

export interface StartClusterOptions {
  /** `cluster-node-timeout` in ms: how long a silent master has before its replica takes over. @default 1000 */
  nodeTimeoutMs?: number;
  /**
   * `cluster-require-full-coverage`: when true (Redis' default), every node refuses every command
   * (CLUSTERDOWN) while a failed master's slots are not served yet; when false, only the commands
   * for those slots.
   * @default true
   */
  requireFullCoverage?: boolean;
}

/**
 * Starts six `redis-server --cluster-enabled yes` processes on free ports (port + 10000 free too,
 * for the cluster bus), joins them with `redis-cli --cluster create --cluster-replicas 1`, and waits
 * until the cluster is fully up. If anything fails half-way, every process started so far is killed.
 * Call `stop()` in `afterAll` (the processes are also killed when the test process exits).
 */
export async function startRedisCluster(options: StartClusterOptions = {}): Promise<RedisCluster> {
  const nodeTimeoutMs = options.nodeTimeoutMs ?? 1000;
  const requireFullCoverage = options.requireFullCoverage ?? true;
  const nodes: ClusterNode[] = [];
  const dead = new Set<ClusterNode>();
  let stopped = false;

  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    await Promise.all(nodes.map((node) => node.server.stop()));
  };

  const command = (node: ClusterNode, ...args: (string | number)[]): Promise<unknown> =>
    redisCommand(node.port, ...args);

  const isAlive = (node: ClusterNode): boolean => {
    try {
      process.kill(node.server.pid, 0);
      return node.server.pid > 0;
    } catch {
      return false;
    }
  };
  const liveNodes = (): ClusterNode[] => nodes.filter((node) => !dead.has(node) && isAlive(node));

  const info = async (node: ClusterNode, section: string): Promise<string> =>
    String(await command(node, section === 'cluster' ? 'CLUSTER' : 'INFO', section === 'cluster' ? 'INFO' : section));

  const waitHealthy = async (timeoutMs = 20_000): Promise<void> => {
    const deadline = Date.now() + timeoutMs;
    let last = '';
    while (Date.now() < deadline) {
      try {
        const live = liveNodes();
        const states = await Promise.all(
          live.map(async (node) => {
            const cluster = await info(node, 'cluster');
            const replication = await info(node, 'replication');
            const ok = cluster.includes('cluster_state:ok');
            const isReplica = replication.includes('role:slave');
            const linkUp = !isReplica || replication.includes('master_link_status:up');
            return { node, ok, linkUp, isReplica };
          }),
        );
        const slotsServed = await threeMastersServeSlots(live[0]!);
        last = states
          .map(
            (s) => `${s.node.port}:${s.ok ? 'ok' : 'fail'}${s.isReplica ? (s.linkUp ? ',link up' : ',link down') : ''}`,
          )
          .join(' ');
        if (states.every((s) => s.ok && s.linkUp) && slotsServed) return;
      } catch (error) {
        last = String(error);
      }
      await sleep(100);
    }
    throw new Error(`Redis Cluster not healthy within ${timeoutMs} ms: ${last}`);
  };

  /** True when three live, non-failed masters own slots, i.e. no promotion is pending. */
  const threeMastersServeSlots = async (node: ClusterNode): Promise<boolean> => {
    const table = parseNodes(String(await command(node, 'CLUSTER', 'NODES')));
    const masters = table.filter((n) => n.flags.includes('master') && !n.flags.includes('fail') && n.slots > 0);
    return masters.length === 3;
  };

  const masters = async (): Promise<ClusterNode[]> => {
    const table = parseNodes(String(await command(liveNodes()[0]!, 'CLUSTER', 'NODES')));
    const ports = new Set(
      table.filter((n) => n.flags.includes('master') && !n.flags.includes('fail') && n.slots > 0).map((n) => n.port),
    );
    return liveNodes().filter((node) => ports.has(node.port));
  };

  try {
    for (let i = 0; i < 6; i++) {
      const port = await freePort(true);
      const server = await startRedisServer({
        port,
        args: [
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          'nodes.conf',
          '--cluster-node-timeout',
          String(nodeTimeoutMs),
          '--repl-diskless-sync',
          'yes',
          '--repl-diskless-sync-delay',
          '0',
          '--cluster-replica-validity-factor',
          '0',
          '--cluster-require-full-coverage',
          requireFullCoverage ? 'yes' : 'no',
        ],
      });
      nodes.push({ server, port });
    }
    await run(
      'redis-cli',
      ['--cluster', 'create', ...nodes.map((n) => `127.0.0.1:${n.port}`), '--cluster-replicas', '1', '--cluster-yes'],
      { timeout: 30_000 },
    );
    await waitHealthy(30_000);
  } catch (error) {
    await stop();
    throw error;
  }

  return {
    nodes,
    startupNodes: nodes.map((n) => ({ host: '127.0.0.1', port: n.port })),
    nodeTimeoutMs,
    masters,
    masterFor: async (key) => {
      const slot = Number(await command(liveNodes()[0]!, 'CLUSTER', 'KEYSLOT', key));
      const table = parseNodes(String(await command(liveNodes()[0]!, 'CLUSTER', 'NODES')));
      const owner = table.find(
        (n) =>
          n.flags.includes('master') && !n.flags.includes('fail') && n.ranges.some(([a, b]) => slot >= a && slot <= b),
      );
      const node = nodes.find((n) => n.port === owner?.port);
      if (!node) throw new Error(`no master serves slot ${slot}`);
      return node;
    },
    killMaster: async (target) => {
      const node = target ?? (await masters())[0]!;
      // A replica must be in sync before its master dies, or it will not be promoted with the data.
      await waitHealthy();
      const started = Date.now();
      await node.server.kill();
      dead.add(node);
      // Wait for the failure to be noticed (at least node-timeout) and the promotion to finish.
      await sleep(nodeTimeoutMs);
      const deadline = Date.now() + 30_000;
      for (;;) {
        const current = await masters().catch((): ClusterNode[] => []);
        if (current.length === 3 && !current.includes(node)) break;
        if (Date.now() > deadline) throw new Error('no replica took over the killed master within 30 s');
        await sleep(50);
      }
      await waitHealthy();
      return { killed: node, failoverMs: Date.now() - started };
    },
    waitHealthy,
    command,
    stop,
  };
}

interface NodeRow {
  port: number;
  flags: string[];
  slots: number;
  ranges: [number, number][];
}

function parseNodes(text: string): NodeRow[] {
  return text
    .trim()
    .split('\n')
    .map((line) => {
      const parts = line.trim().split(' ');
      const port = Number(/:(\d+)@/.exec(parts[1] ?? '')?.[1]);
      const ranges = parts
        .slice(8)
        .filter((p) => /^\d+(-\d+)?$/.test(p))
        .map((p): [number, number] => {
          const [a, b] = p.split('-').map(Number);
          return [a!, b ?? a!];
        });
      const slots = ranges.reduce((sum, [a, b]) => sum + b - a + 1, 0);
      return { port, flags: (parts[2] ?? '').split(','), slots, ranges };
    });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
