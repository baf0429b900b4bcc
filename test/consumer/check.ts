/**
 * The consumer check (`npm run consumer-check`, run by .ci/run after the build): packs the package
 * as it would be published and installs the tarball into fresh projects under the system temp
 * directory, the way a new user would, following the README's "Install in your project":
 *
 * - esm-js      ES module JavaScript, `server.js` as shown, on Redis
 * - cjs-js      CommonJS JavaScript, the same file with the README's `require` lines, on Redis
 * - ts-memory   TypeScript (`module: nodenext`, strict, `skipLibCheck: false`) without ioredis
 *               installed, the README's memory-store variant of `server.ts`; the same declarations
 *               also compile under `moduleResolution: bundler` and from a CommonJS file
 * - ts-redis    TypeScript with ioredis, `server.ts` as shown
 * - ts-node-redis  TypeScript (`skipLibCheck: false`) with node-redis in place of ioredis, which is
 *               not installed: the README's node-redis variant of `server.ts`. It installs redis 5,
 *               the oldest major the peer range takes (the repository's suites run the newest).
 * - ts-yoga     TypeScript on GraphQL Yoga, without `@apollo/server` installed: the README's Yoga
 *               `server.ts` and install line, under `skipLibCheck: true` as the README says (Yoga's
 *               own lru-cache declarations do not compile under `strict` otherwise); graphql-budget's
 *               declarations alone compile with `skipLibCheck: false` there.
 * - cli         the `graphql-budget` command, in a project with only graphql-budget and graphql
 *               installed (peers omitted): `npx graphql-budget --help`, and the README's operation
 *               priced 18 against the README's schema, as the servers above charge it
 * - client      `graphql-budget/client` in a project with graphql-budget alone (peers omitted: no
 *               server, no graphql, no client library): it loads through `require` and `import`
 *               with the same exports and reads a budget, and its declarations compile with
 *               `skipLibCheck: false` for Node (`nodenext`, ES module and CommonJS) and for a
 *               browser bundle (`moduleResolution: bundler`, the DOM's types, no @types/node)
 *
 * Each project installs the tarball and the README's other packages from the npm registry, starts
 * its server, sends the README's curl request over HTTP and compares the answer with the response
 * the README shows (`extensions.cost` included). Redis is a throw-away `redis-server` on a free port
 * (one database per project). One line per project; exit code 1 when any fails. Temporary
 * directories and processes are removed on every exit path.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { differences, parseCurl } from '../example/readme-examples.js';
import { freePort, startRedisServer, type RedisServer } from '../support/redis-server.js';
import { installBlock, installBlocks, npmInstallPackages, withVariant } from './readme-install.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const blocks = installBlocks(readFileSync(join(root, 'README.md'), 'utf8'));
const children = new Set<ChildProcess>();
const work = mkdtempSync(join(tmpdir(), 'graphql-budget-consumer-'));
let redis: RedisServer | undefined;

/** The `graphql-budget` command's file, package.json `bin`. */
const BIN = 'dist/esm/cli/main.js';

interface Project {
  name: string;
  type: 'module' | 'commonjs';
  /** Whether the server needs Redis, and through which client (ioredis unless said). */
  redis: boolean;
  /** The package installed in place of the README's `ioredis`. */
  client?: string;
  /** The README block whose `npm install` line it runs. @default 'npm' */
  install?: string;
  typescript: boolean;
  files: Record<string, string>;
  /** What `node` runs, after `tsc` for TypeScript. */
  entry: string;
  /** Further checks in the installed project; returns a note for the report line. */
  extra?: (dir: string) => Promise<string>;
}

interface Run {
  code: number | null;
  output: string;
}

/** Runs a command to its end (bounded by `timeoutMs`), with npm's own variables left out of its environment. */
function run(command: string, args: string[], cwd: string, timeoutMs: number): Promise<Run> {
  return new Promise((resolve) => {
    const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('npm_')));
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      children.delete(child);
      resolve({ code, output });
    });
  });
}

async function mustRun(what: string, command: string, args: string[], cwd: string, timeoutMs: number): Promise<string> {
  const result = await run(command, args, cwd, timeoutMs);
  if (result.code !== 0) throw new Error(`${what} failed (exit ${result.code}):\n${result.output.trim()}`);
  return result.output;
}

