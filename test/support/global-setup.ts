import type { TestProject } from 'vitest/node';
import { startRedisServer } from './redis-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Port of the single-node redis-server this test run started (never 6379). */
    redisPort: number;
  }
}

/** Starts one throw-away redis-server for the whole run; suites that kill or pause start their own. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startRedisServer();
  project.provide('redisPort', server.port);
  return () => server.stop();
}
