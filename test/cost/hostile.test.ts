import { Kind, OperationTypeNode, parse, validate } from 'graphql';
import type { DocumentNode, SelectionSetNode } from 'graphql';
import { simpleEstimator } from 'graphql-query-complexity';
import { describe, expect, it } from 'vitest';
import { createCostAnalyzer } from '../../src/cost/analyzer.js';
import type { CostEstimate, EstimateRequest } from '../../src/cost/types.js';
import { costSchema } from './support.js';

const { schema, analyzer } = costSchema(`
  type Query {
    t: T
    book: Book
    l(first: Int): [L] @listSize(slicingArguments: ["first"])
    search(filter: Filter): Int
  }
  type T { l: T, r: T, child: T, x: Int }
  type Book { title: String }
  type L { l(first: Int): [L] @listSize(slicingArguments: ["first"]), x: Int @cost(weight: "1") }
  input Filter { nested: Filter, max: Int }
`);

// `npm run test:mutation` runs instrumented code, several times slower: it sets the headroom.
const BUDGET_MS = 50 * Number(process.env.CPU_BUDGET_HEADROOM ?? '1');

/** CPU time (user + system) of this process in ms: unlike wall-clock time, not inflated by a busy machine. */
function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** Runs once to warm up, then three times; returns the median CPU time and the last outcome. */
function timed(run: () => CostEstimate): { ms: number; outcome: CostEstimate | Error } {
  const attempt = (): CostEstimate | Error => {
    try {
      return run();
    } catch (error) {
      return error as Error;
    }
  };
  attempt();
  const durations: number[] = [];
  let outcome: CostEstimate | Error = new Error('not run');
  for (let i = 0; i < 3; i += 1) {
    const start = cpuMs();
    outcome = attempt();
    durations.push(cpuMs() - start);
  }
  durations.sort((a, b) => a - b);
  return { ms: durations[1] as number, outcome };
}

function estimateTimed(request: EstimateRequest, run = analyzer): { ms: number; outcome: CostEstimate | Error } {
  return timed(() => run.estimate(request));
}

function fanOut(levels: number): DocumentNode {
  const fragments = Array.from(
    { length: levels },
    (_, i) => `fragment F${i} on T { l { ...F${i + 1} } r { ...F${i + 1} } }`,
  );
  return parse(`{ t { ...F0 } } ${fragments.join(' ')} fragment F${levels} on T { x }`);
}

