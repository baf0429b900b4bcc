/**
 * Each helper checks its options when it is built: an unknown option or a wrong type is a
 * TypeError, a number out of range a RangeError, each naming the helper and the option.
 */
import { describe, expect, it } from 'vitest';
import { budgetExchange, budgetFetch, budgetLinkHandler, budgetPacer } from '../../src/client/index.js';

const helpers = [
  ['budgetLinkHandler', budgetLinkHandler],
  ['budgetExchange', budgetExchange],
  ['budgetFetch', budgetFetch],
] as const;

describe.each(helpers)('%s options', (name, helper) => {
  const build = (options: unknown) => () => (helper as (options: unknown) => unknown)(options);

  it('builds with none, with every option, and with 0 (a valid value, not the default)', () => {
    expect(build(undefined)).not.toThrow();
    expect(
      build({
        maxRetries: 0,
        maxWaitMs: 0,
        retryMutations: true,
        pacer: budgetPacer(),
        signal: new AbortController().signal,
        onBudget: () => {},
        onWait: () => {},
      }),
    ).not.toThrow();
  });

  it('refuses an unknown option and a wrong type with a TypeError naming it', () => {
    expect(build({ maxRetry: 3 })).toThrow(new TypeError(`${name}: option "maxRetry" is unknown.`));
    expect(build({ pacer: true })).toThrow(
      new TypeError(`${name}: option "pacer" must be of type object; got boolean.`),
    );
    expect(build({ onWait: 'log' })).toThrow(/option "onWait" must be of type function; got string/);
    expect(build({ maxWaitMs: '30' })).toThrow(TypeError);
  });

  it('refuses numbers out of range with a RangeError naming the option', () => {
    expect(build({ maxRetries: -1 })).toThrow(
      new RangeError(`${name}: option "maxRetries" must be a whole number ≥ 0; got -1.`),
    );
    expect(build({ maxRetries: 1.5 })).toThrow(RangeError);
    expect(build({ maxWaitMs: Number.NaN })).toThrow(
      new RangeError(`${name}: option "maxWaitMs" must be a number ≥ 0; got NaN.`),
    );
    expect(build({ maxWaitMs: -5 })).toThrow(RangeError);
  });
});

describe('budgetFetch options', () => {
  it('takes a fetch, and refuses one that is not a function', () => {
    expect(() => budgetFetch({ fetch })).not.toThrow();
    expect(() => budgetFetch({ fetch: 'fetch' as unknown as typeof fetch })).toThrow(
      new TypeError('budgetFetch: option "fetch" must be of type function; got string.'),
    );
  });

  it('refuses the fetch option on the other helpers', () => {
    expect(() => budgetLinkHandler({ fetch } as never)).toThrow(/option "fetch" is unknown/);
  });
});
