/**
 * readBudget over the answers of docs/http-contract.md (a success, a refusal, several buckets, a
 * batch, a 400, a 503), over headers alone (what a browser shows a script of another origin), and
 * over what a hostile or broken server could send: it never throws, and reads what it cannot
 * understand as null.
 */
import { describe, expect, it } from 'vitest';
import { readBudget } from '../../src/client/index.js';
import { BudgetErrorCode, CostErrorCode } from '../../src/index.js';

const response = (status: number, headers: Record<string, string>) => ({ status, headers: new Headers(headers) });

const POLICY = '"budget";q=1000;w=20;graphql-budget-unit="query-cost"';
const allowed = {
  data: { items: [] },
  extensions: {
    cost: {
      requestedQueryCost: 270,
      actualQueryCost: 270,
      throttleStatus: { maximumAvailable: 1000, currentlyAvailable: 730, restoreRate: 50 },
    },
  },
};
const refused = {
  errors: [{ message: 'This operation costs 502 …', extensions: { code: 'RATE_LIMITED', retryAfter: 1 } }],
  extensions: {
    cost: {
      requestedQueryCost: 502,
      actualQueryCost: 0,
      throttleStatus: { maximumAvailable: 1000, currentlyAvailable: 498, restoreRate: 50 },
    },
  },
};

