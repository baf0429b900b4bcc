import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';

/** The doc comment right above `export function <name>` in a source file. */
function docOf(file: string, name: string): string {
  const text = readFileSync(new URL(`../../src/${file}`, import.meta.url), 'utf8');
  const at = text.indexOf(`export function ${name}`);
  const start = text.lastIndexOf('/**', at);
  const end = text.indexOf('*/', start);
  expect(start).toBeGreaterThan(-1);
  // Nothing but white space between the comment and the declaration: it is the function's hover doc.
  expect(text.slice(end + 2, at).trim()).toBe('');
  return text.slice(start, end);
}

it.each([
  ['apollo/query-budget-plugin.ts', 'queryBudgetPlugin'],
  ['envelop/use-query-budget.ts', 'useQueryBudget'],
])('%s: the hover doc of %s shows a usage example and names no internal file', (file, name) => {
  const doc = docOf(file, name);
  expect(doc).toMatch(/```ts\n[\s\S]*\b(queryBudgetPlugin|useQueryBudget)(<[^>]*>)?\(\{[\s\S]*identify:[\s\S]*```/);
  expect(doc).not.toMatch(/src\/|\.ts\b/);
});
