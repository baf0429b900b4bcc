import { isIP } from 'node:net';
import { checkKnownOptions } from '../known-options.js';

/** Options of `clientAddressKey`. */
export interface ClientAddressKeyOptions {
  /**
   * The bits of an IPv6 address that name its network: callers within one such prefix share one
   * key. One subscriber usually gets a whole /64 (RFC 6177) and picks any address in it, so keying
   * by the address itself would give them 2^64 budgets. An integer from 0 to 128; 128 keys each
   * address on its own.
   * @default 64
   */
  ipv6PrefixLength?: number;
  /**
   * The same for IPv4 (and IPv4-mapped IPv6 such as `::ffff:203.0.113.7`, which is read as the
   * IPv4 address it carries). An integer from 0 to 32.
   * @default 32
   */
  ipv4PrefixLength?: number;
  /**
   * The proxies in front of the server whose word about the client's address is taken, as Express'
   * `trust proxy` takes them: addresses (`'10.0.0.5'`, `'::1'`), networks (`'10.0.0.0/8'`,
   * `'fd00::/8'`), or `'loopback'` (127.0.0.0/8, ::1), `'linklocal'` (169.254.0.0/16, fe80::/10),
   * `'uniquelocal'` (10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, fc00::/7). When the socket's
   * peer is one of them, the entry it appended to `forwardedHeader` names the client; when that
   * too is a trusted proxy, the entry before it; and so on, from the right, up to 32 hops. Without
   * trusted proxies the headers are never read: any client can write them.
   * @default [] (the socket's peer address is the client)
   */
  trustedProxies?: readonly string[];
  /**
   * The header your proxies append the client's address to: `'x-forwarded-for'`, or `'forwarded'`
   * (RFC 7239, its `for=` parameters). Only the one your proxies write: the other reaches the
   * server as the client sent it, and reading it would let the client choose its key.
   * @default 'x-forwarded-for'
   */
  forwardedHeader?: 'x-forwarded-for' | 'forwarded';
}

/**
 * A request's headers, as either server gives them: Node's `req.headers` (lower-case names, a
 * repeated header joined or as an array) or a Fetch `Headers` (`request.headers` in GraphQL Yoga).
 */
export type RequestHeaders =
  | { get(name: string): string | null | undefined }
  | Readonly<Record<string, string | readonly string[] | undefined>>;

/**
 * The budget key of a request's client: its network (`'203.0.113.7'`, `'2001:db8:1:2::/64'`), or
 * `'unknown'` when no address can be read (every such request then shares one key). Never throws.
 */
export type ClientAddressKey = (address: string | undefined | null, headers?: RequestHeaders) => string;

const DEFAULTS = { ipv6PrefixLength: 64, ipv4PrefixLength: 32, forwardedHeader: 'x-forwarded-for' } as const;

const OPTION_NAMES: readonly (keyof ClientAddressKeyOptions)[] = [
  'ipv6PrefixLength',
  'ipv4PrefixLength',
  'trustedProxies',
  'forwardedHeader',
];

/** Most proxies walked through from the right: a longer chain stops at the 32nd trusted hop. */
const MAX_HOPS = 32;
/** Only the last 4 KB of a forwarding header are read (a hop is never longer than 100 characters). */
const MAX_HEADER_CHARS = 4096;
/** A hop longer than this is not an address (the longest, with brackets, a zone and a port, is far shorter). */
const MAX_HOP_CHARS = 100;

/** The networks Express' `trust proxy` names by keyword. */
const KEYWORDS: Readonly<Record<string, readonly string[]>> = {
  loopback: ['127.0.0.0/8', '::1/128'],
  linklocal: ['169.254.0.0/16', 'fe80::/10'],
  uniquelocal: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
};

/** A network: 16 bytes (IPv4 as IPv4-mapped IPv6) and how many leading bits count. */
interface Network {
  readonly bytes: Uint8Array;
  readonly bits: number;
}

