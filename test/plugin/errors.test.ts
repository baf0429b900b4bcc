import { HeaderMap } from '@apollo/server';
import { Kind, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { CostAnalysisError, CostErrorCode } from '../../src/cost/errors.js';
import {
  BudgetErrorCode,
  BudgetServerFault,
  budgetUnavailableError,
  costAnalysisError,
  costErrorRecord,
  internalError,
  rateLimitedError,
  retryAfterSeconds,
  tooExpensiveError,
} from '../../src/core/errors.js';

// What a client reads in each error the plugin returns: the code, the status and headers Apollo
// turns into the HTTP response, and the numbers a client acts on (when to retry, what it costs).
// The wording of messages is not pinned, only the facts they must carry.

function http(status: number) {
  return { status, headers: new HeaderMap() };
}

const limited = { cost: 30, remaining: 12.75, capacity: 100, refillPerSecond: 2 };

describe('retryAfterSeconds', () => {
  it('rounds a wait up to whole seconds, so a client that waits that long finds its tokens', () => {
    expect(retryAfterSeconds(1)).toBe(1);
    expect(retryAfterSeconds(1000)).toBe(1);
    expect(retryAfterSeconds(1001)).toBe(2);
    expect(retryAfterSeconds(9_000)).toBe(9);
    expect(retryAfterSeconds(9_000.5)).toBe(10);
  });

  it('never says 0, which a client would read as "retry now"', () => {
    expect(retryAfterSeconds(0)).toBe(1);
    expect(retryAfterSeconds(-5)).toBe(1);
  });
});

describe('rateLimitedError', () => {
  it('is a 429 that says when to retry, as a number of seconds', () => {
    const status = http(429);
    const error = rateLimitedError({ ...limited, retryAfterMs: 7_500, http: status });
    expect(error.extensions.code).toBe(BudgetErrorCode.RATE_LIMITED);
    expect(error.extensions.retryAfter).toBe(8);
    expect(error.extensions.http).toBe(status);
    expect(error.message).toContain('30');
    expect(error.message).toContain('12 of');
    expect(error.message).toContain('100');
    expect(error.message).toContain('8 s');
  });

  it('says retry in 1 s for a wait of 0 (tokens are due now, not never)', () => {
    const error = rateLimitedError({ ...limited, retryAfterMs: 0, http: http(429) });
    expect(error.extensions.retryAfter).toBe(1);
    expect(error.message).toContain('1 s');
  });

  it('gives no retryAfter at all when the bucket never refills (no wait would help)', () => {
    for (const retryAfterMs of [Number.POSITIVE_INFINITY, -1, Number.NaN]) {
      const error = rateLimitedError({ ...limited, refillPerSecond: 0, retryAfterMs, http: http(429) });
      expect(error.extensions).not.toHaveProperty('retryAfter');
      expect(error.message).not.toMatch(/retry in/i);
      expect(error.message).toMatch(/does not refill/);
    }
  });

  it('names the refusing budget when the operation is charged against several', () => {
    const refilling = rateLimitedError({ ...limited, retryAfterMs: 2_000, bucket: 'burst', http: http(429) });
    expect(refilling.message).toContain('"burst"');
    expect(refilling.extensions.retryAfter).toBe(2);
    const never = rateLimitedError({ ...limited, retryAfterMs: Number.POSITIVE_INFINITY, bucket: 'daily' });
    expect(never.message).toContain('"daily" budget does not refill');
    expect(never.extensions).not.toHaveProperty('retryAfter');
    const plain = rateLimitedError({ ...limited, retryAfterMs: Number.POSITIVE_INFINITY });
    expect(plain.message).not.toContain('"');
  });

  it('leaves extensions.http out where there is no HTTP response (a subscription)', () => {
    const error = rateLimitedError({ ...limited, retryAfterMs: 1_000 });
    expect(error.extensions).not.toHaveProperty('http');
    expect(error.extensions.code).toBe(BudgetErrorCode.RATE_LIMITED);
  });

  it('carries no stack, so Apollo never sends the plugin internals to a client', () => {
    const error = rateLimitedError({ ...limited, retryAfterMs: 1_000, http: http(429) });
    expect(error.stack).toBeUndefined();
    expect(JSON.stringify(error.toJSON())).not.toContain('errors.ts');
  });
});

describe('tooExpensiveError', () => {
  it('is a 400 with the estimate and the maximum as numbers', () => {
    const status = http(400);
    const error = tooExpensiveError({ estimatedCost: 5_000, maxCost: 1_000, http: status });
    expect(error.extensions).toEqual({
      code: BudgetErrorCode.COST_ESTIMATED_TOO_EXPENSIVE,
      estimatedCost: 5_000,
      maxCost: 1_000,
      http: status,
    });
    expect(error.message).toContain('5000');
    expect(error.message).toContain('1000');
    // It says what to change: the list arguments (such as `first`) that set the cost.
    expect(error.message).toContain('`first`');
    expect(error.stack).toBeUndefined();
  });
});

describe('budgetUnavailableError', () => {
  it('is a 503 that keeps its retryAfter, rounded up and never 0', () => {
    const status = http(503);
    const error = budgetUnavailableError(2_400, status);
    expect(error.extensions).toEqual({ code: BudgetErrorCode.BUDGET_UNAVAILABLE, retryAfter: 3, http: status });
    expect(error.message).toContain('3 s');
    expect(budgetUnavailableError(0, http(503)).extensions.retryAfter).toBe(1);
    expect(error.stack).toBeUndefined();
  });
});

describe('internalError', () => {
  it('is a 500 with a generic message and nothing else', () => {
    const status = http(500);
    const error = internalError(status);
    expect(error.extensions).toEqual({ code: BudgetErrorCode.INTERNAL_SERVER_ERROR, http: status });
    expect(error.message).not.toMatch(/capacity|policy|identify|key/i);
    expect(error.message).toMatch(/error on the server/);
    expect(error.stack).toBeUndefined();
  });
});

describe('cost-engine errors', () => {
  const document = parse('query Q {\n  a\n  b\n}');
  const operation = document.definitions[0];
  if (operation?.kind !== Kind.OPERATION_DEFINITION) throw new Error('expected an operation');
  const field = operation.selectionSet.selections[1];

  it('are recorded as plain data: message, code, locations and offsets, without the document', () => {
    const cause = new CostAnalysisError(CostErrorCode.limit, 'too much work', field);
    const record = costErrorRecord(cause);
    expect(record).toEqual({
      message: 'too much work',
      code: 'COST_ANALYSIS_LIMIT',
      locations: [{ line: 3, column: 3 }],
      positions: [field?.loc?.start],
    });
    // Nothing in the record reaches back to the AST (which would keep the whole document alive).
    expect(JSON.stringify(record)).not.toContain('"kind"');
    expect(Object.keys(record ?? {})).toEqual(['message', 'code', 'locations', 'positions']);
  });

  it('keep an error without nodes as one without locations', () => {
    const record = costErrorRecord(new CostAnalysisError(CostErrorCode.invalidVariables, 'bad $first'));
    expect(record).toEqual({
      message: 'bad $first',
      code: 'BAD_USER_INPUT',
      locations: undefined,
      positions: undefined,
    });
  });

  it('are not recorded for any other error: those are server faults, not answers', () => {
    expect(costErrorRecord(new Error('boom'))).toBeUndefined();
    expect(costErrorRecord('a string')).toBeUndefined();
    expect(costErrorRecord(undefined)).toBeUndefined();
  });

  it('reach the client as a 400 with the same message, code and locations', () => {
    const status = http(400);
    const record = {
      message: 'too much work',
      code: 'COST_ANALYSIS_LIMIT',
      locations: [{ line: 3, column: 3 }],
      positions: [field?.loc?.start as number],
    };
    const error = costAnalysisError(record, status);
    expect(error.message).toBe('too much work');
    expect(error.extensions).toEqual({ code: 'COST_ANALYSIS_LIMIT', http: status });
    expect(error.locations).toEqual([{ line: 3, column: 3 }]);
    expect(error.toJSON()).toMatchObject({ locations: [{ line: 3, column: 3 }] });
    expect(error.stack).toBeUndefined();
    // With the request's document text, the error holds its source and offsets too (what GraphQL
    // Yoga re-creates an error from), and the same locations.
    const placed = costAnalysisError(record, status, document.loc?.source);
    expect(placed.positions).toEqual(record.positions);
    expect(placed.source).toBe(document.loc?.source);
    expect(placed.locations).toEqual([{ line: 3, column: 3 }]);
  });

  it('reach the client without locations when the record has none', () => {
    const error = costAnalysisError(
      { message: 'bad $first', code: 'BAD_USER_INPUT', locations: undefined, positions: undefined },
      http(400),
    );
    expect(error.locations).toBeUndefined();
    expect(error.toJSON()).not.toHaveProperty('locations');
  });
});

describe('BudgetServerFault', () => {
  it('names itself and keeps its cause, for the server log', () => {
    const cause = new TypeError('identify returned 42');
    const fault = new BudgetServerFault('identify returned a non-string key', { cause });
    expect(fault).toBeInstanceOf(Error);
    expect(fault.name).toBe('BudgetServerFault');
    expect(fault.message).toBe('identify returned a non-string key');
    expect(fault.cause).toBe(cause);
    expect(String(fault)).toBe('BudgetServerFault: identify returned a non-string key');
  });
});
