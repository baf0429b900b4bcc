import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { budgetOptionNames } from '../../src/core/options.js';

it('docs/options.md has a row for every option, and none for an option that does not exist', () => {
  const page = readFileSync(new URL('../../docs/options.md', import.meta.url), 'utf8');
  const rows = [...page.matchAll(/^\| `([\w.]+)` \|/gm)].map((match) => match[1]);
  expect([...rows].sort()).toEqual([...budgetOptionNames].sort());
});
