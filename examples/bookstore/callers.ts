import type { IncomingMessage } from 'node:http';
import type { BucketPolicy } from '../../src/index.js';

/** A budget tier. `anonymous` is for requests without a known API key. */
export type Tier = 'free' | 'pro' | 'anonymous';

/** Who is asking, resolved once per request from the `Authorization` header or the client address. */
export interface Caller {
  /** The bucket key: `key:<name>` for an API key, `ip:<address>` for anonymous callers. */
  id: string;
  name: string;
  tier: Tier;
}

/** Bucket size and refill rate per tier. */
export const TIERS: Readonly<Record<Tier, BucketPolicy>> = {
  free: { capacity: 100, refillPerSecond: 5 },
  pro: { capacity: 1000, refillPerSecond: 50 },
  anonymous: { capacity: 30, refillPerSecond: 1 },
};

/** An API key's owner and tier. */
export interface Account {
  name: string;
  tier: Exclude<Tier, 'anonymous'>;
}

/**
 * The example's API keys (listed in examples/bookstore/README.md). A real API would look keys up in
 * its user database; what matters is that the key is checked, so a client cannot pick its bucket.
 */
export const API_KEYS: ReadonlyMap<string, Account> = new Map<string, Account>([
  ['free-key-alice', { name: 'alice', tier: 'free' }],
  ['pro-key-bob', { name: 'bob', tier: 'pro' }],
  ['free-key-carol', { name: 'carol', tier: 'free' }],
  ['pro-key-dave', { name: 'dave', tier: 'pro' }],
  ['free-key-erin', { name: 'erin', tier: 'free' }],
  ['pro-key-frank', { name: 'frank', tier: 'pro' }],
]);

/**
 * `Authorization: Bearer <key>` with a known key → that key's caller; anything else → an anonymous
 * caller keyed by the TCP peer address (not `X-Forwarded-For`, which any client can set; behind a
 * trusted proxy, read the address that proxy appends instead).
 */
export function callerFromRequest(req: IncomingMessage): Caller {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  const account = match ? API_KEYS.get(match[1] as string) : undefined;
  if (account) return { id: `key:${account.name}`, name: account.name, tier: account.tier };
  const address = req.socket.remoteAddress ?? 'unknown';
  return { id: `ip:${address}`, name: `anonymous (${address})`, tier: 'anonymous' };
}
