/**
 * One value per process under `name`, shared by every copy of this library loaded in it (its ES
 * module and CommonJS builds side by side, or two installed versions): state that follows objects
 * both copies see (a schema's fields, a request's context value) must not split between them.
 */
export function processGlobal<T>(name: string, create: () => T): T {
  const key = Symbol.for(`graphql-budget.${name}`);
  const slots = globalThis as Record<symbol, unknown>;
  if (!(key in slots)) slots[key] = create();
  return slots[key] as T;
}
