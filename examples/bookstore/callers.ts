import type { IncomingMessage } from 'node:http';
import type { BucketPolicy, BudgetLimit } from '../../src/index.js';

/** A budget tier. `anonymous` is for requests without a known API key. */
export type Tier = 'free' | 'pro' | 'anonymous';

/** Who is asking, resolved once per request from the `Authorization` header or the client address. */
export interface Caller {
  /** The bucket key: `key:<name>` for an API key, `ip:<address>` for anonymous callers. */
  id: string;
  name: string;
  tier: Tier;
  /** The organisation whose shared budget the caller also spends, if any. */
  org?: string;
}

/**
 * The buckets of each tier. A key holder has two windows of their own: `burst` (what they may spend
 * at once) and `minute` (what they may spend per minute, sustained); an anonymous caller has one
 * bucket per client address.
 */
export const TIERS: Readonly<Record<Tier, BucketPolicy | BudgetLimit[]>> = {
  free: [
    { name: 'burst', capacity: 100, refillPerSecond: 5 },
    { name: 'minute', capacity: 240, refillPerSecond: 4 },
  ],
  pro: [
    { name: 'burst', capacity: 1000, refillPerSecond: 50 },
    { name: 'minute', capacity: 2400, refillPerSecond: 40 },
  ],
  anonymous: { capacity: 30, refillPerSecond: 1 },
};

/**
 * Organisations and the budget their API keys share: one bucket (`key: 'org:<name>'`) that every
 * member's operations are charged against too, whatever their own windows hold.
 */
export const ORGS: Readonly<Record<string, BudgetLimit>> = {
  acme: { name: 'org', key: 'org:acme', capacity: 600, refillPerSecond: 10 },
  initech: { name: 'org', key: 'org:initech', capacity: 40, refillPerSecond: 1 },
};

/** What a caller's operations are charged against: their tier's buckets, and their organisation's. */
export function policyOf(caller: Caller): BucketPolicy | BudgetLimit[] {
  const tier = TIERS[caller.tier];
  const org = caller.org === undefined ? undefined : ORGS[caller.org];
  if (org === undefined) return tier;
  return [...(Array.isArray(tier) ? tier : [{ name: 'budget', ...tier }]), org];
}

/** An API key's owner and tier. */
export interface Account {
  name: string;
  tier: Exclude<Tier, 'anonymous'>;
  /** The organisation the key belongs to (its members share the organisation's budget). */
  org?: string;
}

/**
 * The example's API keys (listed in examples/bookstore/README.md). A real API would look keys up in
 * its user database; what matters is that the key is checked, so a client cannot pick its bucket.
 */
export const API_KEYS: ReadonlyMap<string, Account> = new Map<string, Account>([
  ['free-key-alice', { name: 'alice', tier: 'free', org: 'acme' }],
  ['pro-key-bob', { name: 'bob', tier: 'pro', org: 'acme' }],
  ['free-key-carol', { name: 'carol', tier: 'free' }],
  ['pro-key-dave', { name: 'dave', tier: 'pro' }],
  ['free-key-erin', { name: 'erin', tier: 'free' }],
  ['pro-key-frank', { name: 'frank', tier: 'pro' }],
  ['free-key-grace', { name: 'grace', tier: 'free', org: 'initech' }],
  ['free-key-heidi', { name: 'heidi', tier: 'free', org: 'initech' }],
]);

/**
 * `Authorization: Bearer <key>` with a known key → that key's caller; anything else → an anonymous
 * caller keyed by the TCP peer address (not `X-Forwarded-For`, which any client can set; behind a
 * trusted proxy, read the address that proxy appends instead).
 */
export function callerFromRequest(req: IncomingMessage): Caller {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  const account = match ? API_KEYS.get(match[1] as string) : undefined;
  if (account) {
    const caller: Caller = { id: `key:${account.name}`, name: account.name, tier: account.tier };
    if (account.org !== undefined) caller.org = account.org;
    return caller;
  }
  const address = req.socket.remoteAddress ?? 'unknown';
  return { id: `ip:${address}`, name: `anonymous (${address})`, tier: 'anonymous' };
}
