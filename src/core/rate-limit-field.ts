import {
  GraphQLIncludeDirective,
  GraphQLSkipDirective,
  Kind,
  execute,
  getArgumentValues,
  getDirectiveValues,
  getNamedType,
  getVariableValues,
  isInterfaceType,
  isObjectType,
  visit,
  type ASTNode,
  type DirectiveNode,
  type GraphQLNamedType,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type ExecutionResult,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionNode,
  type SelectionSetNode,
} from 'graphql';
import { contextReading, keepContextReading } from './context-state.js';

/**
 * A `rateLimit` field in GitHub's shape, for a client to ask what it has left: merge
 * `rateLimitTypeDefs` and `rateLimitResolvers` into your schema (after `costDirectivesTypeDefs`;
 * the SDL extends your `Query`). Reading it costs nothing extra (`@cost(weight: "0")` on the field
 * and the type) and shows the caller's bucket after this operation's charge. With
 * `dryRun: true` the operation is priced and nothing is charged and nothing else is executed: the
 * response holds `rateLimit` alone, with `cost` what the same operation would be charged.
 */
export const rateLimitTypeDefs = `"""
The caller's query budget (graphql-budget), after this operation's charge: GitHub's rateLimit shape.
Numbers are cost tokens; they are whole numbers whenever costs and the policy are.
"""
type RateLimit @cost(weight: "0") {
  "What this operation costs (its estimate; a refund after execution may lower what is finally charged)."
  cost: Float!
  "The most tokens the budget holds."
  limit: Float!
  "Tokens left after this operation's charge, rounded down."
  remaining: Float!
  "limit - remaining."
  used: Float!
  "When the budget is full again, as an ISO-8601 instant (now when it is full)."
  resetAt: String!
}

extend type Query {
  """
  The caller's query budget. With dryRun: true the operation is priced but not charged, and no other
  field of it runs: the response holds rateLimit alone.
  """
  rateLimit(dryRun: Boolean = false): RateLimit @cost(weight: "0")
}
`;

/** What the `rateLimit` field answers. */
export interface RateLimitView {
  cost: number;
  limit: number;
  remaining: number;
  used: number;
  resetAt: string;
}

/** What the store said about the binding bucket after a request's charge, and when. */
export interface RateLimitReading {
  cost: number;
  capacity: number;
  remaining: number;
  resetAfterMs: number;
  /** `Date.now()` when the store answered. */
  now: number;
}

/** The plugin records the reading of a request (keyed by Apollo's per-request context value). */
export function setRateLimitView(contextValue: object, reading: RateLimitReading): void {
  keepContextReading(contextValue, reading);
}

function viewOf(contextValue: unknown): RateLimitView | null {
  if (typeof contextValue !== 'object' || contextValue === null) return null;
  // Built only when a `rateLimit` field is resolved: formatting `resetAt` on every request would cost them all.
  const reading = contextReading(contextValue) as RateLimitReading | undefined;
  return reading === undefined ? null : rateLimitView(reading);
}

/**
 * Resolvers of `rateLimit`: the budget the plugin decided for this request, or null when the
 * plugin did not decide one (skipped, not installed, or the store did not answer).
 */
export const rateLimitResolvers = {
  Query: {
    rateLimit: (_source: unknown, _args: unknown, contextValue: unknown): RateLimitView | null => viewOf(contextValue),
  },
};

/** The view of a bucket after a charge of `cost`. */
function rateLimitView(input: RateLimitReading): RateLimitView {
  const remaining = Math.max(0, Math.floor(input.remaining));
  const resetAfterMs = Math.max(input.resetAfterMs, 0);
  return {
    cost: input.cost,
    limit: input.capacity,
    remaining,
    used: Math.max(0, input.capacity - remaining),
    resetAt: new Date(input.now + resetAfterMs).toISOString(),
  };
}

/**
 * The `rateLimit` root fields of a query that asks for a dry run, or undefined when it does not: a
 * `rateLimit` field that execution would resolve (`@skip`/`@include` honoured, fragments on the
 * root followed) with `dryRun` true, read from the coerced variables as execution reads the
 * argument (a variable's default applies). Undefined as well when the variables do not coerce
 * (execution then runs nothing).
 */
export function dryRunFields(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Readonly<Record<string, unknown>> | undefined,
): FieldNode[] | undefined {
  if (operation.operation !== 'query') return undefined;
  const definition = schema.getQueryType()?.getFields().rateLimit;
  if (definition === undefined || !mentionsRateLimit(document)) return undefined;
  const values = dryRunValues(schema, document, operation, variables);
  if (values === undefined) return undefined;
  const fragments = fragmentsOf(document);
  const fields: FieldNode[] = [];
  let dryRun = false;
  const included = (selection: SelectionNode): boolean =>
    getDirectiveValues(GraphQLSkipDirective, selection, values)?.if !== true &&
    getDirectiveValues(GraphQLIncludeDirective, selection, values)?.if !== false;
  const visit = (selectionSet: SelectionSetNode, seen: Set<string>): void => {
    for (const selection of selectionSet.selections) {
      if (!included(selection)) continue;
      if (selection.kind === Kind.FIELD) {
        if (selection.name.value !== 'rateLimit') continue;
        fields.push(selection);
        try {
          if (getArgumentValues(definition, selection, values).dryRun === true) dryRun = true;
        } catch {
          // Invalid arguments: execution reports them.
        }
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        visit(selection.selectionSet, seen);
      } else if (!seen.has(selection.name.value)) {
        seen.add(selection.name.value);
        const fragment = fragments.get(selection.name.value);
        if (fragment !== undefined) visit(fragment.selectionSet, seen);
      }
    }
  };
  visit(operation.selectionSet, new Set());
  return dryRun ? fields : undefined;
}

