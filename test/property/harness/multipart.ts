import { valueAt } from './work.js';

/** One part of a response as the harness reads it (the single part of a result that is not incremental). */
export interface ResponsePart {
  data?: unknown;
  errors?: { message: string; extensions?: Record<string, unknown> }[];
  extensions?: { cost?: { requestedQueryCost: number; actualQueryCost: number | null } };
}

/** A later part's payload: deferred fields (`data`) or streamed items (`items`) at `path`. */
interface IncrementalPayload {
  data?: Record<string, unknown> | null;
  items?: unknown[];
  path?: (string | number)[];
  errors?: NonNullable<ResponsePart['errors']>;
}

type LaterPart = ResponsePart & { incremental?: IncrementalPayload[]; path?: unknown };

/**
 * An incremental result (a `multipart/mixed` body of `@defer` and `@stream` parts), merged here as
 * a client merges it, written apart from the budget's own merge: the first part's `data`, then each
 * later part's `incremental` entries in order, deferred fields (`{ data, path }`) deep-merged into
 * the object at `path` (lists item by item) and streamed items (`{ items, path: [...list, index] }`)
 * placed from that index on. Returns the first part with its `extensions`, the data every part
 * makes together, and the errors of every part (whether an error touched the result anywhere).
 */
export function mergedMultipart(text: string): ResponsePart {
  const parts = text
    .split(/\r\n---/)
    .map((part) => part.slice(part.indexOf('\r\n\r\n') + 4).trim())
    .filter((part) => part.startsWith('{'))
    .map((part) => JSON.parse(part) as LaterPart);
  const [first, ...rest] = parts;
  if (first === undefined) throw new Error(`a multipart response without a part: ${text.slice(0, 200)}`);
  // Parsed from the text just now: the harness's own objects, merged into in place.
  const data = first.data;
  const errors = [...(first.errors ?? [])];
  for (const part of rest) {
    if (part.data !== undefined || part.path !== undefined) {
      throw new Error(`a later part the harness cannot merge (not an \`incremental\` list): ${JSON.stringify(part)}`);
    }
    errors.push(...(part.errors ?? []));
    for (const payload of part.incremental ?? []) {
      errors.push(...(payload.errors ?? []));
      const path = payload.path ?? [];
      if (payload.items !== undefined) {
        const index = path.at(-1);
        const list = valueAt(data, path.slice(0, -1));
        if (typeof index !== 'number' || !Array.isArray(list)) continue;
        for (const [offset, item] of payload.items.entries()) list[index + offset] = item;
      } else if (isContainer(payload.data)) {
        const target = valueAt(data, path);
        if (isContainer(target) && !Array.isArray(target)) mergeInto(target, payload.data);
      }
    }
  }
  return { ...first, data, ...(errors.length === 0 ? {} : { errors }) };
}

type Container = Record<string | number, unknown>;

function isContainer(value: unknown): value is Container {
  return typeof value === 'object' && value !== null;
}

/** Deep-merges `fields` into `target`: objects key by key, lists item by item, anything else replaced. */
function mergeInto(target: Container, fields: Container): void {
  for (const key of Object.keys(fields)) {
    const current = Object.hasOwn(target, key) ? target[key] : undefined;
    const value = fields[key];
    if (isContainer(current) && isContainer(value) && Array.isArray(current) === Array.isArray(value)) {
      mergeInto(current, value);
    } else {
      // As data, even under a key named `__proto__` (an alias may be one).
      Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
    }
  }
}
