import {
  GraphQLIncludeDirective,
  GraphQLSkipDirective,
  Kind,
  getDirectiveValues,
  isAbstractType,
  typeFromAST,
} from 'graphql';
import type {
  FieldNode,
  FragmentDefinitionNode,
  GraphQLObjectType,
  GraphQLSchema,
  InlineFragmentNode,
  SelectionNode,
  SelectionSetNode,
} from 'graphql';
import { CostAnalysisError, CostErrorCode } from './errors.js';
import type { ResolvedOperation } from './operation.js';

/** Response key → the field nodes merged under it, in document order. */
export type CollectedFields = ReadonlyMap<string, readonly FieldNode[]>;

/**
 * GraphQL spec "CollectFields" for one runtime object type over one or more selection sets (the
 * merged selection sets of a response key), honouring `@skip`/`@include` with the coerced
 * variables. Results are memoized per (type, selection sets), so a fragment reached along many
 * paths is expanded once. Every selection visited while collecting, and every field the caller
 * prices (`tick`), counts against `maxNodes`.
 */
export class FieldCollector {
  private readonly schema: GraphQLSchema;
  private readonly operation: ResolvedOperation;
  /** The most units of work `tick` allows. */
  readonly maxNodes: number;
  private readonly ids = new Map<SelectionSetNode, number>();
  private readonly cache = new Map<string, CollectedFields>();
  /** Selections visited so far, after fragment expansion. */
  visited = 0;

  constructor(schema: GraphQLSchema, operation: ResolvedOperation, maxNodes: number) {
    this.schema = schema;
    this.operation = operation;
    this.maxNodes = maxNodes;
  }

  /** A string naming the selection sets by identity, for memo keys. */
  keyOf(selectionSets: readonly SelectionSetNode[]): string {
    let key = String(this.idOf(selectionSets[0] as SelectionSetNode));
    for (let index = 1; index < selectionSets.length; index += 1) {
      key += `,${this.idOf(selectionSets[index] as SelectionSetNode)}`;
    }
    return key;
  }

  private idOf(selectionSet: SelectionSetNode): number {
    let id = this.ids.get(selectionSet);
    if (id === undefined) {
      id = this.ids.size;
      this.ids.set(selectionSet, id);
    }
    return id;
  }

  /** Counts one unit of work against `maxNodes`. */
  tick(): void {
    this.visited += 1;
    if (this.visited > this.maxNodes) throw tooLargeToPrice(this.maxNodes);
  }

  /** `key` is `${type.name}:${keyOf(selectionSets)}`, when the caller has it already. */
  collect(
    type: GraphQLObjectType,
    selectionSets: readonly SelectionSetNode[],
    key = `${type.name}:${this.keyOf(selectionSets)}`,
  ): CollectedFields {
    const cached = this.cache.get(key);
    if (cached !== undefined) return cached;
    const fields = new Map<string, FieldNode[]>();
    const visitedFragments = new Set<string>();
    for (const selectionSet of selectionSets) this.collectInto(type, selectionSet, fields, visitedFragments);
    this.cache.set(key, fields);
    return fields;
  }

  private collectInto(
    type: GraphQLObjectType,
    selectionSet: SelectionSetNode,
    fields: Map<string, FieldNode[]>,
    visitedFragments: Set<string>,
  ): void {
    for (const selection of selectionSet.selections) {
      this.tick();
      if (!this.isIncluded(selection)) continue;
      switch (selection.kind) {
        case Kind.FIELD: {
          const key = selection.alias?.value ?? selection.name.value;
          const group = fields.get(key);
          if (group === undefined) fields.set(key, [selection]);
          else group.push(selection);
          break;
        }
        case Kind.INLINE_FRAGMENT:
          if (this.matches(selection, type)) {
            this.collectInto(type, selection.selectionSet, fields, visitedFragments);
          }
          break;
        case Kind.FRAGMENT_SPREAD: {
          const name = selection.name.value;
          if (visitedFragments.has(name)) continue;
          visitedFragments.add(name);
          const fragment = this.operation.fragments.get(name);
          if (fragment !== undefined && this.matches(fragment, type)) {
            this.collectInto(type, fragment.selectionSet, fields, visitedFragments);
          }
          break;
        }
      }
    }
  }

  private isIncluded(selection: SelectionNode): boolean {
    const variables = this.operation.variables as Record<string, unknown>;
    if (getDirectiveValues(GraphQLSkipDirective, selection, variables)?.if === true) return false;
    return getDirectiveValues(GraphQLIncludeDirective, selection, variables)?.if !== false;
  }

  private matches(fragment: InlineFragmentNode | FragmentDefinitionNode, type: GraphQLObjectType): boolean {
    if (fragment.typeCondition === undefined) return true;
    const condition = typeFromAST(this.schema, fragment.typeCondition);
    if (condition === type) return true;
    return isAbstractType(condition) && this.schema.isSubType(condition, type);
  }
}

/** The error of an operation that needs more work than `maxNodes` allows. */
export function tooLargeToPrice(maxNodes: number): CostAnalysisError {
  return new CostAnalysisError(
    CostErrorCode.limit,
    `The operation is too large to price: it expands to more than ${maxNodes} selections ` +
      `(after fragment expansion), the limit. Simplify it or split it into several operations.`,
  );
}
