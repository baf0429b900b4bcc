/**
 * What a response says about the caller's budget, read into one value: the body's
 * `extensions.cost` and budget errors (each member of a batch on its own), and the headers
 * `Retry-After`, `RateLimit` and `RateLimit-Policy` (draft-ietf-httpapi-ratelimit-headers-10, the
 * syntax of RFC 8941 lists: `"burst";r=81;t=4, …`). Nothing here throws: a field that is missing,
 * of the wrong type or unparsable reads as null.
 */

/** One bucket, in the names of `extensions.cost.throttleStatus` (Shopify's). */
export interface BucketStatus {
  /** The bucket's name (`budgets[].name`, the header member's name); null for a lone `throttleStatus`. */
  name: string | null;
  /** Capacity, in tokens. */
  maximumAvailable: number | null;
  /** Tokens left (rounded down by the server); null when the server does not know them. */
  currentlyAvailable: number | null;
  /** Tokens refilled per second; null when unknown. */
  restoreRate: number | null;
}

/** The `RateLimit` header's member: the bucket with the fewest tokens, or the one that refused. */
export interface RateLimitField {
  name: string;
  /** `r`: tokens left, rounded down. */
  remaining: number | null;
  /** `t`: seconds until the bucket is full (on a 200) or until the refused operation fits (on a 429). */
  reset: number | null;
}

/** One member of the `RateLimit-Policy` header. */
export interface RateLimitPolicy {
  name: string;
  /** `q`: the capacity, in tokens. */
  quota: number | null;
  /** `w`: seconds to refill from empty (rounded up); null for a bucket that never refills. */
  window: number | null;
}

/** What one operation's result says: its cost, its buckets, and the budget's refusal if any. */
export interface OperationBudget {
  /** `extensions.cost.requestedQueryCost`: the estimate, the tokens asked for before it ran. */
  requestedQueryCost: number | null;
  /** `extensions.cost.actualQueryCost`: what the returned data cost (0 when refused). */
  actualQueryCost: number | null;
  /** The bucket with the fewest tokens left, or the one that refused. */
  throttleStatus: BucketStatus | null;
  /** Every bucket the operation was charged against (`extensions.cost.budgets`, else `throttleStatus`). */
  budgets: BucketStatus[];
  /**
   * The `extensions.code` of the first error the budget gave: `RATE_LIMITED` (429),
   * `BUDGET_UNAVAILABLE` (503), `COST_ESTIMATED_TOO_EXPENSIVE` or another `COST_…` code (400).
   */
  code: string | null;
  /** The refusal's `extensions.retryAfter`, in seconds. */
  retryAfter: number | null;
}

/**
 * A whole response. Its own fields are the single operation's (for a batch: the sum of the costs,
 * the last member's buckets, the first refusal), completed from the headers where the body says
 * nothing (a server with `exposeCost: false`, a response read without its body).
 */
export interface ResponseBudget extends OperationBudget {
  /** The HTTP status, when the response was given. */
  status: number | null;
  /** Seconds to wait before trying again: `Retry-After`, else the largest `extensions.retryAfter`. */
  retryAfter: number | null;
  /** The `RateLimit` header. */
  rateLimit: RateLimitField | null;
  /** The `RateLimit-Policy` header, one entry per bucket. */
  policies: RateLimitPolicy[];
  /** One entry per operation: one for a single response, one per member of a batch, in order. */
  operations: OperationBudget[];
}

/** What `readBudget` needs of a response: a Fetch `Response` has it. */
export interface ResponseLike {
  readonly status?: number;
  readonly headers?: { get(name: string): string | null } | null;
}

type Fields = Record<string, unknown>;

const record = (value: unknown): Fields | null =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Fields) : null;

/** A finite number ≥ 0, else null. */
const number = (value: unknown): number | null =>
  typeof value === 'number' && value >= 0 && value < Infinity ? value : null;

/** A Retry-After value: delta-seconds or an HTTP date (RFC 9110 §10.2.3). */
function retryAfterSeconds(value: string | null): number | null {
  if (value === null) return null;
  if (/^\s*\d+\s*$/.test(value)) return Number(value);
  const date = Date.parse(value);
  return date >= 0 ? Math.max(0, Math.ceil((date - Date.now()) / 1000)) : null;
}

/**
 * An item of an RFC 8941 list (a string or a token), or a parameter (`name=value`), and the
 * separator after it: a comma starts the next member, a semicolon the next parameter.
 */
const ITEM = /\s*("(?:[^"\\]|\\.)*"|[^",;=\s]+)(?:\s*=\s*("(?:[^"\\]|\\.)*"|[^",;\s]*))?\s*([,;]?)/g;

