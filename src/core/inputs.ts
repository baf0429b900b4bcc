import { GraphQLError } from 'graphql';
import { BudgetServerFault } from './errors.js';
import { resolveLimits, smallestCapacity, type ResolvedLimit } from './limits.js';
import { checkMode, type ResolvedBudgetOptions } from './options.js';
import type { BudgetMode } from './outcomes.js';
import type { BudgetRequest } from './request.js';

/** Who pays for an operation, under which policy and mode: the answers of the user's functions, checked. */
export interface RequestInputs {
  skipped: boolean;
  key: string | null;
  /** The buckets the operation is charged against (the caller's own first); empty when skipped. */
  limits: ResolvedLimit[];
  /** Whether the policy was a list of limits (rather than one policy object). */
  listed: boolean;
  mode: BudgetMode;
  expose: boolean;
}

/**
 * Step 1 of the request path: the inputs. Asks the user's functions about one request (`skip`, `identify`, `policy`, `mode`, `exposeCost`,
 * `maxCost`, `fieldBreakdown`) and checks what they answer. A `GraphQLError` they throw is the
 * server's own answer to the client and passes through; anything else they throw, or an answer
 * that cannot be used, is a `BudgetServerFault` naming the option (a 500 with a generic message,
 * logged in full).
 */
export class RequestInputResolver<TArgs> {
  readonly #config: ResolvedBudgetOptions<TArgs>;
  readonly #owner: string;

  constructor(config: ResolvedBudgetOptions<TArgs>, owner: string) {
    this.#config = config;
    this.#owner = owner;
  }

  async resolve(request: BudgetRequest<TArgs>): Promise<RequestInputs> {
    const config = this.#config;
    const { args } = request;
    const mode = await this.#modeOf(args);
    const expose = typeof config.exposeCost === 'function' ? config.exposeCost(args) === true : config.exposeCost;
    const skip = config.skip;
    if (skip !== undefined && (await userCode('`skip`', () => skip(args))) === true) {
      return { skipped: true, key: null, limits: [], listed: false, mode, expose };
    }
    const key = await userCode('`identify`', () => config.identify(args));
    if (typeof key !== 'string' || key.length === 0) {
      throw new BudgetServerFault(
        key === null
          ? '`identify` returned null for a request that `skip` did not skip; only a skipped request may have no key.'
          : `\`identify\` must return a non-empty string; it returned ${describe(key)}.`,
      );
    }
    const { limits, listed } = await this.#limitsOf(args, key);
    return { skipped: false, key, limits, listed, mode, expose };
  }

  /**
   * The largest cost one operation may have: `maxCost` (a number or per request), never above the
   * smallest capacity of its buckets (an operation costing more could never be paid).
   */
  maxCostOf(request: BudgetRequest<TArgs>, limits: readonly ResolvedLimit[]): number {
    const capacity = smallestCapacity(limits);
    const option = this.#config.maxCost;
    if (option === undefined) return capacity;
    if (typeof option === 'number') return Math.min(option, capacity);
    let value: unknown;
    try {
      value = option(request.args);
    } catch (error) {
      throw new BudgetServerFault(`\`maxCost\` threw: ${faultMessage(error)}`, { cause: error });
    }
    if (typeof value !== 'number' || !(value > 0)) {
      throw new BudgetServerFault(`\`maxCost\` must return a number > 0; it returned ${describe(value)}.`);
    }
    return Math.min(value, capacity);
  }

  /** Whether this caller may have the per-field breakdown it asked for with the debug header. */
  wantsBreakdown(request: BudgetRequest<TArgs>, expose: boolean): boolean {
    const config = this.#config;
    if (!expose || request.headers?.get(config.debugHeader) !== 'fields') return false;
    const allowed = config.fieldBreakdown;
    return typeof allowed === 'function' ? allowed(request.args) === true : allowed;
  }

  async #modeOf(args: TArgs): Promise<BudgetMode> {
    const option = this.#config.mode;
    if (typeof option !== 'function') return option;
    const mode = await userCode('`mode`', () => option(args));
    try {
      checkMode(this.#owner, mode, 'the mode returned by `mode`');
    } catch (error) {
      throw new BudgetServerFault((error as Error).message);
    }
    return mode;
  }

  async #limitsOf(args: TArgs, key: string): Promise<{ limits: ResolvedLimit[]; listed: boolean }> {
    const option = this.#config.policy;
    const policy = typeof option === 'function' ? await userCode('`policy`', () => option(args)) : option;
    try {
      return { limits: resolveLimits(policy, key, this.#config.policyName), listed: Array.isArray(policy) };
    } catch (error) {
      throw new BudgetServerFault(`the policy returned by \`policy\` is invalid: ${(error as Error).message}.`);
    }
  }
}

/** Runs user code; what it throws, unless a GraphQLError meant for the client, becomes a fault naming it. */
export async function userCode<T>(name: string, run: () => T | Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof GraphQLError) throw error;
    throw new BudgetServerFault(`${name} threw: ${faultMessage(error)}`, { cause: error });
  }
}

/** A fault for the log: the message, and the stack of what was thrown when there is one. */
export function faultMessage(error: unknown): string {
  if (error instanceof BudgetServerFault) return error.message;
  if (error instanceof Error) return error.stack ?? `${error.name}: ${error.message}`;
  return String(error);
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (value === null || value === undefined) return String(value);
  return typeof value === 'object' ? 'an object' : `${typeof value} ${String(value)}`;
}