/** Packs the package; checks what the tarball holds. Returns its path and a summary. */
async function pack(): Promise<{ tarball: string; summary: string }> {
  for (const entry of ['dist/esm/index.js', 'dist/cjs/index.js']) {
    if (!existsSync(join(root, entry))) throw new Error(`${entry} is missing: run \`npm run build\` first.`);
  }
  const out = await mustRun('npm pack', 'npm', ['pack', '--json', '--pack-destination', work], root, 120_000);
  const [packed] = JSON.parse(out.slice(out.indexOf('['))) as {
    filename: string;
    size: number;
    entryCount: number;
    files: { path: string; mode: number }[];
  }[];
  if (packed === undefined) throw new Error('npm pack reported no tarball');
  const paths = new Set(packed.files.map((file) => file.path));
  const required = ['LICENSE', 'README.md', 'package.json', 'lua/bucket.lua', 'schema/cost.graphql'];
  required.push('dist/esm/index.js', 'dist/esm/index.d.ts', 'dist/cjs/index.js', 'dist/cjs/index.d.ts');
  required.push('dist/cjs/package.json', BIN);
  const missing = required.filter((path) => !paths.has(path));
  const unwanted = [...paths].filter((path) => path.endsWith('.map') || path.startsWith('src/'));
  if (missing.length > 0 || unwanted.length > 0) {
    throw new Error(`the tarball lacks [${missing.join(', ')}] or holds [${unwanted.join(', ')}]`);
  }
  const bin = packed.files.find((file) => file.path === BIN);
  if (bin !== undefined && (bin.mode & 0o111) === 0) throw new Error(`${BIN} is not executable in the tarball`);
  return {
    tarball: join(work, packed.filename),
    summary: `${packed.filename}: ${(packed.size / 1000).toFixed(1)} kB, ${packed.entryCount} files`,
  };
}

/** Starts the project's server; resolves once it says it is ready. */
async function startServer(dir: string, entry: string, env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, [entry], { cwd: dir, env: { ...process.env, ...env }, stdio: 'pipe' });
  children.add(child);
  child.on('exit', () => children.delete(child));
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not start within 30 s:\n${output}`)), 30_000);
    const onData = (chunk: Buffer): void => {
      output += chunk;
      if (output.includes('Server ready at')) {
        clearTimeout(timer);
        resolve(child);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${code}) before it was ready:\n${output.trim()}`));
    });
  });
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** Sends the README's request to `port` and compares the answer with the README's response. */
async function request(port: number): Promise<string> {
  const curl = parseCurl(installBlock(blocks, 'request').text.trim());
  const url = new URL(curl.url);
  url.port = String(port);
  const response = await fetch(url, {
    method: curl.method,
    headers: curl.headers,
    body: curl.body ?? null,
    signal: AbortSignal.timeout(10_000),
  });
  const body = (await response.json()) as { extensions?: { cost?: Record<string, unknown> } };
  const cost = body.extensions?.cost;
  if (response.status !== 200 || cost === undefined) {
    throw new Error(`HTTP ${response.status} without extensions.cost: ${JSON.stringify(body)}`);
  }
  const shown = JSON.parse(installBlock(blocks, 'response').text) as unknown;
  const diff = differences(shown, body);
  if (diff.length > 0) throw new Error(`the answer differs from the README's:\n  ${diff.join('\n  ')}`);
  return `HTTP 200, extensions.cost ${JSON.stringify(cost)}`;
}

/** Configuring `estimators` without graphql-query-complexity installed fails with an error naming it. */
async function optionalPeerError(dir: string, type: Project['type']): Promise<string> {
  const load =
    type === 'module'
      ? "import { createCostAnalyzer } from 'graphql-budget'; import { buildSchema } from 'graphql';"
      : "const { createCostAnalyzer } = require('graphql-budget'); const { buildSchema } = require('graphql');";
  const script = `${load}
    try { createCostAnalyzer(buildSchema('type Query { a: Int }'), { estimators: [() => 1] }); console.log('no error'); }
    catch (error) { console.log(error.message); }`;
  const out = await mustRun('estimators check', process.execPath, [`--input-type=${type}`, '-e', script], dir, 30_000);
  if (!/graphql-query-complexity package, which is not installed/.test(out)) {
    throw new Error(`estimators without graphql-query-complexity: expected an error naming it, got ${out.trim()}`);
  }
  return 'estimators without graphql-query-complexity: TypeError naming it';
}