describe('readBudget', () => {
  it('reads a success: the cost, the bucket, the headers', () => {
    const budget = readBudget(allowed, response(200, { 'ratelimit-policy': POLICY, ratelimit: '"budget";r=730;t=6' }));
    expect(budget).toEqual({
      status: 200,
      requestedQueryCost: 270,
      actualQueryCost: 270,
      throttleStatus: { name: null, maximumAvailable: 1000, currentlyAvailable: 730, restoreRate: 50 },
      budgets: [{ name: null, maximumAvailable: 1000, currentlyAvailable: 730, restoreRate: 50 }],
      code: null,
      retryAfter: null,
      rateLimit: { name: 'budget', remaining: 730, reset: 6 },
      policies: [{ name: 'budget', quota: 1000, window: 20 }],
      operations: [
        {
          requestedQueryCost: 270,
          actualQueryCost: 270,
          throttleStatus: { name: null, maximumAvailable: 1000, currentlyAvailable: 730, restoreRate: 50 },
          budgets: [{ name: null, maximumAvailable: 1000, currentlyAvailable: 730, restoreRate: 50 }],
          code: null,
          retryAfter: null,
        },
      ],
    });
  });

  it('reads a 429: its code, and Retry-After before extensions.retryAfter', () => {
    const budget = readBudget(
      refused,
      response(429, { 'retry-after': '2', 'ratelimit-policy': POLICY, ratelimit: '"budget";r=498;t=2' }),
    );
    expect(budget).toMatchObject({ status: 429, code: 'RATE_LIMITED', retryAfter: 2, requestedQueryCost: 502 });
    expect(budget.operations[0]?.retryAfter).toBe(1);
    expect(readBudget(refused).retryAfter).toBe(1);
  });

  it('reads Retry-After given as an HTTP date', () => {
    const inFive = new Date(Date.now() + 4_500).toUTCString();
    expect(readBudget(null, response(429, { 'retry-after': inFive })).retryAfter).toBeOneOf([4, 5]);
    const past = new Date(Date.now() - 60_000).toUTCString();
    expect(readBudget(null, response(503, { 'retry-after': past })).retryAfter).toBe(0);
  });

  it('reads every bucket of an operation charged against several', () => {
    const body = {
      data: {},
      extensions: {
        cost: {
          requestedQueryCost: 19,
          actualQueryCost: 19,
          throttleStatus: { maximumAvailable: 40, currentlyAvailable: 2, restoreRate: 1 },
          budgets: [
            { name: 'burst', maximumAvailable: 100, currentlyAvailable: 62, restoreRate: 5 },
            { name: 'org', maximumAvailable: 40, currentlyAvailable: null, restoreRate: 1 },
          ],
        },
      },
    };
    const budget = readBudget(
      body,
      response(200, {
        'ratelimit-policy':
          '"burst";q=100;w=20;graphql-budget-unit="query-cost", "minute";q=240;w=60;graphql-budget-unit="query-cost", "org";q=40;w=40;graphql-budget-unit="query-cost"',
        ratelimit: '"org";r=2;t=38',
      }),
    );
    expect(budget.budgets).toEqual([
      { name: 'burst', maximumAvailable: 100, currentlyAvailable: 62, restoreRate: 5 },
      { name: 'org', maximumAvailable: 40, currentlyAvailable: null, restoreRate: 1 },
    ]);
    expect(budget.policies.map((policy) => policy.name)).toEqual(['burst', 'minute', 'org']);
    expect(budget.rateLimit).toEqual({ name: 'org', remaining: 2, reset: 38 });
  });

  it('reads a batch: each member, the costs summed, the first refusal, the last bucket', () => {
    const budget = readBudget([allowed, refused], response(200, { ratelimit: '"budget";r=498;t=11' }));
    expect(budget.operations.map((operation) => operation.code)).toEqual([null, 'RATE_LIMITED']);
    expect(budget).toMatchObject({
      status: 200,
      requestedQueryCost: 772,
      actualQueryCost: 270,
      code: 'RATE_LIMITED',
      retryAfter: 1,
      throttleStatus: { currentlyAvailable: 498 },
    });
  });

  it("reads a 400's code, and a 503's", () => {
    const tooExpensive = readBudget(
      {
        errors: [{ extensions: { code: 'COST_ESTIMATED_TOO_EXPENSIVE', estimatedCost: 1202, maxCost: 1000 } }],
        extensions: { cost: { requestedQueryCost: 1202, actualQueryCost: 0, throttleStatus: null } },
      },
      response(400, { 'ratelimit-policy': POLICY }),
    );
    expect(tooExpensive).toMatchObject({ status: 400, code: 'COST_ESTIMATED_TOO_EXPENSIVE', throttleStatus: null });
    expect(tooExpensive.policies).toEqual([{ name: 'budget', quota: 1000, window: 20 }]);
    const unavailable = readBudget(
      { errors: [{ message: 'x', extensions: { code: 'BUDGET_UNAVAILABLE' } }] },
      response(503, { 'retry-after': '1' }),
    );
    expect(unavailable).toMatchObject({ status: 503, code: 'BUDGET_UNAVAILABLE', retryAfter: 1 });
  });

  it("reads the budget's own error codes and no other", () => {
    const codeOf = (code: string) => readBudget({ errors: [{ extensions: { code } }] }).code;
    for (const code of ['RATE_LIMITED', 'COST_ESTIMATED_TOO_EXPENSIVE', 'COST_ANALYSIS_FAILED', 'BUDGET_UNAVAILABLE']) {
      expect(Object.values(BudgetErrorCode)).toContain(code);
      expect(codeOf(code)).toBe(code);
    }
    // The cost engine's own codes (a 400, nothing charged); the generic GraphQL ones it shares are not read.
    const costCodes = Object.values(CostErrorCode).filter((code) => code.startsWith('COST_'));
    expect(costCodes.length).toBeGreaterThanOrEqual(3);
    for (const code of costCodes) expect(codeOf(code)).toBe(code);
    for (const code of ['INTERNAL_SERVER_ERROR', 'GRAPHQL_VALIDATION_FAILED', 'BAD_USER_INPUT', 'UNAUTHENTICATED']) {
      expect(codeOf(code)).toBeNull();
    }
  });

  it('reads the bucket from the headers alone, as a script of another origin sees them', () => {
    const budget = readBudget(
      null,
      response(429, { 'retry-after': '3', 'ratelimit-policy': POLICY, ratelimit: '"budget";r=0;t=3' }),
    );
    expect(budget).toMatchObject({
      status: 429,
      retryAfter: 3,
      requestedQueryCost: null,
      throttleStatus: { name: 'budget', maximumAvailable: 1000, currentlyAvailable: 0, restoreRate: 50 },
      operations: [],
    });
  });

  it('reads list members whose names hold commas, semicolons and escapes, and tokens', () => {
    const budget = readBudget(
      null,
      response(200, {
        'ratelimit-policy': '"a,b;c";q=10;w=5, "say \\"hi\\"";q=3, plain;q=7;w=7, "x";bad=1.2.3;q="4";w=2',
        ratelimit: '"a,b;c";r=4;t=1',
      }),
    );
    expect(budget.policies).toEqual([
      { name: 'a,b;c', quota: 10, window: 5 },
      { name: 'say "hi"', quota: 3, window: null },
      { name: 'plain', quota: 7, window: 7 },
      { name: 'x', quota: null, window: 2 },
    ]);
    expect(budget.throttleStatus).toEqual({
      name: 'a,b;c',
      maximumAvailable: 10,
      currentlyAvailable: 4,
      restoreRate: 2,
    });
  });

  it('never throws on what a broken or hostile server sends, and reads it as null', () => {
    const hostile = JSON.parse(
      '{"__proto__":{"polluted":1},"errors":[null,7,{"extensions":{"code":{"x":1},"retryAfter":-1}},{"extensions":{"code":"RATE_LIMITED","retryAfter":"9"}}],' +
        '"extensions":{"cost":{"requestedQueryCost":"12","actualQueryCost":-3,"throttleStatus":[1],"budgets":{"length":2}}}}',
    );
    const throwing = {
      status: 429,
      headers: {
        get: () => {
          throw new TypeError('no');
        },
      },
    };
    for (const [body, from] of [
      [hostile, response(429, { ratelimit: ';;,,"', 'ratelimit-policy': '"unterminated;q=1', 'retry-after': 'soon' })],
      ['a string', null],
      [42, undefined],
      [[null, [], 'x'], { status: Number.NaN }],
      [
        { extensions: { cost: { throttleStatus: { maximumAvailable: Infinity, currentlyAvailable: Number.NaN } } } },
        throwing,
      ],
    ] as const) {
      expect(() => readBudget(body, from)).not.toThrow();
    }
    const budget = readBudget(hostile, throwing);
    expect(budget).toMatchObject({
      status: 429,
      code: 'RATE_LIMITED',
      retryAfter: null,
      requestedQueryCost: null,
      actualQueryCost: null,
      throttleStatus: null,
      budgets: [],
      rateLimit: null,
    });
    expect(({} as { polluted?: number }).polluted).toBeUndefined();
    expect(
      readBudget({ extensions: { cost: { throttleStatus: { maximumAvailable: Infinity, currentlyAvailable: -1 } } } })
        .throttleStatus,
    ).toEqual({ name: null, maximumAvailable: null, currentlyAvailable: null, restoreRate: null });
  });
});
