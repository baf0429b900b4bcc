import type { IncomingMessage } from 'node:http';
import { clientAddressKey, type BucketPolicy, type BudgetLimit, type ClientAddressKey } from '../../src/index.js';

/** A budget tier. `anonymous` is for requests without a known API key. */
export type Tier = 'free' | 'pro' | 'anonymous';

/** Who is asking, resolved once per request from the `Authorization` header or the client address. */
export interface Caller {
  /**
   * The bucket key: `key:<name>` for an API key, `ip:<network>` for anonymous callers (an IPv4
   * address, or an IPv6 /64: `ip:2001:db8:1:2::/64`).
   */
  id: string;
  name: string;
  tier: Tier;
  /** The organisation whose shared budget the caller also spends, if any. */
  org?: string;
}

/**
 * The buckets of each tier. A key holder has two windows of their own: `burst` (what they may spend
 * at once) and `minute` (what they may spend per minute, sustained); an anonymous caller has one
 * bucket per network (an IPv4 address or an IPv6 /64).
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

/** Anonymous callers by network, the socket's peer being the client (no proxy trusted). */
const directClients = clientAddressKey();

/**
 * `Authorization: Bearer <key>` with a known key → that key's caller; anything else → an anonymous
 * caller keyed by network (`clientAddressKey`: an IPv6 client by its /64, since one subscriber
 * holds a whole /64; `::ffff:203.0.113.7` as `203.0.113.7`). The address is the TCP peer's, or,
 * when `clientAddress` trusts the proxy in front (`TRUSTED_PROXIES`), the one that proxy appends to
 * `X-Forwarded-For`: never a header a client could have written itself.
 */
export function callerFromRequest(req: IncomingMessage, clientAddress: ClientAddressKey = directClients): Caller {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  const account = match ? API_KEYS.get(match[1] as string) : undefined;
  if (account) {
    const caller: Caller = { id: `key:${account.name}`, name: account.name, tier: account.tier };
    if (account.org !== undefined) caller.org = account.org;
    return caller;
  }
  const network = clientAddress(req.socket.remoteAddress, req.headers);
  return { id: `ip:${network}`, name: `anonymous (${network})`, tier: 'anonymous' };
}