/** The declarations also compile under `moduleResolution: bundler` and as CommonJS (`require` types). */
async function otherResolutions(dir: string): Promise<string> {
  if (existsSync(join(dir, 'node_modules/ioredis'))) throw new Error('ioredis is installed in the project without it');
  mkdirSync(join(dir, 'types'));
  const use = 'new MemoryBucketStore({ maxKeys: 10 }).peek("a", { capacity: 1, refillPerSecond: 1 })';
  writeFileSync(join(dir, 'types/bundler.ts'), `import { MemoryBucketStore } from 'graphql-budget';\n${use};\n`);
  writeFileSync(
    join(dir, 'types/require.cts'),
    `import budget = require('graphql-budget');\nconst { MemoryBucketStore } = budget;\n${use};\n`,
  );
  const strict = { strict: true, skipLibCheck: false, types: ['node'], noEmit: true };
  const configs = {
    'tsconfig.bundler.json': { compilerOptions: { ...strict, module: 'preserve', moduleResolution: 'bundler' } },
    'tsconfig.require.json': { compilerOptions: { ...strict, module: 'nodenext' } },
  };
  const tsc = join(dir, 'node_modules/.bin/tsc');
  const seen: string[] = [];
  for (const [file, config] of Object.entries(configs)) {
    const source = file === 'tsconfig.bundler.json' ? 'types/bundler.ts' : 'types/require.cts';
    writeFileSync(join(dir, file), JSON.stringify({ ...config, files: [source] }, null, 2));
    const out = await mustRun(`tsc -p ${file}`, tsc, ['-p', file, '--listFiles'], dir, 120_000);
    const entry = /graphql-budget\/dist\/(esm|cjs)\/index\.d\.ts/.exec(out)?.[1];
    if (entry === undefined) throw new Error(`tsc -p ${file} did not read graphql-budget's declarations:\n${out}`);
    seen.push(`${file === 'tsconfig.bundler.json' ? 'bundler' : 'require'} → dist/${entry}`);
  }
  if (seen.join() !== 'bundler → dist/esm,require → dist/cjs') throw new Error(`declarations read: ${seen.join(', ')}`);
  return `types also compile with ${seen.join(', ')}`;
}

