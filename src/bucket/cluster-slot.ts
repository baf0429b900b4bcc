/** Number of hash slots of a Redis Cluster. */
export const CLUSTER_SLOTS = 16384;

/** CRC16-CCITT (XMODEM: polynomial 0x1021, initial value 0), one entry per byte value. */
const CRC16_TABLE = (() => {
  const table = new Uint16Array(256);
  for (let byte = 0; byte < 256; byte++) {
    let crc = byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    table[byte] = crc;
  }
  return table;
})();

function step(crc: number, byte: number): number {
  return ((crc << 8) & 0xffff) ^ CRC16_TABLE[((crc >> 8) ^ byte) & 0xff]!;
}

/**
 * The Redis Cluster hash slot of `key` (0–16383), as Redis computes it: CRC16 of the key's UTF-8
 * bytes modulo 16384, or of the hash tag only when the key has one (the text between the first `{`
 * and the first `}` after it, if not empty). Redis Cluster specification, "Hash tags".
 *
 * Encodes to UTF-8 on the fly (a lone surrogate as U+FFFD, as Node's `Buffer.from` does), so it
 * allocates nothing.
 */
export function clusterSlot(key: string): number {
  let start = 0;
  let end = key.length;
  const open = key.indexOf('{');
  if (open !== -1) {
    const close = key.indexOf('}', open + 1);
    if (close > open + 1) {
      start = open + 1;
      end = close;
    }
  }
  let crc = 0;
  for (let i = start; i < end; i++) {
    let code = key.charCodeAt(i);
    if (code < 0x80) {
      crc = step(crc, code);
      continue;
    }
    if (code < 0x800) {
      crc = step(crc, 0xc0 | (code >> 6));
      crc = step(crc, 0x80 | (code & 0x3f));
      continue;
    }
    if (code >= 0xd800 && code <= 0xdfff) {
      const next = i + 1 < end ? key.charCodeAt(i + 1) : 0;
      if (code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        code = 0x10000 + ((code - 0xd800) << 10) + (next - 0xdc00);
        i++;
        crc = step(crc, 0xf0 | (code >> 18));
        crc = step(crc, 0x80 | ((code >> 12) & 0x3f));
        crc = step(crc, 0x80 | ((code >> 6) & 0x3f));
        crc = step(crc, 0x80 | (code & 0x3f));
        continue;
      }
      code = 0xfffd;
    }
    crc = step(crc, 0xe0 | (code >> 12));
    crc = step(crc, 0x80 | ((code >> 6) & 0x3f));
    crc = step(crc, 0x80 | (code & 0x3f));
  }
  return crc % CLUSTER_SLOTS;
}
