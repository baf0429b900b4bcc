/**
 * The attack: an anonymous caller sends each request from another address of the IPv6 /64 its
 * provider gave it (2^64 addresses to choose from), or reaches the API once as `203.0.113.9` and
 * once as `::ffff:203.0.113.9` (what a dual-stack server sees of an IPv4 client).
 * What it would gain: a fresh anonymous budget per address, where the bookstore gives one network
 * 30 tokens and a query of 19 fits once.
 * The guarantee that stops it: the example keys anonymous callers with `clientAddressKey`, which
 * keys an IPv6 address by its /64 and an IPv4-mapped address as the IPv4 address. The addresses
 * reach the server as a trusted proxy reports them (the test client, on loopback, is that proxy:
 * `trustedProxies: ['loopback']`), and as real sockets do: an IPv4 client of a dual-stack
 * listener and of an IPv4 one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import { createBookstoreServer, type BookstoreServer } from '../../examples/bookstore/server.js';
import { serverKind } from '../plugin/budget-server.js';

const QUERY = '{ books(first: 3) { edges { node { title author { name } } } } }'; // 19 of 30 tokens

/** Posts the query to `base` as an anonymous caller; `forwardedFor` as a proxy would write it. */
async function ask(base: string, forwardedFor?: string): Promise<number> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (forwardedFor !== undefined) headers['x-forwarded-for'] = forwardedFor;
  const response = await fetch(base, { method: 'POST', headers, body: JSON.stringify({ query: QUERY }) });
  await response.arrayBuffer();
  return response.status;
}

function portOf(server: BookstoreServer): number {
  return Number(new URL(server.url).port);
}

describe('anonymous callers rotating addresses', () => {
  let proxied: BookstoreServer;
  let base: string;

  beforeAll(async () => {
    proxied = await createBookstoreServer({
      store: new MemoryBucketStore(),
      port: 0,
      host: '127.0.0.1',
      server: serverKind(),
      trustedProxies: ['loopback'],
    });
    base = `http://127.0.0.1:${portOf(proxied)}/`;
  });
  afterAll(() => proxied.stop());

  it('share one budget across the addresses of one IPv6 /64', async () => {
    expect(await ask(base, '2001:db8:1:2::1')).toBe(200);
    expect(await ask(base, '2001:db8:1:2::abcd')).toBe(429);
    expect(await ask(base, '2001:db8:1:2:ffff:ffff:ffff:fffe')).toBe(429);
    expect(await ask(base, '[2001:DB8:1:2:0:0:0:7]:4711')).toBe(429); // another spelling, with a port
    // Another /64 is another subscriber.
    expect(await ask(base, '2001:db8:1:3::1')).toBe(200);
  });

  it('share the IPv4 budget when writing the address as IPv4-mapped IPv6', async () => {
    expect(await ask(base, '203.0.113.9')).toBe(200);
    expect(await ask(base, '::ffff:203.0.113.9')).toBe(429);
    expect(await ask(base, '::ffff:cb00:7109')).toBe(429); // the same, in hex
    expect(await ask(base, '203.0.113.10')).toBe(200); // an IPv4 address is its own network
  });

  it('share one budget between a dual-stack listener and an IPv4 one, as real sockets report them', async () => {
    const store = new MemoryBucketStore();
    const dual = await createBookstoreServer({ store, port: 0, host: '::', server: serverKind() });
    const ipv4 = await createBookstoreServer({ store, port: 0, host: '127.0.0.1', server: serverKind() });
    try {
      // The dual-stack server sees ::ffff:127.0.0.1, the other 127.0.0.1: one caller.
      expect(await ask(`http://127.0.0.1:${portOf(dual)}/`)).toBe(200);
      expect(await ask(`http://127.0.0.1:${portOf(ipv4)}/`)).toBe(429);
    } finally {
      await dual.stop();
      await ipv4.stop();
    }
  });
});
