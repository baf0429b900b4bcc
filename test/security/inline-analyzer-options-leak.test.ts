/**
 * Attack (on the server, by its own code path): charge every subscription event with options
 * written inline.
 *
 *   chargeOperation({ schema, document, key, policy, store, analyzer: { defaultListSize: 10 } })
 *
 * `chargeOperation` kept one cost analyzer per options object, so a caller who writes `analyzer`
 * inline, as one naturally does, kept about 340 B per call forever: 0.34 GB per million events,
 * with the event rate set by whoever subscribes.
 *
 * Guarantee: memory stays bounded whatever options objects are passed: analyzers are shared by
 * options of the same values, and at most a few are kept per schema.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const PROBE = fileURLToPath(new URL('./analyzer-options-probe.ts', import.meta.url));
const run = promisify(execFile);

it('keeps the heap flat over 20,000 charges with inline analyzer options', { timeout: 120_000 }, async () => {
  const { stdout } = await run(process.execPath, ['--expose-gc', '--import', 'tsx', PROBE, '20000'], {
    timeout: 100_000,
  });
  const { growth } = JSON.parse(stdout.trim().split('\n').pop() as string) as { growth: number };
  console.info(`heap growth after 20,000 charges with inline analyzer options: ${(growth / 1e6).toFixed(2)} MB`);
  expect(growth).toBeLessThan(1_000_000);
});
