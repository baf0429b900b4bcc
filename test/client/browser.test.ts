/**
 * The client helpers in a real browser: Debian's Chromium, headless, driven by playwright-core,
 * loads a page from one local origin (test/client/browser/page.ts, bundled with rolldown now) that
 * calls example bookstores on another origin (another port), one per client so that each is an
 * anonymous caller with a bucket of its own. Checked: the browser lets the page and the helpers read
 * RateLimit, RateLimit-Policy and Retry-After across origins (the server exposes them), a paced
 * burst of ten gets no 429, and a 429 becomes a success after Retry-After (no sooner, and promptly). The page's
 * last state is kept as .artifacts/client-browser.png.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext } from 'playwright-core';
import { build } from 'rolldown';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBookstoreServer, type BookstoreServer } from '../../examples/bookstore/server.js';
import { MemoryBucketStore } from '../../src/index.js';
import { waitProblem } from '../support/recording-fetch.js';
import type { ClientResult } from './browser/page.js';
import { CLIENT_NAMES } from '../support/budget-clients.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const ARTIFACT = join(ROOT, '.artifacts/client-browser.png');

let dir: string;
let bookstores: BookstoreServer[] = [];
let pages: Server | undefined;
let browser: BrowserContext | undefined;
let results: ClientResult[];

/** Serves the page and its bundle from `dir`. */
async function servePage(): Promise<string> {
  const html = `<!doctype html><meta charset="utf-8"><title>graphql-budget/client</title>
<style>body{font:14px system-ui,sans-serif;margin:24px}td,th{border:1px solid #ccc;padding:6px 10px;text-align:left}
table{border-collapse:collapse}.ok{background:#e6f4ea}.bad{background:#fce8e6}</style>
<body>Running…<script type="module" src="/page.js"></script></body>`;
  pages = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://page').pathname;
    if (path === '/page.js') {
      response.writeHead(200, { 'content-type': 'text/javascript' }).end(readFileSync(join(dir, 'page.js')));
    } else {
      response.writeHead(path === '/' ? 200 : 404, { 'content-type': 'text/html' }).end(html);
    }
  });
  await new Promise<void>((resolve) => pages?.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(pages.address() as AddressInfo).port}/`;
}

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium), or set CHROMIUM.`,
    );
  }
  dir = mkdtempSync(join(tmpdir(), 'graphql-budget-browser-'));
  await build({
    input: join(ROOT, 'test/client/browser/page.ts'),
    platform: 'browser',
    transform: { define: { 'process.env.NODE_ENV': '"production"' } },
    output: { dir, format: 'esm', entryFileNames: 'page.js', codeSplitting: false },
    logLevel: 'warn',
  });
  bookstores = await Promise.all(
    CLIENT_NAMES.map(() => createBookstoreServer({ store: new MemoryBucketStore(), port: 0, host: '127.0.0.1' })),
  );
  const apis = Object.fromEntries(CLIENT_NAMES.map((name, i) => [name, bookstores[i]?.url]));
  const origin = await servePage();
  browser = await chromium.launchPersistentContext(join(dir, 'profile'), {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  const page = browser.pages()[0] ?? (await browser.newPage());
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  await page.goto(`${origin}?apis=${encodeURIComponent(JSON.stringify(apis))}`);
  await page
    .waitForFunction(() => 'budgetResults' in globalThis, undefined, { timeout: 45_000 })
    .catch(() => {
      throw new Error(`the page did not finish: ${errors.join('; ') || 'no page error'}`);
    });
  results = (await page.evaluate(() => (globalThis as { budgetResults?: unknown }).budgetResults)) as ClientResult[];
  mkdirSync(join(ROOT, '.artifacts'), { recursive: true });
  await page.screenshot({ path: ARTIFACT, fullPage: true });
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await Promise.all(bookstores.map((bookstore) => bookstore.stop()));
  await new Promise((resolve) => (pages ? pages.close(resolve) : resolve(undefined)));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.each(CLIENT_NAMES)('%s in headless Chromium, on a page of another origin', (name) => {
  const result = (): ClientResult => {
    const found = results.find((entry) => entry.name === name);
    expect(found?.error).toBeUndefined();
    return found as ClientResult;
  };

  it('reads RateLimit, RateLimit-Policy and Retry-After across origins', () => {
    const { headers, helperRateLimit } = result();
    expect(headers.rateLimit).toMatch(/^budget;r=\d+;t=\d+$/);
    expect(headers.policies).toBe(1);
    expect(headers.retryAfter).toBeGreaterThanOrEqual(1);
    // What the helper itself read from the headers of its own responses.
    expect(helperRateLimit).toBe('budget');
  });

  it('with a pacer, sends a burst of ten operations without one 429', () => {
    const { pacing } = result();
    expect(pacing.ok).toBe(10);
    expect(pacing.statuses, `tokens left after each answer: ${pacing.trace.join(', ')}`).toEqual(Array(10).fill(200));
    expect(pacing.waits).toBeGreaterThan(0);
    // 30 tokens for 27 left: the burst waited for the refill it lacked.
    expect(pacing.waitedMs).toBeGreaterThan(2000);
  });

  it('turns a 429 into a success after Retry-After (no sooner, and promptly)', () => {
    const { retry } = result();
    expect(retry.ok).toBe(true);
    expect(retry.statuses).toEqual([429, 200]);
    expect(retry.retryAfterMs).toBeGreaterThanOrEqual(1000);
    expect(waitProblem(retry.gapMs, retry.retryAfterMs)).toBeUndefined();
  });
});