function projects(): Project[] {
  const serverJs = installBlock(blocks, 'server.js').text;
  const serverTs = installBlock(blocks, 'server.ts').text;
  const tsconfig = JSON.parse(installBlock(blocks, 'tsconfig.json').text) as {
    compilerOptions: Record<string, unknown>;
  };
  const options = tsconfig.compilerOptions;
  if (options.module !== 'nodenext' || options.strict !== true || options.skipLibCheck === true) {
    throw new Error('the README tsconfig.json must keep module nodenext, strict, and library checks on');
  }
  const tsconfigJson = JSON.stringify({ ...tsconfig, compilerOptions: { ...options, skipLibCheck: false } }, null, 2);
  return [
    {
      name: 'esm-js',
      type: 'module',
      redis: true,
      typescript: false,
      files: { 'server.js': serverJs },
      entry: 'server.js',
      extra: (dir) => optionalPeerError(dir, 'module'),
    },
    {
      name: 'cjs-js',
      type: 'commonjs',
      redis: true,
      typescript: false,
      files: { 'server.js': withVariant(serverJs, installBlock(blocks, 'server.js, CommonJS imports').text) },
      entry: 'server.js',
      extra: (dir) => optionalPeerError(dir, 'commonjs'),
    },
    {
      name: 'ts-memory',
      type: 'module',
      redis: false,
      typescript: true,
      files: {
        'tsconfig.json': tsconfigJson,
        'server.ts': withVariant(serverTs, installBlock(blocks, 'server.ts, without Redis').text),
      },
      entry: 'dist/server.js',
      extra: otherResolutions,
    },
    {
      name: 'ts-redis',
      type: 'module',
      redis: true,
      typescript: true,
      files: { 'tsconfig.json': tsconfigJson, 'server.ts': serverTs },
      entry: 'dist/server.js',
    },
    {
      name: 'ts-yoga',
      type: 'module',
      redis: true,
      typescript: true,
      install: 'npm, GraphQL Yoga',
      files: {
        'tsconfig.json': JSON.stringify({ ...tsconfig, compilerOptions: { ...options, skipLibCheck: true } }, null, 2),
        'server.ts': installBlock(blocks, 'server.ts, GraphQL Yoga').text,
      },
      entry: 'dist/server.js',
      extra: async (dir) => {
        if (existsSync(join(dir, 'node_modules/@apollo/server'))) {
          throw new Error('@apollo/server is installed in the GraphQL Yoga project');
        }
        // graphql-budget's declarations need neither @apollo/server nor any Yoga package, at either entry.
        mkdirSync(join(dir, 'types'));
        writeFileSync(
          join(dir, 'types/budget.ts'),
          "import { queryBudgetPlugin, type EnvelopBudgetPlugin } from 'graphql-budget';\n" +
            "import { useQueryBudget } from 'graphql-budget/envelop';\n" +
            'const plugin: EnvelopBudgetPlugin<{ caller: string }> = useQueryBudget<{ caller: string }>({\n' +
            '  identify: ({ contextValue }) => contextValue.caller,\n});\n' +
            'export const plugins = [plugin, queryBudgetPlugin({ identify: () => "a" })];\n',
        );
        const config = {
          compilerOptions: { ...options, skipLibCheck: false, noEmit: true },
          files: ['types/budget.ts'],
        };
        writeFileSync(join(dir, 'tsconfig.budget.json'), JSON.stringify(config, null, 2));
        await mustRun(
          'tsc -p tsconfig.budget.json',
          join(dir, 'node_modules/.bin/tsc'),
          ['-p', 'tsconfig.budget.json'],
          dir,
          120_000,
        );
        const { version } = JSON.parse(readFileSync(join(dir, 'node_modules/graphql-yoga/package.json'), 'utf8')) as {
          version: string;
        };
        // Both entries load in both module systems without @apollo/server.
        const load =
          "const a = require('graphql-budget'); const b = require('graphql-budget/envelop');" +
          "import('graphql-budget/envelop').then((c) => { if (a.useQueryBudget !== b.useQueryBudget || typeof c.useQueryBudget !== 'function') process.exit(1); });";
        await mustRun('node (require and import)', process.execPath, ['-e', load], dir, 30_000);
        return `graphql-yoga ${version}, no @apollo/server; graphql-budget and graphql-budget/envelop load (require, import), declarations compile with skipLibCheck: false`;
      },
    },
    {
      name: 'ts-node-redis',
      type: 'module',
      redis: true,
      client: 'redis@5',
      typescript: true,
      files: {
        'tsconfig.json': tsconfigJson,
        'server.ts': withVariant(serverTs, installBlock(blocks, 'server.ts, node-redis').text),
      },
      entry: 'dist/server.js',
      extra: async (dir) => {
        if (existsSync(join(dir, 'node_modules/ioredis')))
          throw new Error('ioredis is installed in the node-redis project');
        const { version } = JSON.parse(readFileSync(join(dir, 'node_modules/redis/package.json'), 'utf8')) as {
          version: string;
        };
        return `redis ${version}, no ioredis`;
      },
    },
  ];
}

async function check(project: Project, index: number, tarball: string): Promise<string> {
  const dir = join(work, project.name);
  mkdirSync(dir);
  const manifest = { name: `consumer-${project.name}`, version: '1.0.0', private: true, type: project.type };
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  for (const [file, text] of Object.entries(project.files)) writeFileSync(join(dir, file), text);

  let packages = npmInstallPackages(installBlock(blocks, project.install ?? 'npm').text);
  if (!packages.includes('graphql-budget')) throw new Error('the README install line does not name graphql-budget');
  packages = packages.map((name) => (name === 'graphql-budget' ? tarball : name));
  if (!project.redis) packages = packages.filter((name) => name !== 'ioredis');
  else if (project.client !== undefined)
    packages = packages.map((name) => (name === 'ioredis' ? project.client! : name));
  if (project.typescript) packages.push(...npmInstallPackages(installBlock(blocks, 'npm, TypeScript').text));
  const started = performance.now();
  await mustRun('npm install', 'npm', ['install', '--no-audit', '--no-fund', ...packages], dir, 300_000);
  const installed = `installed in ${((performance.now() - started) / 1000).toFixed(1)} s`;
  if (project.typescript) await mustRun('tsc', join(dir, 'node_modules/.bin/tsc'), ['-p', '.'], dir, 120_000);

  const port = await freePort();
  const env: Record<string, string> = { PORT: String(port) };
  if (project.redis) {
    redis ??= await startRedisServer();
    env.REDIS_URL = `${redis.url}/${index + 1}`;
  }
  const server = await startServer(dir, project.entry, env);
  let answer: string;
  try {
    answer = await request(port);
  } finally {
    await stop(server);
  }
  const extra = project.extra === undefined ? [] : [await project.extra(dir)];
  return [installed, answer, ...extra].join('; ');
}

