import type { VariableDefinitionNode } from 'graphql';

/** Variables serialized to more characters than this get no key. */
export const MAX_VARIABLES_KEY_LENGTH = 2048;

/**
 * A string naming what an operation's variables price as: the raw value of each variable that
 * prices (`definitions`, see `CostAnalyzer.pricedVariables`) as JSON, or a mark that it is absent
 * (its default then applies), in declaration order; nothing of the variables that price nothing,
 * nor of what the operation does not declare. Values are read as own properties, whatever the name
 * (`__proto__` and `constructor` are ordinary GraphQL variable names). Two requests of one
 * operation with the same key coerce those variables alike, so they price alike.
 *
 * Undefined when a value is not plain JSON data (a class instance, a function, `undefined`, a
 * non-finite number or -0, a cycle: two such values may write the same JSON and coerce apart) or
 * when the key would be longer than `MAX_VARIABLES_KEY_LENGTH`: the key is written as the values
 * are read, and given up as soon as it passes that length, so a large value costs no more than the
 * limit.
 */
export function variablesKey(
  definitions: readonly VariableDefinitionNode[],
  variables: Readonly<Record<string, unknown>> | null | undefined,
): string | undefined {
  const writer: KeyWriter = { key: '' };
  for (const definition of definitions) {
    const name = definition.variable.name.value;
    if (variables === null || variables === undefined || !Object.hasOwn(variables, name)) {
      writer.key += '\u0000';
      continue;
    }
    writer.key += '\u0000=';
    if (!writeJson(variables[name], writer, 0)) return undefined;
  }
  return writer.key;
}

interface KeyWriter {
  key: string;
}

/** Appends `value` as JSON; false (and the key is abandoned) when it is not plain data or too long. */
function writeJson(value: unknown, writer: KeyWriter, depth: number): boolean {
  if (writer.key.length > MAX_VARIABLES_KEY_LENGTH) return false;
  if (value === null || typeof value === 'string' || typeof value === 'boolean') {
    if (typeof value === 'string' && value.length > MAX_VARIABLES_KEY_LENGTH) return false;
    writer.key += JSON.stringify(value);
    return writer.key.length <= MAX_VARIABLES_KEY_LENGTH;
  }
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || Object.is(value, -0)) return false;
    writer.key += String(value);
    return true;
  }
  if (typeof value !== 'object' || depth > 32) return false;
  if (Array.isArray(value)) {
    writer.key += '[';
    for (let index = 0; index < value.length; index++) {
      if (index > 0) writer.key += ',';
      if (!writeJson(value[index], writer, depth + 1)) return false; // a hole reads as undefined
    }
    writer.key += ']';
    return true;
  }
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (prototype !== Object.prototype && prototype !== null) return false;
  // Own symbols or non-enumerable properties: not JSON data.
  if (Reflect.ownKeys(value).length !== Object.keys(value).length) return false;
  writer.key += '{';
  let first = true;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (!first) writer.key += ',';
    first = false;
    writer.key += `${JSON.stringify(key)}:`;
    if (!writeJson((value as Record<string, unknown>)[key], writer, depth + 1)) return false;
  }
  writer.key += '}';
  return true;
}
