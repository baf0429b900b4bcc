import type { ExecutionResult, GraphQLError, GraphQLSchema } from 'graphql';
import type { BudgetAnnotation } from './annotate.js';
import type { Budget, Settlement } from './budget.js';
import type { BudgetRequest, BudgetResponse } from './request.js';
import type { RequestPath } from './request-path.js';

/** What the server does with an operation, once the budget has decided. */
export type Verdict =
  /** Execute it (decided and charged; or undecided: skipped, or a fault in measure mode). */
  | { readonly kind: 'execute' }
  /** Answer with this error instead (a refusal, or a fault of user code), executing nothing. */
  | { readonly kind: 'refuse'; readonly error: GraphQLError }
  /** Answer with this result instead (a dry run: its `rateLimit` fields alone), executing nothing else. */
  | { readonly kind: 'answer'; readonly result: ExecutionResult };

const EXECUTE: Verdict = { kind: 'execute' };

/** What a result that executed nothing shows. */
const NOT_EXECUTED: BudgetResponse = { incomplete: false, data: undefined, errors: null };

/**
 * One operation on its way through the request path, in the order the core owns: decide (inputs,
 * price, charge, decision) → refuse or answer a dry run → (the server executes) → settle →
 * annotate → report. An adapter calls `decide` when its server knows the operation, does what the
 * verdict says, and calls `finish` once with what was executed; `finish` settles, annotates and
 * reports exactly once however often it is called (a rejected execution and a late result, say).
 */
export class BudgetedOperation<TArgs> {
  readonly request: BudgetRequest<TArgs>;
  readonly #path: RequestPath<TArgs>;
  #budget: Budget | undefined;
  #finished: Promise<BudgetAnnotation | undefined> | undefined;

  constructor(path: RequestPath<TArgs>, request: BudgetRequest<TArgs>, budget?: Budget) {
    this.#path = path;
    this.request = request;
    this.#budget = budget;
  }

  /** The decision, once made (undefined before, or when a fault left the operation undecided). */
  get budget(): Budget | undefined {
    return this.#budget;
  }

  /**
   * Steps 1 to 4, and the answer of an operation that does not execute. `schema` is the schema the
   * operation executes against, for servers that hand it over with each operation (it is read
   * once); Apollo Server loads its schema when it starts.
   */
  async decide(schema?: GraphQLSchema): Promise<Verdict> {
    const path = this.#path;
    const { request } = this;
    if (schema !== undefined) path.load(schema, undefined, request.logger);
    let budget: Budget;
    try {
      budget = await path.decide(request);
    } catch (error) {
      const fault = path.faultOf(error, request);
      return fault === undefined ? EXECUTE : { kind: 'refuse', error: fault };
    }
    this.#budget = budget;
    const refusal = path.refusal(budget, request);
    if (refusal !== undefined) return { kind: 'refuse', error: refusal };
    const dryRun = await path.dryRun(budget, request);
    return dryRun === undefined ? EXECUTE : { kind: 'answer', result: dryRun };
  }

  /**
   * The whole answer of an operation the verdict says not to execute: the refusal or the dry run's
   * result, settled as nothing done, annotated and reported.
   */
  async answer(
    verdict: Exclude<Verdict, { kind: 'execute' }>,
  ): Promise<{ result: ExecutionResult; annotation: BudgetAnnotation | undefined }> {
    const result = verdict.kind === 'refuse' ? { errors: [verdict.error] } : verdict.result;
    const response = verdict.kind === 'refuse' ? NOT_EXECUTED : { ...NOT_EXECUTED, data: result.data };
    const annotation = await this.finish(response);
    return { result: annotated(result, annotation), annotation };
  }

  /**
   * What the response tells the caller before it is settled (the first part of an incremental
   * result): the charge taken up front, `actualQueryCost` null.
   */
  upFront(): BudgetAnnotation | undefined {
    const budget = this.#budget;
    if (budget === undefined) return undefined;
    return this.#path.annotation(budget, { charged: null, actual: null, executed: true, settleMs: 0 });
  }

  /**
   * Steps 5 to 7, once: settles the charge against what was executed, reports it, and returns what
   * the response tells the caller (undefined: nothing, as for an undecided or skipped operation).
   * `exposable` false leaves the response unannotated (a response a shared cache may keep).
   */
  finish(response: BudgetResponse, exposable = true): Promise<BudgetAnnotation | undefined> {
    this.#finished ??= this.#settle(response, exposable);
    return this.#finished;
  }

  /** The next charge of the same operation (a subscription's next event): a new operation, decided. */
  async again(): Promise<BudgetedOperation<TArgs>> {
    const budget = this.#budget;
    if (budget === undefined) return new BudgetedOperation(this.#path, this.request);
    return new BudgetedOperation(this.#path, this.request, await this.#path.recharge(budget, this.request));
  }

  /** The refusal of an operation decided by `again`, if it is refused. */
  refusal(): GraphQLError | undefined {
    return this.#budget === undefined ? undefined : this.#path.refusal(this.#budget, this.request);
  }

  async #settle(response: BudgetResponse, exposable: boolean): Promise<BudgetAnnotation | undefined> {
    const budget = this.#budget;
    if (budget === undefined) return undefined;
    const path = this.#path;
    const settlement: Settlement = await path.settle(budget, this.request, response);
    if (!exposable) budget.expose = false;
    const annotation = path.annotation(budget, settlement);
    path.report(this.request, budget, settlement);
    return annotation;
  }
}

/** The result with the caller's budget in `extensions.cost` (as it is when there is nothing to add). */
export function annotated<T extends ExecutionResult>(result: T, annotation: BudgetAnnotation | undefined): T {
  if (annotation === undefined) return result;
  return { ...result, extensions: { ...result.extensions, cost: annotation.cost } };
}
