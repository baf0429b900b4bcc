import { expect, it } from 'vitest';
import { contextState, contextStateOf } from '../../src/core/context-state.js';

it("keeps a context value's state on the value, invisible to copies and serialisation, read through inheritance", () => {
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
  // An object inheriting from the context (an executor extending it per execution) reads its state…
  const child = Object.create(context) as object;
  expect(contextStateOf(child)).toBe(state);
  // …and has a state of its own once an execution registers with it (each operation of a Yoga batch).
  const own = contextState(child);
  expect(own).not.toBe(state);
  expect(contextStateOf(child)).toBe(own);
  expect(contextStateOf(context)).toBe(state);
});

it('keeps the state of a frozen context value elsewhere', () => {
  const context = Object.freeze({ user: 'bob' });
  const state = contextState(context);
  expect(contextState(context)).toBe(state);
  expect(Object.getOwnPropertySymbols(context)).toEqual([]);
  expect(contextStateOf(Object.freeze({ user: 'bob' }))).toBeUndefined();
});
