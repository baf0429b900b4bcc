import type { BaseContext, GraphQLRequestContextDidResolveOperation } from '@apollo/server';
import { GraphQLError } from 'graphql';
import type { BucketPolicy } from '../bucket/types.js';
import { BudgetServerFault } from './errors.js';
import { checkMode, policyProblem, type BudgetMode, type ResolvedQueryBudgetOptions } from './options.js';

type DidResolve<TContext extends BaseContext> = GraphQLRequestContextDidResolveOperation<TContext>;

/** Who pays for an operation, under which policy and mode: the answers of the user's functions, checked. */
export interface RequestInputs {
  skipped: boolean;
  key: string | null;
  policy: BucketPolicy | null;
  mode: BudgetMode;
  expose: boolean;
}

/**
 * Asks the user's functions about one request (`skip`, `identify`, `policy`, `mode`, `exposeCost`,
 * `maxCost`, `fieldBreakdown`) and checks what they answer. A `GraphQLError` they throw is the
 * server's own answer to the client and passes through; anything else they throw, or an answer
 * that cannot be used, is a `BudgetServerFault` naming the option (a 500 with a generic message,
 * logged in full).
 */
export class RequestInputResolver<TContext extends BaseContext> {
  readonly #config: ResolvedQueryBudgetOptions<TContext>;

  constructor(config: ResolvedQueryBudgetOptions<TContext>) {
    this.#config = config;
  }

  async resolve(requestContext: DidResolve<TContext>): Promise<RequestInputs> {
    const config = this.#config;
    const mode = await this.#modeOf(requestContext);
    const expose =
      typeof config.exposeCost === 'function' ? config.exposeCost(requestContext) === true : config.exposeCost;
    const skip = config.skip;
    if (skip !== undefined && (await userCode('`skip`', () => skip(requestContext))) === true) {
      return { skipped: true, key: null, policy: null, mode, expose };
    }
    const key = await userCode('`identify`', () => config.identify(requestContext));
    if (typeof key !== 'string' || key.length === 0) {
      throw new BudgetServerFault(
        key === null
          ? '`identify` returned null for a request that `skip` did not skip; only a skipped request may have no key.'
          : `\`identify\` must return a non-empty string; it returned ${describe(key)}.`,
      );
    }
    return { skipped: false, key, policy: await this.#policyOf(requestContext), mode, expose };
  }

  /** The largest cost one operation may have: `maxCost` (a number or per request), never above the capacity. */
  maxCostOf(requestContext: DidResolve<TContext>, policy: BucketPolicy): number {
    const option = this.#config.maxCost;
    if (option === undefined) return policy.capacity;
    if (typeof option === 'number') return Math.min(option, policy.capacity);
    let value: unknown;
    try {
      value = option(requestContext);
    } catch (error) {
      throw new BudgetServerFault(`\`maxCost\` threw: ${faultMessage(error)}`, { cause: error });
    }
    if (typeof value !== 'number' || !(value > 0)) {
      throw new BudgetServerFault(`\`maxCost\` must return a number > 0; it returned ${describe(value)}.`);
    }
    return Math.min(value, policy.capacity);
  }

  /** Whether this caller may have the per-field breakdown it asked for with the debug header. */
  wantsBreakdown(requestContext: DidResolve<TContext>, expose: boolean): boolean {
    const config = this.#config;
    if (!expose || requestContext.request.http?.headers.get(config.debugHeader) !== 'fields') return false;
    const allowed = config.fieldBreakdown;
    return typeof allowed === 'function' ? allowed(requestContext) === true : allowed;
  }

  async #modeOf(requestContext: DidResolve<TContext>): Promise<BudgetMode> {
    const option = this.#config.mode;
    if (typeof option !== 'function') return option;
    const mode = await userCode('`mode`', () => option(requestContext));
    try {
      checkMode(mode, 'the mode returned by `mode`');
    } catch (error) {
      throw new BudgetServerFault((error as Error).message);
    }
    return mode;
  }

  async #policyOf(requestContext: DidResolve<TContext>): Promise<BucketPolicy> {
    const option = this.#config.policy;
    if (typeof option !== 'function') return option;
    const policy = await userCode('`policy`', () => option(requestContext));
    const problem = policyProblem(policy);
    if (problem !== undefined) {
      throw new BudgetServerFault(`the policy returned by \`policy\` is invalid: ${problem.message}.`);
    }
    return policy;
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
