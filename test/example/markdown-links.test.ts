import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { headingAnchors, headingSlug, relativeLinks } from './markdown-links.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The documents a reader follows links through: the README, every page of docs/, the example's README. */
const DOCUMENTS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
  'examples/bookstore/README.md',
];

/** Every link of `file` that leads nowhere: a missing file or directory, or a heading the target lacks. */
function brokenLinks(file: string): string[] {
  const markdown = readFileSync(join(ROOT, file), 'utf8');
  return relativeLinks(markdown).flatMap((link) => {
    const where = `${file}:${link.line} (${link.target})`;
    const target = link.path === '' ? join(ROOT, file) : join(ROOT, dirname(file), link.path);
    if (relative(ROOT, target).startsWith('..')) return [`${where}: points outside the repository`];
    if (!existsSync(target)) return [`${where}: ${relative(ROOT, target)} does not exist`];
    if (link.fragment === undefined) return [];
    if (!target.endsWith('.md')) return [`${where}: a #fragment into a file that is not Markdown`];
    const anchors = headingAnchors(readFileSync(target, 'utf8'));
    return anchors.has(link.fragment) ? [] : [`${where}: ${relative(ROOT, target)} has no heading #${link.fragment}`];
  });
}

describe('reading links and headings out of Markdown', () => {
  it('finds relative links and images, with their line, outside code', () => {
    const markdown = [
      'See [the model](docs/cost-model.md#list-sizes) and',
      '[`src/cost/`](../src/cost), ![a chart](bench/results/latest.svg "chart"),',
      '[the web](https://example.com/) and [a heading](#quick-start).',
      '`[not](a-link.md)`',
      '```md',
      '[not](a-link-either.md)',
      '```',
    ].join('\n');
    expect(relativeLinks(markdown).map(({ path, fragment, line }) => ({ path, fragment, line }))).toEqual([
      { path: 'docs/cost-model.md', fragment: 'list-sizes', line: 1 },
      { path: '../src/cost', fragment: undefined, line: 2 },
      { path: 'bench/results/latest.svg', fragment: undefined, line: 2 },
      { path: '', fragment: 'quick-start', line: 3 },
    ]);
  });

  it('gives headings the anchors GitHub gives them', () => {
    expect(headingSlug('Choosing `identify`')).toBe('choosing-identify');
    expect(headingSlug("Worked example 1: the IBM spec's users")).toBe('worked-example-1-the-ibm-specs-users');
    expect(headingSlug('Redis memory and TTLs')).toBe('redis-memory-and-ttls');
    expect(headingSlug('graphql-query-complexity estimators')).toBe('graphql-query-complexity-estimators');
    expect(headingSlug('`_entities`')).toBe('_entities');
    expect([...headingAnchors('# A\n## Setup\n```sh\n# not a heading\n```\n### Setup\n')]).toEqual([
      'a',
      'setup',
      'setup-1',
    ]);
  });
});

describe('links in the README and docs/', () => {
  it('reads the README, a page of docs/ and the example README', () => {
    expect(DOCUMENTS).toContain('docs/security.md');
    expect(DOCUMENTS.length).toBeGreaterThanOrEqual(3);
  });

  it.each(DOCUMENTS)('every relative link of %s leads to a file, directory or heading that exists', (file) => {
    expect(brokenLinks(file)).toEqual([]);
  });
});