/** The members of a list of items with parameters, `"a";q=1;w=2, b;r=3`, with their numeric parameters. */
function listMembers(value: string | null): { name: string; params: Record<string, number> }[] {
  const members: { name: string; params: Record<string, number> }[] = [];
  let next = true;
  for (const [, item, raw, separator] of (value ?? '').matchAll(ITEM)) {
    const member = members.at(-1);
    if (next || !member) {
      members.push({ name: (item as string).replace(/^"|"$/g, '').replace(/\\(.)/g, '$1'), params: {} });
    } else if (raw && /^\d+(\.\d+)?$/.test(raw)) {
      member.params[item as string] = Number(raw);
    }
    next = separator === ',';
  }
  return members;
}

function bucket(value: unknown): BucketStatus | null {
  const fields = record(value);
  return (
    fields && {
      name: typeof fields.name === 'string' ? fields.name : null,
      maximumAvailable: number(fields.maximumAvailable),
      currentlyAvailable: number(fields.currentlyAvailable),
      restoreRate: number(fields.restoreRate),
    }
  );
}

/** One result object: `{ data?, errors?, extensions? }`. */
function readOperation(result: unknown): OperationBudget {
  const fields = record(result);
  const cost = record(record(fields?.extensions)?.cost);
  const throttleStatus = bucket(cost?.throttleStatus);
  const budgets = (Array.isArray(cost?.budgets) ? cost.budgets : []).map(bucket).filter((entry) => entry !== null);
  // The first error the budget gave: RATE_LIMITED, BUDGET_UNAVAILABLE or a COST_… code.
  const refusal = (Array.isArray(fields?.errors) ? fields.errors : [])
    .map((error) => record(record(error)?.extensions))
    .find((extensions) => /^(RATE_LIMITED|BUDGET_UNAVAILABLE|COST_)/.test(String(extensions?.code)));
  return {
    requestedQueryCost: number(cost?.requestedQueryCost),
    actualQueryCost: number(cost?.actualQueryCost),
    throttleStatus,
    budgets: budgets.length > 0 ? budgets : throttleStatus ? [throttleStatus] : [],
    code: refusal ? String(refusal.code) : null,
    retryAfter: number(refusal?.retryAfter),
  };
}

/** The operations' values of `field` combined by `pick` (a sum, the largest); null when none has one. */
const fold = (
  operations: OperationBudget[],
  field: 'requestedQueryCost' | 'actualQueryCost' | 'retryAfter',
  pick: (a: number, b: number) => number,
): number | null =>
  operations.reduce<number | null>(
    (acc, { [field]: value }) => (value === null ? acc : acc === null ? value : pick(acc, value)),
    null,
  );

const add = (a: number, b: number): number => a + b;

/**
 * Reads the budget of a response: `body` is its parsed JSON (a result, an array of results for a
 * batch, or null when it was not read), `response` its status and headers (a Fetch `Response`).
 *
 * @example
 * const response = await fetch(url, { method: 'POST', headers, body });
 * const budget = readBudget(await response.clone().json(), response);
 * if (budget.code === 'RATE_LIMITED') console.log(`retry in ${budget.retryAfter} s`);
 */
export function readBudget(body: unknown, response?: ResponseLike | null): ResponseBudget {
  const headers = response?.headers;
  const get = (name: string): string | null => {
    try {
      return headers?.get(name) ?? null;
    } catch {
      // A Headers object that refuses a name: read as missing.
      return null;
    }
  };
  const operations = (Array.isArray(body) ? body : body == null ? [] : [body]).map(readOperation);
  const last = [...operations].reverse().find((operation) => operation.throttleStatus !== null);
  const refused = operations.find((operation) => operation.code !== null);

  const [limit] = listMembers(get('ratelimit'));
  const rateLimit: RateLimitField | null = limit
    ? { name: limit.name, remaining: number(limit.params.r), reset: number(limit.params.t) }
    : null;
  const policies = listMembers(get('ratelimit-policy')).map(
    ({ name, params }): RateLimitPolicy => ({ name, quota: number(params.q), window: number(params.w) }),
  );
  // Without a body's bucket, the headers give the one RateLimit names: its tokens, its policy's size.
  const policy = policies.find((entry) => entry.name === rateLimit?.name);
  const fromHeaders: BucketStatus | null = rateLimit && {
    name: rateLimit.name,
    maximumAvailable: policy?.quota ?? null,
    currentlyAvailable: rateLimit.remaining,
    restoreRate: policy?.quota != null && policy.window ? policy.quota / policy.window : null,
  };
  const throttleStatus = last?.throttleStatus ?? fromHeaders;

  return {
    status: typeof response?.status === 'number' ? response.status : null,
    requestedQueryCost: fold(operations, 'requestedQueryCost', add),
    actualQueryCost: fold(operations, 'actualQueryCost', add),
    throttleStatus,
    budgets: last?.budgets ?? (throttleStatus ? [throttleStatus] : []),
    code: refused?.code ?? null,
    retryAfter: retryAfterSeconds(get('retry-after')) ?? fold(operations, 'retryAfter', Math.max),
    rateLimit,
    policies,
    operations,
  };
}
