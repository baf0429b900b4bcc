import { expect, it } from 'vitest';
import { contextReading, keepContextReading } from '../../src/core/context-state.js';

it("keeps a context value's reading on the value under one symbol, invisible to copies and serialisation", () => {
  const context = { user: 'ann' };
  expect(contextReading(context)).toBeUndefined();
  keepContextReading(context, 'first');
  keepContextReading(context, 'second');
  expect(contextReading(context)).toBe('second');
  expect(Object.keys(context)).toEqual(['user']);
  expect(Object.getOwnPropertySymbols(context)).toHaveLength(1);
  expect(JSON.stringify(context)).toBe('{"user":"ann"}');
  // A copy (a spread) starts without it; an object inheriting from the context reads it.
  expect(contextReading({ ...context })).toBeUndefined();
  expect(contextReading(Object.create(context) as object)).toBe('second');
});

it('keeps the reading of a frozen context value elsewhere, writing nothing on it', () => {
  const context = Object.freeze({ user: 'bob' });
  keepContextReading(context, 'kept');
  expect(contextReading(context)).toBe('kept');
  expect(Object.getOwnPropertySymbols(context)).toEqual([]);
  expect(contextReading(Object.freeze({ user: 'bob' }))).toBeUndefined();
  expect(contextReading(Object.create(context) as object)).toBe('kept');
});
