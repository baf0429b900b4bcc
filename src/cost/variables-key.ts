import type { VariableDefinitionNode } from 'graphql';

/** Declared variables serialized to more characters than this get no key. */
export const MAX_VARIABLES_KEY_LENGTH = 2048;

/**
 * A string naming what an operation's variables price as: each declared variable's raw value as
 * JSON, or a mark that it is absent (its default then applies), in declaration order; nothing of
 * what the operation does not declare. Values are read as own properties, whatever the name
 * (`__proto__` and `constructor` are ordinary GraphQL variable names, and JSON.stringify writes an
 * own `__proto__` key as any other). Two requests of one operation with the same key coerce their
 * variables alike, so they price alike.
 *
 * Undefined when a value is not plain JSON data (a class instance, a function, `undefined`, a
 * non-finite number or -0, a cycle: two such values may write the same JSON and coerce apart) or
 * when the key would be longer than `MAX_VARIABLES_KEY_LENGTH`.
 */
export function variablesKey(
  definitions: readonly VariableDefinitionNode[] | undefined,
  variables: Readonly<Record<string, unknown>> | null | undefined,
): string | undefined {
  let key = '';
  if (definitions === undefined || definitions.length === 0) return key;
  for (const definition of definitions) {
    const name = definition.variable.name.value;
    if (variables === null || variables === undefined || !Object.hasOwn(variables, name)) {
      key += '\u0000';
      continue;
    }
    const value = variables[name];
    if (!isPlainJson(value, 0)) return undefined;
    key += `\u0000=${JSON.stringify(value)}`;
    if (key.length > MAX_VARIABLES_KEY_LENGTH) return undefined;
  }
  return key;
}

function isPlainJson(value: unknown, depth: number): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value) && !Object.is(value, -0);
  if (typeof value !== 'object' || depth > 32) return false;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      if (!isPlainJson(value[index], depth + 1)) return false; // a hole reads as undefined
    }
    return true;
  }
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (prototype !== Object.prototype && prototype !== null) return false;
  if (Object.keys(value).length !== Object.getOwnPropertyNames(value).length) return false;
  for (const key of Object.keys(value)) {
    if (!isPlainJson((value as Record<string, unknown>)[key], depth + 1)) return false;
  }
  return true;
}