/**
 * Builds the function that turns a request's client address into a budget key for anonymous
 * callers: IPv6 by its /64 (`ipv6PrefixLength`), IPv4-mapped IPv6 as the IPv4 address, and the
 * address a trusted proxy reports (`trustedProxies`, `forwardedHeader`) in place of the proxy's.
 *
 * ```ts
 * const clientAddress = clientAddressKey({ trustedProxies: ['loopback'] });
 * // Apollo Server: context: async ({ req }) => ({ caller: `ip:${clientAddress(req.socket.remoteAddress, req.headers)}` })
 * ```
 *
 * @throws {TypeError | RangeError} naming the option, for an unknown option or a bad value (a
 * trusted proxy that is not an address, a network or a keyword).
 */
export function clientAddressKey(options: ClientAddressKeyOptions = {}): ClientAddressKey {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError(
      `clientAddressKey: options must be an object, got ${options === null ? 'null' : typeof options}`,
    );
  }
  checkKnownOptions('clientAddressKey', options, OPTION_NAMES);
  const ipv6Bits = prefixOption('ipv6PrefixLength', options.ipv6PrefixLength ?? DEFAULTS.ipv6PrefixLength, 128);
  const ipv4Bits = prefixOption('ipv4PrefixLength', options.ipv4PrefixLength ?? DEFAULTS.ipv4PrefixLength, 32);
  const trusted = trustedNetworks(options.trustedProxies ?? []);
  const header = options.forwardedHeader ?? DEFAULTS.forwardedHeader;
  if (header !== 'x-forwarded-for' && header !== 'forwarded') {
    throw new TypeError(
      `clientAddressKey: \`forwardedHeader\` must be 'x-forwarded-for' or 'forwarded', got ${JSON.stringify(header)}`,
    );
  }
  const keyOf = (bytes: Uint8Array | undefined): string => {
    if (bytes === undefined) return 'unknown';
    return isMapped(bytes) ? ipv4Key(bytes, ipv4Bits) : ipv6Key(bytes, ipv6Bits);
  };
  if (trusted.length === 0) return (address) => keyOf(parseAddress(address));
  return (address, headers) => {
    let client = parseAddress(address);
    if (client === undefined || headers === undefined || headers === null) return keyOf(client);
    let hops: string[] | undefined;
    for (let hop = 0; hop < MAX_HOPS && isTrusted(client, trusted); hop++) {
      hops ??= forwardedHops(headerValue(headers, header), header);
      const reported = hops.pop();
      const next = reported === undefined ? undefined : parseHop(reported);
      // The chain ends, or a trusted proxy reported something that is no address: the nearest
      // address known for sure stands.
      if (next === undefined) break;
      client = next;
    }
    return keyOf(client);
  };
}

function prefixOption(name: string, value: unknown, max: number): number {
  const rule = `an integer from 0 to ${max}`;
  if (typeof value !== 'number')
    throw new TypeError(`clientAddressKey: \`${name}\` must be ${rule}, got ${typeof value}`);
  if (!Number.isInteger(value) || value < 0 || value > max) {
    throw new RangeError(`clientAddressKey: \`${name}\` must be ${rule}, got ${value}`);
  }
  return value;
}

function trustedNetworks(entries: unknown): Network[] {
  if (!Array.isArray(entries)) {
    throw new TypeError(
      "clientAddressKey: `trustedProxies` must be an array of addresses, networks ('10.0.0.0/8') or keywords ('loopback')",
    );
  }
  const networks: Network[] = [];
  entries.forEach((entry: unknown, index) => {
    const name = `\`trustedProxies[${index}]\``;
    if (typeof entry !== 'string')
      throw new TypeError(`clientAddressKey: ${name} must be a string, got ${typeof entry}`);
    const keyword = KEYWORDS[entry.trim().toLowerCase()];
    for (const text of keyword ?? [entry]) {
      const network = parseNetwork(text.trim());
      if (network === undefined) {
        throw new RangeError(
          `clientAddressKey: ${name} must be an address ('10.0.0.5', '::1'), a network ('10.0.0.0/8', 'fd00::/8') ` +
            `or one of 'loopback', 'linklocal', 'uniquelocal'; got ${JSON.stringify(entry)}`,
        );
      }
      networks.push(network);
    }
  });
  return networks;
}