/**
 * The command where only graphql-budget and graphql are installed (`--omit=peer`: npm would
 * otherwise add `@apollo/server`): its help, and the README's operation priced on the README's
 * schema at the `requestedQueryCost` the README shows.
 */
async function checkCli(tarball: string): Promise<string> {
  const dir = join(work, 'cli');
  mkdirSync(dir);
  writeFileSync(
    join(dir, 'package.json'),
    `${JSON.stringify({ name: 'consumer-cli', version: '1.0.0', private: true }, null, 2)}\n`,
  );
  const started = performance.now();
  await mustRun(
    'npm install',
    'npm',
    ['install', '--no-audit', '--no-fund', '--omit=peer', tarball, 'graphql'],
    dir,
    300_000,
  );
  const installed = `installed in ${((performance.now() - started) / 1000).toFixed(1)} s`;
  for (const absent of ['@apollo/server', 'ioredis']) {
    if (existsSync(join(dir, 'node_modules', absent)))
      throw new Error(`${absent} is installed in the project without it`);
  }
  const help = await mustRun(
    'npx graphql-budget --help',
    'npx',
    ['--no-install', 'graphql-budget', '--help'],
    dir,
    60_000,
  );
  if (!help.startsWith('Usage: graphql-budget <command>'))
    throw new Error(`npx graphql-budget --help printed:\n${help}`);
  const typeDefs = /const typeDefs = `#graphql\n([\s\S]*?)`;/.exec(installBlock(blocks, 'server.ts').text)?.[1];
  if (typeDefs === undefined) throw new Error('the README server.ts has no `const typeDefs = `#graphql …`;`');
  const curl = parseCurl(installBlock(blocks, 'request').text.trim());
  writeFileSync(join(dir, 'schema.graphql'), typeDefs);
  writeFileSync(join(dir, 'operation.graphql'), (JSON.parse(curl.body ?? '{}') as { query: string }).query);
  const args = ['--no-install', 'graphql-budget', 'price', '--json', '--schema', 'schema.graphql', 'operation.graphql'];
  const priced = JSON.parse(await mustRun('npx graphql-budget price', 'npx', args, dir, 60_000)) as { cost: number }[];
  const shown = JSON.parse(installBlock(blocks, 'response').text) as {
    extensions: { cost: { requestedQueryCost: number } };
  };
  const expected = shown.extensions.cost.requestedQueryCost;
  if (priced.length !== 1 || priced[0]?.cost !== expected) {
    throw new Error(`price gave ${JSON.stringify(priced)}; the README's server charges ${expected}`);
  }
  return `${installed}; npx graphql-budget --help; price: the README's operation costs ${expected}`;
}