describe('hostile documents end quickly with a number or a clear error', () => {
  it('10,000 aliases: the work cap error, or the exact number under a larger cap', () => {
    const fields = Array.from({ length: 10_000 }, (_, i) => `a${i}: book { title }`).join(' ');
    const document = parse(`{ ${fields} }`);
    const capped = estimateTimed({ document });
    expect(capped.outcome).toMatchObject({ extensions: { code: 'COST_ANALYSIS_LIMIT' } });
    expect((capped.outcome as Error).message).toMatch(/more than 10000 selections/);
    expect(capped.ms).toBeLessThan(BUDGET_MS);

    const large = createCostAnalyzer(schema, { maxNodes: 50_000 });
    expect(large.estimate({ document })).toEqual({ typeCost: 10_001, fieldCost: 10_000 });
  });

  it('depth 1,000: the exact number', () => {
    const depth = 1_000;
    const document = parse(`{ t { ${'child { '.repeat(depth)}x${' }'.repeat(depth)} } }`);
    expect(validate(schema, document)).toEqual([]);
    // A server prices with warmed-up (optimized, smaller) stack frames; warm up here rather than
    // rely on the tests before this one, so the outcome does not hinge on which ran first.
    const shallow = parse(`{ t { ${'child { '.repeat(50)}x${' }'.repeat(50)} } }`);
    for (let i = 0; i < 2_000; i += 1) analyzer.estimate({ document: shallow });
    const { ms, outcome } = estimateTimed({ document });
    expect(outcome).toEqual({ typeCost: 2 + depth, fieldCost: 1 + depth });
    expect(ms).toBeLessThan(BUDGET_MS);
  });

  it('depth 100,000 (an AST no parser would build): COST_ANALYSIS_LIMIT, not a stack overflow', () => {
    let selectionSet: SelectionSetNode = {
      kind: Kind.SELECTION_SET,
      selections: [{ kind: Kind.FIELD, name: { kind: Kind.NAME, value: 'x' } }],
    };
    for (let i = 0; i < 100_000; i += 1) {
      selectionSet = {
        kind: Kind.SELECTION_SET,
        selections: [{ kind: Kind.FIELD, name: { kind: Kind.NAME, value: 'child' }, selectionSet }],
      };
    }
    const document: DocumentNode = {
      kind: Kind.DOCUMENT,
      definitions: [
        {
          kind: Kind.OPERATION_DEFINITION,
          operation: OperationTypeNode.QUERY,
          selectionSet: {
            kind: Kind.SELECTION_SET,
            selections: [{ kind: Kind.FIELD, name: { kind: Kind.NAME, value: 't' }, selectionSet }],
          },
        },
      ],
    };
    const deep = createCostAnalyzer(schema, { maxNodes: Infinity });
    const { ms, outcome } = estimateTimed({ document }, deep);
    expect(outcome).toMatchObject({
      message: 'The operation is nested too deeply to price.',
      extensions: { code: 'COST_ANALYSIS_LIMIT' },
    });
    expect(ms).toBeLessThan(BUDGET_MS);
  });

  it('fragment fan-out 2^20: the exact number, as each fragment is priced once', () => {
    const document = fanOut(20);
    expect(validate(schema, document)).toEqual([]);
    const { ms, outcome } = estimateTimed({ document });
    expect(outcome).toEqual({ typeCost: 2 ** 21, fieldCost: 2 ** 21 - 1 });
    expect(ms).toBeLessThan(BUDGET_MS);
  });

  it('fragment fan-out 2^20 with the breakdown (no memo): the work cap error', () => {
    const { ms, outcome } = estimateTimed({ document: fanOut(20), breakdown: true });
    expect(outcome).toMatchObject({ extensions: { code: 'COST_ANALYSIS_LIMIT' } });
    expect(ms).toBeLessThan(BUDGET_MS);
  });

  it('fragment fan-out 2^20 through graphql-query-complexity: the work cap error', () => {
    const bridged = createCostAnalyzer(schema, { estimators: [simpleEstimator({ defaultComplexity: 1 })] });
    const { ms, outcome } = estimateTimed({ document: fanOut(20) }, bridged);
    expect(outcome).toMatchObject({ extensions: { code: 'COST_ANALYSIS_LIMIT' } });
    // graphql-query-complexity has no memo: it walks maxNodes selections before it stops.
    expect(ms).toBeLessThan(4 * BUDGET_MS);
  });

  it('a fragment cycle (unvalidated document): the work cap error, not a hang', () => {
    const document = parse('{ t { ...C } } fragment C on T { child { ...C } }');
    const { ms, outcome } = estimateTimed({ document });
    expect(outcome).toMatchObject({ extensions: { code: 'COST_ANALYSIS_LIMIT' } });
    expect(ms).toBeLessThan(BUDGET_MS);
  });

  it('first: -1 is refused by maxListSize, and counts as an empty list without it', () => {
    const document = parse('{ l(first: -1) { x l(first: 5) { x } } }');
    expect(estimateTimed({ document }).outcome).toMatchObject({ extensions: { code: 'COST_LIST_SIZE_OUT_OF_RANGE' } });
    const { ms, outcome } = estimateTimed({ document }, createCostAnalyzer(schema, { maxListSize: Infinity }));
    expect(outcome).toEqual({ typeCost: 1, fieldCost: 1 });
    expect(ms).toBeLessThan(BUDGET_MS);
  });

  it('first: 2^31 - 1 nested three deep is Infinity, never NaN (maxListSize off)', () => {
    const max = 2 ** 31 - 1;
    const unbounded = createCostAnalyzer(schema, { maxListSize: Infinity });
    const document = parse(`{ l(first: ${max}) { l(first: ${max}) { l(first: ${max}) { x } } } }`);
    const { ms, outcome } = estimateTimed({ document }, unbounded);
    expect(outcome).toEqual({ typeCost: Infinity, fieldCost: Infinity });
    expect(ms).toBeLessThan(BUDGET_MS);
    const variables = { n: max };
    const viaVariables = estimateTimed(
      {
        document: parse('query Q($n: Int) { l(first: $n) { l(first: $n) { l(first: $n) { x } } } }'),
        variables,
      },
      unbounded,
    );
    expect(viaVariables.outcome).toEqual({ typeCost: Infinity, fieldCost: Infinity });
  });

  it('variables of the wrong type: BAD_USER_INPUT naming the variable', () => {
    const document = parse('query Q($n: Int, $f: Filter) { l(first: $n) { x } search(filter: $f) }');
    for (const variables of [{ n: 'many' }, { n: 1.5 }, { f: { max: 'x' } }, { f: [1, 2] }, { n: { $gt: 1 } }]) {
      const { ms, outcome } = estimateTimed({ document, variables });
      expect(outcome).toMatchObject({ extensions: { code: 'BAD_USER_INPUT' } });
      expect((outcome as Error).message).toMatch(/\$[nf]/);
      expect(ms).toBeLessThan(BUDGET_MS);
    }
  });

  it('a variable nested 100,000 levels deep: a clear error, not a crash', () => {
    let filter: Record<string, unknown> = { max: 1 };
    for (let i = 0; i < 100_000; i += 1) filter = { nested: filter };
    const document = parse('query Q($f: Filter) { search(filter: $f) }');
    const { outcome } = estimateTimed({ document, variables: { f: filter } });
    expect(outcome).toMatchObject({
      message: 'A variable value is nested too deeply to read.',
      extensions: { code: 'BAD_USER_INPUT' },
    });
  });
});
