import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GITHUB_SCHEMA_JSON } from '../support/github-schema.js';
import { cli } from './run-cli.js';

// The command on GitHub's public schema, as a new user runs it: the introspection result of
// @octokit/graphql-schema (its SDL does not build in graphql-js) and the operations of
// test/fixtures/github.

const root = new URL('../../', import.meta.url).pathname;
const schema = relative(root, GITHUB_SCHEMA_JSON);
const issues = 'test/fixtures/github/repository-issues.graphql';
const example = 'test/fixtures/github/rate-limit-example.graphql';
const run = (...args: string[]) => cli(args, root);
const priceOf = (...args: string[]) =>
  (JSON.parse(run('price', '--json', '-s', schema, ...args).out) as { typeCost: number; cost: number }[])[0];

describe("GitHub's schema", () => {
  it('lints on a screen, and ends with the option that fixes the most', () => {
    const lint = run('lint', '-s', schema);
    const lines = lint.out.trimEnd().split('\n');
    expect(lines.length).toBeLessThanOrEqual(60);
    expect(lines.at(-1)).toMatch(/^Fixes the most \(294 of 362 warnings\): --infer-list-sizes relay /);
    expect(run('lint', '-s', schema, '--verbose').out.split('\n').length).toBeGreaterThan(362);
  });

  it("prices a repository's 50 issues with 10 labels each at the 550 objects it asks for, by first", () => {
    const inferred = priceOf('--infer-list-sizes', 'relay', issues);
    expect(inferred?.typeCost).toBeGreaterThanOrEqual(550);
    expect(inferred).toMatchObject({ typeCost: 603, cost: 756 });
    const hundred = priceOf(
      '--infer-list-sizes',
      'relay',
      '--variables',
      'test/fixtures/github/first-100.json',
      issues,
    );
    expect(hundred).toMatchObject({ typeCost: 1203, cost: 1506 });
    // Without the inference, every first costs the same.
    expect(priceOf(issues)).toMatchObject({ cost: 156 });
    expect(priceOf('--variables', 'test/fixtures/github/first-100.json', issues)).toMatchObject({ cost: 156 });
  });

  it("prices GitHub's documented example at 51 points under --model github", () => {
    expect(priceOf('--model', 'github', '--infer-list-sizes', 'relay', example)).toMatchObject({
      typeCost: 0,
      cost: 51,
    });
  });

  describe('annotate', () => {
    const dir = mkdtempSync(join(tmpdir(), 'graphql-budget-github-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('writes SDL that lints with no unsized list and prices as the inference does', () => {
      const annotated = run('annotate', '-s', schema, '--infer-list-sizes', 'relay');
      expect(annotated.code).toBe(0);
      const file = join(dir, 'annotated.graphql');
      writeFileSync(file, annotated.out);
      const lint = JSON.parse(run('lint', '--json', '-s', file).out) as { rule: string }[];
      expect(lint).toEqual([]);
      expect((JSON.parse(run('price', '--json', '-s', file, issues).out) as { cost: number }[])[0]).toMatchObject({
        cost: 756,
      });
    });
  });
});