/** `graphql-budget/client` where nothing but graphql-budget (and TypeScript, to compile) is installed. */
async function checkClient(tarball: string): Promise<string> {
  const dir = join(work, 'client');
  mkdirSync(dir);
  const manifest = { name: 'consumer-client', version: '1.0.0', private: true, type: 'module' };
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  const typescript = npmInstallPackages(installBlock(blocks, 'npm, TypeScript').text);
  const started = performance.now();
  await mustRun(
    'npm install',
    'npm',
    ['install', '--no-audit', '--no-fund', '--omit=peer', tarball, ...typescript],
    dir,
    300_000,
  );
  const installed = `installed in ${((performance.now() - started) / 1000).toFixed(1)} s`;
  for (const absent of ['@apollo/server', 'graphql', '@apollo/client', '@urql/core', 'graphql-request']) {
    if (existsSync(join(dir, 'node_modules', absent))) throw new Error(`${absent} is installed in the client project`);
  }

  writeFileSync(
    join(dir, 'load.cjs'),
    `const cjs = require('graphql-budget/client');
import('graphql-budget/client').then((esm) => {
  const names = (module) => Object.keys(module).filter((name) => name !== 'default').sort().join();
  if (names(cjs) !== names(esm)) throw new Error('require: ' + names(cjs) + '; import: ' + names(esm));
  const budget = esm.readBudget(
    { extensions: { cost: { requestedQueryCost: 3, actualQueryCost: 3 } } },
    { status: 200, headers: new Headers({ ratelimit: '"budget";r=2;t=1' }) },
  );
  if (budget.requestedQueryCost !== 3 || budget.throttleStatus.currentlyAvailable !== 2) throw new Error(JSON.stringify(budget));
  for (const helper of [cjs.budgetFetch, cjs.budgetLinkHandler, cjs.budgetExchange]) helper({ pacer: cjs.budgetPacer() });
  console.log(names(esm));
});
`,
  );
  const exported = (await mustRun('node load.cjs', process.execPath, ['load.cjs'], dir, 30_000)).trim();

  mkdirSync(join(dir, 'types'));
  const use = `const pacer = budgetPacer();
export const fetchWithBudget: typeof fetch = budgetFetch({ pacer, maxRetries: 2, onWait: (wait: BudgetWait) => wait.ms });
export const handler = budgetLinkHandler({ pacer });
export const exchange = budgetExchange({ retryMutations: true });
export const budget: ResponseBudget = readBudget(null, new Response(null, { status: 429 }));
`;
  const names = 'budgetExchange, budgetFetch, budgetLinkHandler, budgetPacer, readBudget';
  writeFileSync(
    join(dir, 'types/client.ts'),
    `import { ${names}, type BudgetWait, type ResponseBudget } from 'graphql-budget/client';\n${use}`,
  );
  writeFileSync(
    join(dir, 'types/client.cts'),
    `import client = require('graphql-budget/client');\nconst { ${names} } = client;\n` +
      `type BudgetWait = client.BudgetWait;\ntype ResponseBudget = client.ResponseBudget;\n${use}`,
  );
  const strict = { strict: true, skipLibCheck: false, noEmit: true };
  const configs: [string, string, object, string][] = [
    ['node', 'types/client.ts', { ...strict, module: 'nodenext', types: ['node'] }, 'esm'],
    ['require', 'types/client.cts', { ...strict, module: 'nodenext', types: ['node'] }, 'cjs'],
    [
      'browser',
      'types/client.ts',
      { ...strict, module: 'preserve', moduleResolution: 'bundler', lib: ['es2022', 'dom'], types: [] },
      'esm',
    ],
  ];
  for (const [name, file, compilerOptions, expected] of configs) {
    writeFileSync(join(dir, `tsconfig.${name}.json`), JSON.stringify({ compilerOptions, files: [file] }, null, 2));
    const out = await mustRun(
      `tsc -p tsconfig.${name}.json`,
      join(dir, 'node_modules/.bin/tsc'),
      ['-p', `tsconfig.${name}.json`, '--listFiles'],
      dir,
      120_000,
    );
    const read = /graphql-budget\/dist\/(esm|cjs)\/client\/index\.d\.ts/.exec(out)?.[1];
    if (read !== expected)
      throw new Error(`tsc -p tsconfig.${name}.json read dist/${read}/client, not dist/${expected}/client`);
  }
  return `${installed}; no server, graphql or client library; require and import give ${exported}; declarations compile for nodenext (ESM, CommonJS) and a browser bundle`;
}

async function cleanUp(): Promise<void> {
  for (const child of children) child.kill('SIGKILL');
  await redis?.stop();
  rmSync(work, { recursive: true, force: true });
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void cleanUp().finally(() => process.exit(1));
  });
}

let failed = 0;
const began = performance.now();
try {
  const { tarball, summary } = await pack();
  console.log(`consumer check: ${summary}`);
  for (const [index, project] of projects().entries()) {
    try {
      console.log(`consumer check: ${project.name.padEnd(13)} ok    ${await check(project, index, tarball)}`);
    } catch (error) {
      failed++;
      console.log(`consumer check: ${project.name.padEnd(13)} FAIL  ${(error as Error).message}`);
    }
  }
  for (const [name, checkOne] of [
    ['cli', checkCli],
    ['client', checkClient],
  ] as const) {
    try {
      console.log(`consumer check: ${name.padEnd(13)} ok    ${await checkOne(tarball)}`);
    } catch (error) {
      failed++;
      console.log(`consumer check: ${name.padEnd(13)} FAIL  ${(error as Error).message}`);
    }
  }
} catch (error) {
  failed++;
  console.log(`consumer check: FAIL  ${(error as Error).message}`);
} finally {
  await cleanUp();
}
console.log(
  `consumer check: ${failed === 0 ? 'passed' : `${failed} failed`} in ${((performance.now() - began) / 1000).toFixed(0)} s`,
);
process.exit(failed === 0 ? 0 : 1);
