/**
 * Run under `node --expose-gc --import tsx`: calls `chargeOperation` `COUNT` times with its
 * `analyzer` options written inline (a new object each call, as a caller naturally writes them) and
 * prints the heap growth after GC in bytes as JSON on stdout.
 */
import { buildSchema, parse } from 'graphql';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import { costDirectivesTypeDefs } from '../../src/cost/directives.js';
import { chargeOperation } from '../../src/core/charge-operation.js';

const COUNT = Number(process.argv[2] ?? 20_000);
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with --expose-gc');

function settledHeap(): number {
  for (let i = 0; i < 4; i++) gc?.();
  return process.memoryUsage().heapUsed;
}

const schema = buildSchema(`${costDirectivesTypeDefs}
  type Item { id: ID! }
  type Query { items(first: Int = 5): [Item!]! @listSize(slicingArguments: ["first"]) }`);
const document = parse('{ items(first: 2) { id } }');
const store = new MemoryBucketStore();
const policy = { capacity: 1e9, refillPerSecond: 0 };
const charge = () =>
  chargeOperation({
    schema,
    document,
    key: 'events',
    policy,
    store,
    analyzer: { defaultListSize: 10, maxNodes: 1000 },
  });

for (let i = 0; i < 100; i++) await charge();
const before = settledHeap();
for (let i = 0; i < COUNT; i++) await charge();
const after = settledHeap();
process.stdout.write(`${JSON.stringify({ growth: after - before })}\n`);
