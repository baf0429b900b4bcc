import { afterAll, beforeAll, expect, it } from 'vitest';
import { freePort } from '../support/redis-server.js';
import { startExample, type RunningExample } from './example-process.js';

/** The example serves the plugin's metrics to Prometheus when METRICS_PORT is set. */

let app: RunningExample;
let metricsPort: number;
beforeAll(async () => {
  metricsPort = await freePort();
  app = await startExample({ METRICS_PORT: String(metricsPort) });
});
afterAll(() => app.stop());

it('serves cost and store metrics at /metrics in the Prometheus text format', async () => {
  expect(app.lines).toContain(`Metrics for Prometheus at http://127.0.0.1:${metricsPort}/metrics`);
  const response = await fetch(app.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer pro-key-dave' },
    body: JSON.stringify({ query: '{ books(first: 3) { edges { node { title author { name } } } } }' }),
  });
  expect(response.status).toBe(200);
  const scrape = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  // OpenTelemetry names in Prometheus: dots become underscores; histograms get _count, _sum, _bucket.
  expect(scrape).toMatch(/^cost_estimated_count\{cost_result="COST_OK",budget_mode="enforce"[^}]*\} 1$/m);
  expect(scrape).toMatch(/^cost_estimated_sum\{cost_result="COST_OK",budget_mode="enforce"[^}]*\} 19$/m);
  expect(scrape).toMatch(/^cost_actual_sum\{[^}]*\} 19$/m);
  expect(scrape).toMatch(/^budget_store_duration_count\{outcome="ok"[^}]*\} \d+$/m);
  // Store time in buckets fit for seconds (sub-millisecond to one second), not the cost buckets.
  expect(scrape).toMatch(/^budget_store_duration_bucket\{outcome="ok"[^}]*le="0\.001"\} \d+$/m);
});
