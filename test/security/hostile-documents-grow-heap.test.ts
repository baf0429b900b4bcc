/**
 * Attack: fill the limiter's memory with documents.
 *
 *   1,000 distinct 100 KB documents, each with a variable of the wrong type
 *
 * Each is refused (400 BAD_USER_INPUT), but a cache bounded by entry count keeps up to its limit of
 * entries however large they are, and a cached cost-analysis error that points at its AST nodes
 * keeps the whole document (source text and tokens) alive. With the documents of heap-probe.ts the
 * first release grew the heap by 412 MB where the same server without the plugin grew by 68 MB
 * (Apollo's own document cache).
 *
 * The same for documents that run: the actual-cost walkers were kept per document and per raw
 * variables (junk ones included), 16 per document outside any byte bound, so 60 documents sent
 * with 16 values of a variable they do not declare grew the heap by 301 MB, against 101 MB for the
 * bare server (2.97×).
 *
 * Guarantee: the estimate cache is bounded in bytes (Apollo's InMemoryLRUCache with a size
 * calculation) and keeps errors as message, code and locations only; one walker is kept per
 * document (for its last variables, junk ones ignored), going with the document; under either
 * traffic the heap grows at most 1.2× what the same server grows without the plugin.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const PROBE = fileURLToPath(new URL('./heap-probe.ts', import.meta.url));
const run = promisify(execFile);

async function growth(
  mode: 'plugin' | 'bare',
  traffic: 'refused' | 'executed' = 'refused',
): Promise<{ growth: number; statuses: number[] }> {
  const { stdout } = await run(process.execPath, ['--expose-gc', '--import', 'tsx', PROBE, mode, traffic], {
    maxBuffer: 1024 * 1024,
    timeout: 120_000,
  });
  return JSON.parse(stdout.trim().split('\n').pop() as string) as { growth: number; statuses: number[] };
}

it('grows the heap at most 1.2× what the server grows without the plugin', { timeout: 240_000 }, async () => {
  const bare = await growth('bare');
  const plugin = await growth('plugin');
  expect(bare.statuses).toEqual([400]);
  expect(plugin.statuses).toEqual([400]);
  const ratio = plugin.growth / Math.max(bare.growth, 1);
  console.info(
    `heap growth after 1,000 hostile documents: bare ${(bare.growth / 1e6).toFixed(1)} MB, ` +
      `plugin ${(plugin.growth / 1e6).toFixed(1)} MB (${ratio.toFixed(2)}×)`,
  );
  expect(plugin.growth).toBeLessThanOrEqual(1.2 * Math.max(bare.growth, 1));
});

it('grows the heap at most 1.2× as much for documents that run, with a junk variable varying', {
  timeout: 240_000,
}, async () => {
  const bare = await growth('bare', 'executed');
  const plugin = await growth('plugin', 'executed');
  expect(bare.statuses).toEqual([200]);
  expect(plugin.statuses).toEqual([200]);
  const ratio = plugin.growth / Math.max(bare.growth, 1);
  console.info(
    `heap growth after 60 documents × 16 values of an undeclared variable: bare ${(bare.growth / 1e6).toFixed(1)} MB, ` +
      `plugin ${(plugin.growth / 1e6).toFixed(1)} MB (${ratio.toFixed(2)}×)`,
  );
  expect(plugin.growth).toBeLessThanOrEqual(1.2 * Math.max(bare.growth, 1));
});
