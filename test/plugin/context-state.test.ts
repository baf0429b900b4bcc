import { expect, it } from 'vitest';
import { contextState, contextStateOf } from '../../src/core/context-state.js';

it("keeps a context value's state on the value, invisible to copies and serialisation", () => {
  const context = { user: 'ann' };
  expect(contextStateOf(context)).toBeUndefined();
  const state = contextState(context);
  expect(contextState(context)).toBe(state);
  expect(contextStateOf(context)).toBe(state);
  expect(Object.keys(context)).toEqual(['user']);
  expect(JSON.stringify(context)).toBe('{"user":"ann"}');
  // A copy (Apollo Server's per-operation clone, a spread) starts without it.
  expect(contextStateOf({ ...context })).toBeUndefined();
  expect(contextStateOf(Object.assign(Object.create(Object.getPrototypeOf(context)), context))).toBeUndefined();
  // Nor does an object inheriting from the context share it.
  expect(contextStateOf(Object.create(context))).toBeUndefined();
});

it('keeps the state of a frozen context value elsewhere', () => {
  const context = Object.freeze({ user: 'bob' });
  const state = contextState(context);
  expect(contextState(context)).toBe(state);
  expect(Object.getOwnPropertySymbols(context)).toEqual([]);
  expect(contextStateOf(Object.freeze({ user: 'bob' }))).toBeUndefined();
});
