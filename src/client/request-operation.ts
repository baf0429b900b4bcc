import type { GateOperation } from './budget-gate.js';

/** Strings and comments, which may hold any word. */
const LITERALS = /"""[\s\S]*?"""|"(?:[^"\\\n]|\\.)*"|#.*/g;

/**
 * Whether the operation `name` of a GraphQL document's text is a query, without parsing it: the
 * document, strings and comments left out, declares `query name`; without a name, it has no
 * `mutation` or `subscription` keyword at all. It errs one way only: a query it cannot tell (a
 * field named `mutation`, say) counts as a mutation, and is not retried.
 */
export function isQueryText(document: string, name: string | null): boolean {
  const text = document.replace(LITERALS, ' ');
  if (name && !/^[_A-Za-z]\w*$/.test(name)) return false;
  return name
    ? new RegExp(`(^|[^\\w$])query\\s+${name}(?!\\w)`).test(text)
    : !/(^|[^\w$])(mutation|subscription)(?!\w)/.test(text);
}

type Fields = Record<string, unknown>;

/** One member of a request body: `{ query, operationName, extensions }`. */
function member(body: unknown): { key: string; name: string | null; mutation: boolean } {
  const fields = (body !== null && typeof body === 'object' ? body : {}) as Fields;
  const name = typeof fields.operationName === 'string' ? fields.operationName : null;
  const query = typeof fields.query === 'string' ? fields.query : null;
  return {
    // A persisted operation sent by its hash alone has no text: it is known by its extensions.
    key: `${name}\n${query ?? JSON.stringify(fields.extensions)}`,
    name,
    mutation: query === null || !isQueryText(query, name),
  };
}

/**
 * What a fetch call sends, read from its method, URL and body: a GET's query string, or a POST's
 * JSON body (an array for a batch). Null for a body that is not JSON text (a file upload, a
 * stream): such a request is sent as it is, without pacing or retries.
 */
export function requestOperation(method: string, url: string, body: unknown): GateOperation | null {
  if (method === 'GET') {
    const params = new URL(url, 'http://localhost').searchParams;
    const operation = member({
      query: params.get('query') ?? undefined,
      operationName: params.get('operationName') ?? undefined,
      extensions: params.get('extensions'),
    });
    // GraphQL over HTTP never runs a mutation for a GET.
    return { ...operation, mutation: false };
  }
  if (typeof body !== 'string') return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return null;
  }
  const members = (Array.isArray(parsed) ? parsed : [parsed]).map(member);
  return {
    key: members.map((entry) => entry.key).join('\n'),
    name: members.length === 1 ? (members[0]?.name ?? null) : null,
    mutation: members.some((entry) => entry.mutation),
  };
}
