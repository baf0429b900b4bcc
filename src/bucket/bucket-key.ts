import { createHash } from 'node:crypto';

/** Identities kept readable in the Redis key: short and made of characters that need no escaping. */
const READABLE = /^[A-Za-z0-9._:@-]{1,64}$/;

/**
 * The Redis key of the bucket for `identity`.
 *
 * - an identity of 1–64 characters from `[A-Za-z0-9._:@-]` is kept readable: `${prefix}k:${identity}`;
 * - any other string (empty, long, with spaces, newlines, `{`, `}` or any other character) becomes
 *   `${prefix}h:${base64url(sha256(identity as UTF-16 code units))}` (43 characters; UTF-16 so
 *   that two different strings, even with lone surrogates, never hash the same input).
 *
 * The two namespaces (`k:` and `h:`) never collide, every key is at most `prefix.length + 66`
 * characters, and user text never contains `{` or `}`, so it can never pick a Redis Cluster hash
 * slot (a hash tag in `prefix` is the operator's choice and puts every bucket in one slot).
 */
export function bucketKey(prefix: string, identity: string): string {
  if (READABLE.test(identity)) return `${prefix}k:${identity}`;
  return `${prefix}h:${createHash('sha256').update(identity, 'utf16le').digest('base64url')}`;
}
