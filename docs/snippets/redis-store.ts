// What the later fragments of docs/buckets.md assume: the imports of the page's first block.
export { Redis } from 'ioredis';
export { MemoryBucketStore, RedisBucketStore } from 'graphql-budget';
