import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  Kind,
  buildClientSchema,
  buildSchema,
  introspectionFromSchema,
  parse,
  type DocumentNode,
  type GraphQLSchema,
} from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiSchema } from '../../src/cli/api-schema.js';
import { pluginPrice } from '../../src/cli/plugin-price.js';
import { costDirectivesTypeDefs } from '../../src/cost/directives.js';
import { VERSION } from '../../src/version.js';
import { installBin, type InstalledBin } from './installed-bin.js';
import { readmeQuery, readmeTypeDefs } from './readme-example.js';
import { fixtureDir } from './run-cli.js';
import { composeSupergraph } from './supergraph.js';

// The `graphql-budget` bin as installed (built from the sources into a project that has only
// graphql-budget, graphql and tinyglobby), run through its #! line on real files: SDL, an
// introspection result, a composed supergraph and a persisted query manifest.

const root = new URL('../../', import.meta.url).pathname;
const bookstoreSdl = readFileSync(join(root, 'examples/bookstore/schema.graphql'), 'utf8');
const bookstore = buildSchema(costDirectivesTypeDefs + bookstoreSdl);
const manifest = JSON.parse(readFileSync(join(root, 'examples/bookstore/persisted-query-manifest.json'), 'utf8')) as {
  operations: { name: string; body: string }[];
};
const variables = JSON.parse(readFileSync(join(root, 'examples/bookstore/operations/variables.json'), 'utf8'));
const supergraph = composeSupergraph().supergraphSdl;
const supergraphOperations =
  '{ products { name price reviews { stars } } }\nmutation Restock { restock(id: "1", amount: 2) { id } }\n';

let bin: InstalledBin;
const files = fixtureDir({
  'readme/schema.graphql': readmeTypeDefs,
  'readme/query.graphql': `${readmeQuery}\n`,
  'introspection.json': JSON.stringify({ data: introspectionFromSchema(bookstore) }),
  'supergraph.graphql': supergraph,
  'supergraph-operations.graphql': supergraphOperations,
});
beforeAll(() => {
  bin = installBin();
});
afterAll(() => {
  bin?.remove();
  files.remove();
});

interface Row {
  file: string;
  operation: string | null;
  typeCost: number;
  fieldCost: number;
  cost: number;
}

/** What the plugin charges for each operation of the manifest, most expensive first. */
function manifestPrices(schema: GraphQLSchema, file: string): Row[] {
  return manifest.operations
    .map(({ name, body }) => {
      const { typeCost, fieldCost, cost } = pluginPrice(
        schema,
        undefined,
        {},
        { document: parse(body), operationName: name, variables },
      );
      return { file, operation: name, typeCost, fieldCost, cost };
    })
    .sort((a, b) => b.cost - a.cost);
}

describe('the installed bin', () => {
  it('runs --help and --version from node_modules/.bin', async () => {
    const help = await bin.run(['--help'], bin.project);
    expect(help).toMatchObject({ code: 0, stderr: '' });
    expect(help.stdout).toMatch(/^Usage: graphql-budget <command>/);
    expect(await bin.run(['price', '--help'], bin.project)).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/--max-cost <n>/),
    });
    expect(await bin.run(['--version'], bin.project)).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
  });

  it("prices the README's example operation 18, as the plugin does", async () => {
    const run = await bin.run(
      ['price', '--json', '--schema', 'readme/schema.graphql', 'readme/query.graphql'],
      files.dir,
    );
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(run.stdout)).toEqual([
      { file: 'readme/query.graphql', operation: null, typeCost: 7, fieldCost: 11, cost: 18 },
    ]);
  });

  it('prices operations against SDL, with the plugin’s numbers', async () => {
    const args = ['price', '--json', '-s', 'examples/bookstore/schema.graphql'];
    const run = await bin.run(
      [...args, '--variables', 'examples/bookstore/operations/variables.json', 'examples/bookstore/operations'],
      root,
    );
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const rows = JSON.parse(run.stdout) as Row[];
    const expected = manifestPrices(bookstore, '').map(({ file: _file, ...row }) => row);
    expect(rows.map(({ file: _file, ...row }) => row)).toEqual(expected);
    expect(rows.map((row) => row.file)).toContain('examples/bookstore/operations/catalogue.graphql');
  });

  it('prices a persisted query manifest', async () => {
    const run = await bin.run(
      [
        'price',
        '--json',
        '-s',
        'examples/bookstore/schema.graphql',
        '--variables',
        'examples/bookstore/operations/variables.json',
        'examples/bookstore/persisted-query-manifest.json',
      ],
      root,
    );
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(run.stdout)).toEqual(
      manifestPrices(bookstore, 'examples/bookstore/persisted-query-manifest.json'),
    );
  });

  it('prices against an introspection result, with the default weights it is left with, and says so', async () => {
    const run = await bin.run(
      [
        'price',
        '--json',
        '-s',
        'introspection.json',
        '--variables',
        join(root, 'examples/bookstore/operations/variables.json'),
        join(root, 'examples/bookstore/persisted-query-manifest.json'),
      ],
      files.dir,
    );
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/^warning: introspection\.json: an introspection result carries no applied directives/);
    const defaults = buildClientSchema(introspectionFromSchema(bookstore));
    const rows = JSON.parse(run.stdout) as Row[];
    expect(rows).toEqual(manifestPrices(defaults, rows[0]?.file as string));
    expect(rows).not.toEqual(manifestPrices(bookstore, rows[0]?.file as string));
  });

  it('prices against a composed supergraph, as the plugin on its gateway', async () => {
    const run = await bin.run(
      ['price', '--json', '-s', 'supergraph.graphql', 'supergraph-operations.graphql'],
      files.dir,
    );
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const schema = apiSchema(parse(supergraph));
    const expected = parse(supergraphOperations).definitions.map((operation) => {
      const document: DocumentNode = { kind: Kind.DOCUMENT, definitions: [operation] };
      return pluginPrice(schema, supergraph, {}, { document }).cost;
    });
    expect((JSON.parse(run.stdout) as Row[]).map((row) => row.cost)).toEqual(expected.sort((a, b) => b - a));
  });

  it('lints a supergraph at its own lines', async () => {
    const run = await bin.run(['lint', '-s', 'supergraph.graphql'], files.dir);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const line = supergraph.split('\n').findIndex((text) => /^\s+brands:/.test(text)) + 1;
    expect(run.stdout).toContain(`supergraph.graphql:${line}:`);
  });

  it('exits 1 on findings and 2 on bad input, with no stack trace', async () => {
    const over = await bin.run(
      ['price', '-s', 'readme/schema.graphql', '--max-cost', '17', 'readme/query.graphql'],
      files.dir,
    );
    expect(over.code).toBe(1);
    expect(over.stdout).toContain('over --max-cost 17: readme/query.graphql (anonymous) costs 18\n');
    expect((await bin.run(['lint', '--strict', '-s', 'examples/lint/shop.graphql'], root)).code).toBe(1);
    const bad = await bin.run(['price', '-s', 'readme/query.graphql', 'readme/query.graphql'], files.dir);
    expect(bad).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'readme/query.graphql:1:1: readme/query.graphql holds operations, not a schema; give operation files as arguments, not to --schema.\n',
    });
  });
});
