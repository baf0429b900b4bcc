import { createHash } from 'node:crypto';
import type { GraphQLSchema } from 'graphql';
import { createCostAnalyzer, type CostAnalyzer } from '../cost/analyzer.js';
import type { CostAnalyzerOptions } from '../cost/types.js';

/** Analyzers kept per schema: the least recently used beyond this are dropped. */
export const MAX_ANALYZERS_PER_SCHEMA = 16;

/**
 * Cost analyzers for callers that pass their options on every call (`chargeOperation`): one per
 * schema and per options' values, not per options object, so options written inline cost nothing
 * more on the next call; at most `MAX_ANALYZERS_PER_SCHEMA` per schema (least recently used
 * dropped), and a schema that is dropped takes its analyzers along.
 */
export class AnalyzerCache {
  readonly #bySchema = new WeakMap<GraphQLSchema, Map<string, CostAnalyzer>>();
  /** Functions in options (estimators) named by identity. */
  readonly #functionIds = new WeakMap<object, number>();
  #nextFunctionId = 0;

  analyzerOf(schema: GraphQLSchema, options: CostAnalyzerOptions | undefined): CostAnalyzer {
    let analyzers = this.#bySchema.get(schema);
    if (analyzers === undefined) {
      analyzers = new Map();
      this.#bySchema.set(schema, analyzers);
    }
    const key = this.#keyOf(options);
    let analyzer = analyzers.get(key);
    if (analyzer === undefined) {
      analyzer = createCostAnalyzer(schema, options);
      if (analyzers.size >= MAX_ANALYZERS_PER_SCHEMA) {
        const oldest = analyzers.keys().next();
        if (oldest.done !== true) analyzers.delete(oldest.value);
      }
    } else {
      analyzers.delete(key); // most recently used last
    }
    analyzers.set(key, analyzer);
    return analyzer;
  }

  /** The options' values as a string: every own option, functions by identity, long strings by hash. */
  #keyOf(options: CostAnalyzerOptions | undefined): string {
    if (options === undefined || options === null || typeof options !== 'object') return String(options);
    const parts: string[] = [];
    for (const name of Object.keys(options).sort()) {
      parts.push(`${name}=${this.#valueKey((options as Record<string, unknown>)[name])}`);
    }
    return parts.join('\u0000');
  }

  #valueKey(value: unknown): string {
    if (typeof value === 'function') return `f${this.#functionId(value)}`;
    if (Array.isArray(value)) return `[${value.map((item) => this.#valueKey(item)).join(',')}]`;
    if (typeof value === 'string' && value.length > 64) return `#${createHash('sha256').update(value).digest('hex')}`;
    if (typeof value === 'number') return Object.is(value, -0) ? '0' : String(value);
    return typeof value === 'string' ? JSON.stringify(value) : String(value);
  }

  #functionId(fn: object): number {
    let id = this.#functionIds.get(fn);
    if (id === undefined) {
      id = this.#nextFunctionId++;
      this.#functionIds.set(fn, id);
    }
    return id;
  }
}
