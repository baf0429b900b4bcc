/**
 * Replays the blocks docs/cost-model.md marks `<!-- file: NAME -->` (page-files.ts writes them out
 * as they stand, `'graphql-budget'` pointing at the sources) and checks the numbers the page gives:
 * GitHub's points for its documented example, the Relay prices by `first`, and the code-first
 * schemas of four builders priced by their slicing argument.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, type GraphQLSchema } from 'graphql';
import { afterAll, describe, expect, it } from 'vitest';
import { estimateCost } from '../../src/cost/analyzer.js';
import { fileBlocks } from './doc-blocks.js';
import { writePageFiles } from './page-files.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const files = writePageFiles('cost-model', fileBlocks(readFileSync(join(ROOT, 'docs/cost-model.md'), 'utf8')));
afterAll(() => files.remove());

describe('docs/cost-model.md', () => {
  it("prices GitHub's documented example at 51 points, 5,101 requests and 305,100 nodes (github-points.ts)", async () => {
    const page = (await import(files.url('github-points.ts'))) as { points: number; requests: number; nodes: number };
    expect(page).toMatchObject({ points: 51, requests: 5_101, nodes: 305_100 });
  });

  it('prices Relay connections by first with inferListSizes (relay-prices.ts)', async () => {
    const page = (await import(files.url('relay-prices.ts'))) as { inferred: number[]; unannotated: number[] };
    expect(page.inferred).toEqual([21, 756, 1506]);
    expect(page.unannotated).toEqual([156, 156, 156]);
  });

  it.each(['pothos-books.ts', 'nexus-books.ts', 'graphql-tools-books.ts', 'type-graphql-books.ts'])(
    'prices the code-first schema of %s by its slicing argument',
    async (file) => {
      const { schema } = (await import(files.url(file))) as { schema: GraphQLSchema };
      const price = (first: number) =>
        estimateCost({ schema, document: parse(`{ books(first: ${first}) { title } }`) });
      expect(price(5)).toEqual({ typeCost: 11, fieldCost: 1 });
      expect(price(20)).toEqual({ typeCost: 41, fieldCost: 1 });
    },
  );
});