/**
 * A `rateLimit(dryRun: true)` that execution would read below the root (under a field that returns
 * the query type again, `me { rateLimit(dryRun: true) { … } }`), or undefined. A dry run answers
 * with `rateLimit` alone at the root, so such an operation cannot be one; the plugin refuses it
 * rather than run it in full and charge a caller who asked for a dry run.
 */
export function nestedDryRun(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Readonly<Record<string, unknown>> | undefined,
): FieldNode | undefined {
  const queryType = schema.getQueryType();
  const definition = queryType?.getFields().rateLimit;
  if (queryType === undefined || queryType === null || definition === undefined || !mentionsRateLimit(document)) {
    return undefined;
  }
  const values = dryRunValues(schema, document, operation, variables);
  if (values === undefined) return undefined;
  const fragments = fragmentsOf(document);
  const seen = new Set<string>();
  const visit = (
    type: GraphQLNamedType | undefined,
    selectionSet: SelectionSetNode,
    depth: number,
  ): FieldNode | undefined => {
    for (const selection of selectionSet.selections) {
      if (
        getDirectiveValues(GraphQLSkipDirective, selection, values)?.if === true ||
        getDirectiveValues(GraphQLIncludeDirective, selection, values)?.if === false
      ) {
        continue;
      }
      let found: FieldNode | undefined;
      if (selection.kind === Kind.FIELD) {
        if (type === queryType && selection.name.value === 'rateLimit' && depth > 0) {
          try {
            if (getArgumentValues(definition, selection, values).dryRun === true) return selection;
          } catch {
            // Invalid arguments: execution reports them.
          }
        }
        const field = isObjectType(type) || isInterfaceType(type) ? type.getFields()[selection.name.value] : undefined;
        if (field !== undefined && selection.selectionSet !== undefined) {
          found = visit(getNamedType(field.type), selection.selectionSet, depth + 1);
        }
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        const on = selection.typeCondition === undefined ? type : schema.getType(selection.typeCondition.name.value);
        found = visit(on, selection.selectionSet, depth);
      } else if (!seen.has(`${selection.name.value}@${depth}`)) {
        seen.add(`${selection.name.value}@${depth}`);
        const fragment = fragments.get(selection.name.value);
        if (fragment !== undefined)
          found = visit(schema.getType(fragment.typeCondition.name.value), fragment.selectionSet, depth);
      }
      if (found !== undefined) return found;
    }
    return undefined;
  };
  const root = schema.getRootType(operation.operation) ?? undefined;
  return visit(root, operation.selectionSet, 0);
}

/**
 * The coerced values of the variables that decide a dry run: those of `rateLimit`'s arguments and
 * of `@skip` / `@include` (no other variable is read, however large); undefined when they do not
 * coerce (execution then runs nothing).
 */
function dryRunValues(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Readonly<Record<string, unknown>> | undefined,
): Record<string, unknown> | undefined {
  let names = deciding.get(operation);
  if (names === undefined) {
    const found = new Set<string>();
    const collect = (node: ASTNode) =>
      visit(node, {
        Variable: (variable) => void found.add(variable.name.value),
      });
    const visitor = {
      Field: (field: FieldNode) => {
        if (field.name.value === 'rateLimit') for (const arg of field.arguments ?? []) collect(arg);
      },
      Directive: (directive: DirectiveNode) => {
        if (directive.name.value === 'skip' || directive.name.value === 'include') collect(directive);
      },
    };
    for (const definition of document.definitions) visit(definition, visitor);
    names = found;
    deciding.set(operation, names);
  }
  const definitions = (operation.variableDefinitions ?? []).filter((definition) =>
    (names as Set<string>).has(definition.variable.name.value),
  );
  const coerced = getVariableValues(schema, definitions, variables ?? {}, { maxErrors: 1 });
  return coerced.errors === undefined ? coerced.coerced : undefined;
}

/** Per operation node: the names of the variables that decide a dry run. */
const deciding = new WeakMap<OperationDefinitionNode, Set<string>>();

/** Whether a `rateLimit` field appears anywhere in the document (most documents: no, at once). */
function mentionsRateLimit(document: DocumentNode): boolean {
  let known = mentions.get(document);
  if (known === undefined) {
    known = document.loc === undefined ? true : document.loc.source.body.includes('rateLimit');
    mentions.set(document, known);
  }
  return known;
}

const mentions = new WeakMap<DocumentNode, boolean>();

/** Runs only the given `rateLimit` fields of the operation (a dry run's whole response). */
export async function executeRateLimitOnly(input: {
  schema: GraphQLSchema;
  document: DocumentNode;
  operation: OperationDefinitionNode;
  fields: readonly FieldNode[];
  variables: Readonly<Record<string, unknown>> | undefined;
  contextValue: unknown;
}): Promise<ExecutionResult> {
  const operation: OperationDefinitionNode = {
    ...input.operation,
    selectionSet: { kind: Kind.SELECTION_SET, selections: input.fields },
  };
  const document: DocumentNode = {
    kind: Kind.DOCUMENT,
    definitions: [operation, ...fragmentsOf(input.document).values()],
  };
  return execute({
    schema: input.schema,
    document,
    // As given: a copy would drop a JSON `__proto__` key, an own property of the parsed variables.
    variableValues: input.variables,
    contextValue: input.contextValue,
  });
}

function fragmentsOf(document: DocumentNode): Map<string, FragmentDefinitionNode> {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  return fragments;
}
