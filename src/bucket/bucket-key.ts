import { createHash } from 'node:crypto';

/** Identities kept readable in the Redis key: short and made of characters that need no escaping. */
const READABLE = /^[A-Za-z0-9._:@-]{1,64}$/;

/** An identity as a key part: `k:${identity}` when readable, otherwise `h:${base64url(sha256)}`. */
function keyPart(identity: string): string {
  if (READABLE.test(identity)) return `k:${identity}`;
  return `h:${createHash('sha256').update(identity, 'utf16le').digest('base64url')}`;
}

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
 *
 * With a `hashTag` (see `BucketLimit.hashTag`) the key is `${prefix}{${tag}}${key}`, the tag and
 * the identity each mapped as above (e.g. `gb:{k:org-42}k:alice`): the Cluster slot follows from
 * the prefix and the tag alone, so every bucket with the same tag lives in one slot, and since
 * neither part can hold `{` or `}` no user text moves it. A tagged key never equals an untagged
 * one: the same identity with another tag, or none, is another bucket.
 */
export function bucketKey(prefix: string, identity: string, hashTag?: string): string {
  if (hashTag === undefined) return prefix + keyPart(identity);
  return `${prefix}{${keyPart(hashTag)}}${keyPart(identity)}`;
}