function parseNetwork(text: string): Network | undefined {
  const slash = text.indexOf('/');
  const bytes = parseAddress(slash === -1 ? text : text.slice(0, slash));
  if (bytes === undefined) return undefined;
  const ipv4 = isMapped(bytes) && isIP(slash === -1 ? text : text.slice(0, slash)) === 4;
  if (slash === -1) return { bytes, bits: 128 };
  const digits = text.slice(slash + 1);
  const length = /^\d{1,3}$/.test(digits) ? Number(digits) : Number.NaN;
  if (!(length <= (ipv4 ? 32 : 128))) return undefined;
  return { bytes: masked(bytes, ipv4 ? 96 + length : length), bits: ipv4 ? 96 + length : length };
}

function isTrusted(address: Uint8Array, trusted: readonly Network[]): boolean {
  return trusted.some((network) => within(address, network));
}

function within(address: Uint8Array, network: Network): boolean {
  const whole = network.bits >> 3;
  for (let i = 0; i < whole; i++) if (address[i] !== network.bytes[i]) return false;
  const rest = network.bits & 7;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return ((address[whole] as number) & mask) === network.bytes[whole];
}

/** The header's value as one string, at most its last `MAX_HEADER_CHARS` characters. */
function headerValue(headers: RequestHeaders, name: string): string {
  try {
    const raw =
      typeof (headers as { get?: unknown }).get === 'function'
        ? (headers as { get(name: string): string | null | undefined }).get(name)
        : (headers as Readonly<Record<string, string | readonly string[] | undefined>>)[name];
    if (typeof raw === 'string') return raw.length > MAX_HEADER_CHARS ? raw.slice(-MAX_HEADER_CHARS) : raw;
    if (!Array.isArray(raw)) return '';
    // Repeated header lines: the last ones, up to the same length.
    const kept: string[] = [];
    let length = 0;
    for (let i = raw.length - 1; i >= 0 && length <= MAX_HEADER_CHARS; i--) {
      const line = raw[i];
      if (typeof line !== 'string') break;
      kept.unshift(line);
      length += line.length + 1;
    }
    const joined = kept.join(',');
    return joined.length > MAX_HEADER_CHARS ? joined.slice(-MAX_HEADER_CHARS) : joined;
  } catch {
    return ''; // a getter that throws: no forwarding header
  }
}

/** The hops a forwarding header lists, nearest last (`X-Forwarded-For` entries, or `Forwarded`'s `for=` values). */
function forwardedHops(value: string, header: 'x-forwarded-for' | 'forwarded'): string[] {
  const elements = value.split(',');
  if (header === 'x-forwarded-for') return elements;
  return elements.map((element) => {
    for (const pair of element.split(';')) {
      const equals = pair.indexOf('=');
      if (equals !== -1 && pair.slice(0, equals).trim().toLowerCase() === 'for') return pair.slice(equals + 1);
    }
    return ''; // no `for=` in this element: not an address
  });
}

/**
 * One hop as a proxy writes it: an address, with or without a port (`203.0.113.7:4711`,
 * `[2001:db8::1]:4711`), quoted in `Forwarded` (`"[2001:db8::1]"`). Anything else (`unknown`, an
 * obfuscated `_node`, garbage) is undefined.
 */
function parseHop(raw: string): Uint8Array | undefined {
  let text = raw.trim();
  if (text.length > MAX_HOP_CHARS) return undefined;
  if (text.startsWith('"')) {
    if (text.length < 2 || !text.endsWith('"')) return undefined;
    text = text.slice(1, -1).trim();
  }
  if (text.startsWith('[')) {
    const close = text.indexOf(']');
    if (close === -1) return undefined;
    const after = text.slice(close + 1);
    if (after !== '' && !/^:\d{1,5}$/.test(after)) return undefined;
    return parseAddress(text.slice(1, close));
  }
  const port = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/.exec(text);
  return parseAddress(port === null ? text : port[1]);
}

