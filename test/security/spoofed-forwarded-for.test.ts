/**
 * The attack: an anonymous caller writes `X-Forwarded-For` (or `Forwarded`) itself, a new address
 * each time, to be keyed as someone else; or sends a forwarding header built to be expensive to
 * read (10,000 entries, 1 MB, garbage, a getter that throws).
 * What it would gain: a fresh anonymous budget per request, or CPU and a crash for nothing.
 * The guarantee that stops it: `clientAddressKey` reads a forwarding header only when the socket's
 * peer is a proxy named in `trustedProxies`, and then only the hops trusted proxies wrote, from
 * the right; it reads at most the header's last 4 KB and 32 hops, and answers every input with a
 * key, never an exception. The example server is run without a trusted proxy and with the test
 * client (on loopback) trusted as the proxy that appends the real client's address.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import { clientAddressKey, type ClientAddressKeyOptions } from '../../src/core/client-address.js';
import { createBookstoreServer, type BookstoreServer } from '../../examples/bookstore/server.js';
import { serverKind } from '../plugin/budget-server.js';

const QUERY = '{ books(first: 3) { edges { node { title author { name } } } } }'; // 19 of 30 tokens

async function ask(base: string, headers: Record<string, string>): Promise<number> {
  const response = await fetch(base, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query: QUERY }),
  });
  await response.arrayBuffer();
  return response.status;
}

async function start(trustedProxies: string[]): Promise<{ server: BookstoreServer; base: string }> {
  const server = await createBookstoreServer({
    store: new MemoryBucketStore(),
    port: 0,
    host: '127.0.0.1',
    server: serverKind(),
    trustedProxies,
  });
  return { server, base: `http://127.0.0.1:${new URL(server.url).port}/` };
}

describe('a spoofed forwarding header', () => {
  let direct: { server: BookstoreServer; base: string };
  let proxied: { server: BookstoreServer; base: string };
  beforeAll(async () => {
    direct = await start([]);
    proxied = await start(['loopback']);
  });
  afterAll(async () => {
    await direct.server.stop();
    await proxied.server.stop();
  });

  it('changes nothing when no proxy is trusted: the socket is the caller', async () => {
    expect(await ask(direct.base, { 'x-forwarded-for': '198.51.100.1' })).toBe(200);
    expect(await ask(direct.base, { 'x-forwarded-for': '198.51.100.2' })).toBe(429);
    expect(await ask(direct.base, { forwarded: 'for=198.51.100.3' })).toBe(429);
    expect(await ask(direct.base, { 'x-forwarded-for': '2001:db8::1' })).toBe(429);
  });

  it('behind a trusted proxy, only the address the proxy appended counts, not what the client wrote before it', async () => {
    // The proxy (this client, on loopback) appends the address it saw: 203.0.113.5.
    expect(await ask(proxied.base, { 'x-forwarded-for': '6.6.6.6, 203.0.113.5' })).toBe(200);
    expect(await ask(proxied.base, { 'x-forwarded-for': '7.7.7.7, 203.0.113.5' })).toBe(429);
    expect(await ask(proxied.base, { 'x-forwarded-for': 'garbage, 203.0.113.5' })).toBe(429);
    expect(await ask(proxied.base, { 'x-forwarded-for': '203.0.113.5', forwarded: 'for=8.8.8.8' })).toBe(429);
    // A client that claims to be a trusted proxy itself is read one hop further, and no further
    // than what it wrote: its own address stands when its claim is garbage.
    expect(await ask(proxied.base, { 'x-forwarded-for': 'garbage, 127.0.0.1, 203.0.113.5' })).toBe(429);
  });

  it('a hostile header near the server limit is answered, and keys the caller by the proxy-appended hop', async () => {
    const hostile = `${'999.1.1.1,"[::1]:x",_hidden,unknown,'.repeat(350)}203.0.113.77`;
    expect(hostile.length).toBeGreaterThan(12_000);
    expect(await ask(proxied.base, { 'x-forwarded-for': hostile })).toBe(200);
    expect(await ask(proxied.base, { 'x-forwarded-for': '203.0.113.77' })).toBe(429);
  });
});

describe('clientAddressKey on hostile input', () => {
  const behindLoopback = clientAddressKey({ trustedProxies: ['loopback'] });

  it('answers every input with a key, never an exception', () => {
    const throwing = {
      get(): string {
        throw new Error('a getter that throws');
      },
    };
    const inputs: [string | undefined, Parameters<typeof behindLoopback>[1]][] = [
      [undefined, undefined],
      ['', {}],
      ['not an address', { 'x-forwarded-for': '1.2.3.4' }],
      ['127.0.0.1', throwing],
      ['127.0.0.1', { 'x-forwarded-for': ['1.1.1.1', '2.2.2.2'] }],
      ['127.0.0.1', { 'x-forwarded-for': '\u0000\uffff,,,  ,[[[]]]' }],
      ['127.0.0.1', { 'x-forwarded-for': `${'a'.repeat(1_000_000)}` }],
      ['127.0.0.1', new Headers({ 'x-forwarded-for': ' 2001:db8::9 ' })],
      ['::1%lo', { 'x-forwarded-for': '"[2001:db8::1]:80"' }],
      [`${'1'.repeat(10_000)}`, undefined],
    ];
    expect(inputs.map(([address, headers]) => behindLoopback(address, headers))).toEqual([
      'unknown',
      'unknown',
      'unknown',
      '127.0.0.1',
      '2.2.2.2',
      '127.0.0.1',
      '127.0.0.1',
      '2001:db8::/64',
      '2001:db8::/64', // a zone on the socket's address is left out; a quoted, bracketed hop is read
      'unknown',
    ]);
  });

  it('reads at most the last 4 KB and 32 hops of a 10,000-entry, 1 MB header', () => {
    const trustedChain = Array.from({ length: 10_000 }, (_, i) => `127.0.${i % 256}.1`);
    // Every hop is a trusted proxy: the walk stops at the 32nd from the right.
    expect(behindLoopback('127.0.0.1', { 'x-forwarded-for': trustedChain.join(', ') })).toBe(trustedChain.at(-32));
    const huge = `${'x'.repeat(1_000_000)}, 198.51.100.8`;
    const started = performance.now();
    for (let i = 0; i < 1000; i++)
      expect(behindLoopback('127.0.0.1', { 'x-forwarded-for': huge })).toBe('198.51.100.8');
    // 1,000 reads of 1 MB would take seconds if the header were read whole: a bound on the work done,
    // with a wide margin (it takes milliseconds).
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('reads Forwarded only when told to, and then its for= parameters', () => {
    const forwarded = clientAddressKey({ trustedProxies: ['10.0.0.0/8'], forwardedHeader: 'forwarded' });
    const headers = {
      forwarded: 'for=192.0.2.60;proto=http;by=203.0.113.43, for="[2001:db8:cafe::17]:4711", for=10.1.2.3',
      'x-forwarded-for': '198.51.100.99',
    };
    expect(forwarded('10.9.9.9', headers)).toBe('2001:db8:cafe::/64');
    expect(forwarded('10.9.9.9', { forwarded: 'for=unknown' })).toBe('10.9.9.9');
    expect(forwarded('10.9.9.9', { forwarded: 'for=_hidden, for=192.0.2.1' })).toBe('192.0.2.1');
    expect(clientAddressKey({ trustedProxies: ['10.0.0.0/8'] })('10.9.9.9', headers)).toBe('198.51.100.99');
  });

  it('keys networks by the prefix lengths asked for', () => {
    expect(clientAddressKey({ ipv6PrefixLength: 48 })('2001:db8:1:2::1')).toBe('2001:db8:1::/48');
    expect(clientAddressKey({ ipv6PrefixLength: 128 })('2001:DB8:0:0:1:0:0:1')).toBe('2001:db8::1:0:0:1');
    expect(clientAddressKey({ ipv4PrefixLength: 24 })('::ffff:198.51.100.7')).toBe('198.51.100.0/24');
    expect(clientAddressKey({ ipv6PrefixLength: 0 })('fe80::1%eth0')).toBe('::/0');
  });

  it('refuses bad options at construction, naming them', () => {
    const bad: [unknown, string][] = [
      [
        { trustedProxy: ['loopback'] },
        'clientAddressKey: unknown option `trustedProxy`. Did you mean `trustedProxies`?',
      ],
      [{ ipv6PrefixLength: 129 }, 'clientAddressKey: `ipv6PrefixLength` must be an integer from 0 to 128, got 129'],
      [{ ipv4PrefixLength: '24' }, 'clientAddressKey: `ipv4PrefixLength` must be an integer from 0 to 32, got string'],
      [
        { trustedProxies: ['10.0.0.0/33'] },
        "clientAddressKey: `trustedProxies[0]` must be an address ('10.0.0.5', '::1'), a network ('10.0.0.0/8', 'fd00::/8') or one of 'loopback', 'linklocal', 'uniquelocal'; got \"10.0.0.0/33\"",
      ],
      [{ trustedProxies: 'loopback' }, expect.stringMatching(/^clientAddressKey: `trustedProxies` must be an array/)],
      [
        { forwardedHeader: 'x-real-ip' },
        "clientAddressKey: `forwardedHeader` must be 'x-forwarded-for' or 'forwarded', got \"x-real-ip\"",
      ],
    ];
    for (const [options, message] of bad) {
      expect(() => clientAddressKey(options as ClientAddressKeyOptions)).toThrow(
        expect.objectContaining({ message }) as Error,
      );
    }
    expect(() => clientAddressKey({ trustedProxies: ['lo0pback'] })).toThrow(RangeError);
    expect(() => clientAddressKey({ ipv6PrefixLength: 1.5 })).toThrow(RangeError);
  });
});
