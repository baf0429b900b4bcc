import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The shape of src/: no import cycles, and nothing imports upward. From the bottom: the stores
 * (bucket/) and the cost engine (cost/) know nothing of requests; the request path (core/) knows
 * no server; each adapter (apollo/, envelop/, graphql-ws/) knows the core and no other adapter;
 * index.ts only re-exports. No file imports a server's package: the adapters describe the servers'
 * types structurally, so the declarations need none of them installed. The client entry (client/,
 * `graphql-budget/client`) stands apart: it imports nothing outside its folder, not even a package,
 * and nothing outside it imports it.
 */

const src = join(dirname(new URL(import.meta.url).pathname), '../../src');

/** Where each folder sits: a file may import its own folder and the layers below. */
const layers: Record<string, { level: number; mayImport: readonly string[] }> = {
  '.': { level: 0, mayImport: [] }, // version.ts
  bucket: { level: 1, mayImport: ['.'] },
  cost: { level: 1, mayImport: ['.'] },
  core: { level: 2, mayImport: ['.', 'bucket', 'cost'] },
  apollo: { level: 3, mayImport: ['core', 'cost', 'bucket'] },
  envelop: { level: 3, mayImport: ['core', 'cost', 'bucket'] },
  'graphql-ws': { level: 3, mayImport: ['core', 'cost', 'bucket'] },
  cli: { level: 4, mayImport: ['.', 'core', 'cost', 'bucket'] },
  client: { level: 1, mayImport: [] },
};

const serverPackages = /^(@apollo\/server|@apollo\/gateway|@envelop\/|graphql-yoga|graphql-ws)/;

interface Source {
  readonly file: string;
  readonly text: string;
  /** Relative imports, as files under src/. */
  readonly imports: string[];
  /** Package imports. */
  readonly packages: string[];
}

function sources(): Source[] {
  const files = readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts'));
  return files.map((file) => {
    const text = readFileSync(join(src, file), 'utf8');
    const imports: string[] = [];
    const packages: string[] = [];
    for (const match of text.matchAll(
      /(?:^|\n)\s*(?:import|export)\b[^'"]*?\bfrom\s*'([^']+)'|import\(\s*'([^']+)'\s*\)/g,
    )) {
      const specifier = (match[1] ?? match[2]) as string;
      if (specifier.startsWith('.')) {
        imports.push(normalize(join(dirname(file), specifier)).replace(/\.js$/, '.ts'));
      } else {
        packages.push(specifier);
      }
    }
    return { file, text, imports, packages };
  });
}

const folderOf = (file: string): string => (file.includes('/') ? (file.split('/')[0] as string) : '.');

describe('src/ import graph', () => {
  const all = sources();
  const byFile = new Map(all.map((source) => [source.file, source]));

  it('reads every source file and every import resolves to one', () => {
    expect(all.length).toBeGreaterThan(50);
    for (const source of all) {
      for (const target of source.imports) expect(byFile.has(target), `${source.file} → ${target}`).toBe(true);
    }
  });

  it('has no cycle', () => {
    const state = new Map<string, 'open' | 'done'>();
    const cycles: string[] = [];
    const visit = (file: string, trail: string[]): void => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'open') {
        cycles.push([...trail.slice(trail.indexOf(file)), file].join(' → '));
        return;
      }
      state.set(file, 'open');
      for (const target of byFile.get(file)?.imports ?? []) visit(target, [...trail, file]);
      state.set(file, 'done');
    };
    for (const source of all) visit(source.file, []);
    expect(cycles).toEqual([]);
  });

  it('never imports upward, nor across adapters', () => {
    const violations: string[] = [];
    for (const source of all) {
      if (source.file === 'index.ts') continue;
      const from = folderOf(source.file);
      const layer = layers[from];
      expect(layer, `${source.file} is in a folder with no layer`).toBeDefined();
      for (const target of source.imports) {
        const to = folderOf(target);
        if (to !== from && !layer?.mayImport.includes(to)) violations.push(`${source.file} → ${target}`);
      }
    }
    expect(violations).toEqual([]);
  });

  it("imports no server's package, so the declarations compile without any", () => {
    const violations = all.flatMap((source) =>
      source.packages.filter((name) => serverPackages.test(name)).map((name) => `${source.file} → ${name}`),
    );
    expect(violations).toEqual([]);
  });

  it('keeps client/ apart: it imports nothing outside its folder and no package, and nothing imports it', () => {
    const client = all.filter((source) => folderOf(source.file) === 'client');
    expect(client.map((source) => source.file)).toContain('client/index.ts');
    const outward = client.flatMap((source) => [
      ...source.imports.filter((target) => folderOf(target) !== 'client').map((target) => `${source.file} → ${target}`),
      ...source.packages.map((name) => `${source.file} → ${name}`),
    ]);
    expect(outward).toEqual([]);
    const inward = all
      .filter((source) => folderOf(source.file) !== 'client')
      .flatMap((source) =>
        source.imports.filter((target) => folderOf(target) === 'client').map((target) => `${source.file} → ${target}`),
      );
    expect(inward).toEqual([]);
  });

  it('keeps index.ts to re-exports', () => {
    const index = byFile.get('index.ts') as Source;
    const statements = index.text
      .replace(/\/\/[^\n]*/g, '')
      .split(';')
      .map((statement) => statement.trim())
      .filter((statement) => statement !== '');
    for (const statement of statements) expect(statement).toMatch(/^export\b[\s\S]*\bfrom\s*'\.\/[^']+'$/);
  });

  it('finds a violation where there is one', () => {
    // The checks above read what they should: core → apollo is upward.
    const core = all.find((source) => source.file === 'core/request-path.ts') as Source;
    expect(folderOf(core.file)).toBe('core');
    expect(layers.core?.mayImport).not.toContain('apollo');
    expect(core.imports.length).toBeGreaterThan(5);
  });
});
