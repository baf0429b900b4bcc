import { isObjectType } from 'graphql';
import type { GraphQLAbstractType, GraphQLObjectType, GraphQLSchema, SelectionSetNode } from 'graphql';
import type { CollectedFields, FieldCollector } from './field-collector.js';

/** An object of a response's `data`. */
export type ResponseObject = Readonly<Record<string, unknown>>;

/**
 * What a response walk needs to read objects against the operation: the fields collected for an
 * object type (the collector's, cached by selection-set array so that walking every item of a list
 * builds no key), and the object types a response object under an interface or union may be.
 */
export class ResponseFields {
  /** The collector's answers by selection-set array and type, without building its string key per object. */
  readonly #collected = new Map<readonly SelectionSetNode[], Map<GraphQLObjectType, CollectedFields>>();
  /** Per selection sets and abstract type: the response keys that select `__typename` for every member. */
  readonly #typenameKeys = new Map<readonly SelectionSetNode[], Map<GraphQLAbstractType, string[]>>();

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly collector: FieldCollector,
  ) {}

  fieldsOf(type: GraphQLObjectType, selectionSets: readonly SelectionSetNode[]): CollectedFields {
    let byType = this.#collected.get(selectionSets);
    // Stryker disable next-line ConditionalExpression: a cache in front of the collector's own (keyed by the same type and selection sets): a miss collects the same fields and counts no work
    if (byType === undefined) {
      byType = new Map();
      this.#collected.set(selectionSets, byType);
    }
    let fields = byType.get(type);
    // Stryker disable next-line ConditionalExpression: a cache in front of the collector's own (keyed by the same type and selection sets): a miss collects the same fields and counts no work
    if (fields === undefined) {
      fields = this.collector.collect(type, selectionSets);
      byType.set(type, fields);
    }
    return fields;
  }

  /**
   * The object types a response object under an abstract type may be. A response key names the
   * runtime type only if it selects `__typename` for every possible type (otherwise its value may
   * be a field some member aliases to that key: a vendor named "Product"); the first such key
   * present names it (`__typename` itself first), and a name that is no possible type makes every
   * possible type a candidate. Without such a key: every possible type whose collected response
   * keys are exactly the object's (execution writes every collected key, so the runtime type always
   * is one), or all of them.
   */
  runtimeTypes(
    abstract: GraphQLAbstractType,
    selectionSets: readonly SelectionSetNode[],
    object: ResponseObject,
  ): readonly GraphQLObjectType[] {
    const schema = this.schema;
    const possible = schema.getPossibleTypes(abstract);
    for (const key of this.#typenameKeysOf(abstract, selectionSets, possible)) {
      const named = object[key];
      if (typeof named !== 'string') continue;
      const type = schema.getType(named);
      return isObjectType(type) && schema.isSubType(abstract, type) ? [type] : possible;
    }
    const candidates: GraphQLObjectType[] = [];
    for (const type of possible) {
      if (keysMatch(this.fieldsOf(type, selectionSets), object)) candidates.push(type);
    }
    return candidates.length > 0 ? candidates : possible;
  }

  /** The response keys that select `__typename` for every possible type, `__typename` itself first. */
  #typenameKeysOf(
    abstract: GraphQLAbstractType,
    selectionSets: readonly SelectionSetNode[],
    possible: readonly GraphQLObjectType[],
  ): readonly string[] {
    let byAbstract = this.#typenameKeys.get(selectionSets);
    if (byAbstract === undefined) {
      byAbstract = new Map();
      this.#typenameKeys.set(selectionSets, byAbstract);
    }
    let keys = byAbstract.get(abstract);
    if (keys === undefined) {
      keys = [];
      const [first, ...others] = possible;
      if (first !== undefined) {
        for (const [responseKey, nodes] of this.fieldsOf(first, selectionSets)) {
          if (nodes[0]?.name.value !== '__typename') continue;
          const everywhere = others.every(
            (type) => this.fieldsOf(type, selectionSets).get(responseKey)?.[0]?.name.value === '__typename',
          );
          if (everywhere) keys.push(responseKey);
        }
        keys.sort((a, b) => Number(b === '__typename') - Number(a === '__typename'));
      }
      byAbstract.set(abstract, keys);
    }
    return keys;
  }
}

function keysMatch(fields: CollectedFields, object: ResponseObject): boolean {
  let count = 0;
  for (const key in object) {
    if (!fields.has(key)) return false;
    count += 1;
  }
  return count === fields.size;
}