/**
 * An address as 16 bytes, IPv4 as IPv4-mapped IPv6 (`::ffff:a.b.c.d`), a zone (`%eth0`) left out;
 * undefined for anything that is not an IPv4 or IPv6 address.
 */
function parseAddress(address: string | undefined | null): Uint8Array | undefined {
  if (typeof address !== 'string' || address.length > MAX_HOP_CHARS) return undefined;
  const percent = address.indexOf('%');
  const text = percent === -1 ? address : address.slice(0, percent);
  const kind = isIP(text);
  if (kind === 4) return mapped(text);
  if (kind !== 6) return undefined;
  const bytes = new Uint8Array(16);
  let body = text;
  const dot = text.indexOf('.');
  if (dot !== -1) {
    // An IPv4 tail (`::ffff:1.2.3.4`) is the last two groups.
    const colon = text.lastIndexOf(':');
    const tail = mapped(text.slice(colon + 1));
    body = `${text.slice(0, colon + 1)}${hex(tail, 12)}:${hex(tail, 14)}`;
  }
  const [left = '', right] = body.split('::');
  const head = left === '' ? [] : left.split(':');
  const rear = right === undefined || right === '' ? [] : right.split(':');
  const groups = [...head, ...new Array<string>(8 - head.length - rear.length).fill('0'), ...rear];
  groups.forEach((group, index) => {
    const value = Number.parseInt(group, 16);
    bytes[2 * index] = value >> 8;
    bytes[2 * index + 1] = value & 0xff;
  });
  return bytes;
}

function mapped(ipv4: string): Uint8Array {
  const bytes = new Uint8Array(16);
  bytes[10] = 0xff;
  bytes[11] = 0xff;
  ipv4.split('.').forEach((part, index) => {
    bytes[12 + index] = Number(part);
  });
  return bytes;
}

function hex(bytes: Uint8Array, at: number): string {
  return (((bytes[at] as number) << 8) | (bytes[at + 1] as number)).toString(16);
}

/** Whether the 16 bytes are an IPv4-mapped IPv6 address (`::ffff:0:0/96`). */
function isMapped(bytes: Uint8Array): boolean {
  for (let i = 0; i < 10; i++) if (bytes[i] !== 0) return false;
  return bytes[10] === 0xff && bytes[11] === 0xff;
}

/** The bytes with every bit after the first `bits` cleared. */
function masked(bytes: Uint8Array, bits: number): Uint8Array {
  const out = new Uint8Array(16);
  for (let i = 0; i < 16; i++) {
    const keep = Math.max(0, Math.min(8, bits - 8 * i));
    out[i] = (bytes[i] as number) & ((0xff << (8 - keep)) & 0xff);
  }
  return out;
}

function ipv4Key(bytes: Uint8Array, bits: number): string {
  const network = masked(bytes, 96 + bits);
  const text = `${network[12]}.${network[13]}.${network[14]}.${network[15]}`;
  return bits === 32 ? text : `${text}/${bits}`;
}

/** The network in RFC 5952 form (lower case, the longest run of zero groups as `::`), with its length. */
function ipv6Key(bytes: Uint8Array, bits: number): string {
  const network = masked(bytes, bits);
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((network[i] as number) << 8) | (network[i + 1] as number));
  let bestStart = -1;
  let bestLength = 1;
  for (let start = 0; start < 8; ) {
    if (groups[start] !== 0) {
      start++;
      continue;
    }
    let end = start;
    while (end < 8 && groups[end] === 0) end++;
    if (end - start > bestLength) {
      bestStart = start;
      bestLength = end - start;
    }
    start = end;
  }
  const text = (from: number, to: number) =>
    groups
      .slice(from, to)
      .map((group) => group.toString(16))
      .join(':');
  const address = bestStart === -1 ? text(0, 8) : `${text(0, bestStart)}::${text(bestStart + bestLength, 8)}`;
  return bits === 128 ? address : `${address}/${bits}`;
}
