import { Kind, getOperationAST, getVariableValues } from 'graphql';
import type {
  DocumentNode,
  FragmentDefinitionNode,
  GraphQLObjectType,
  OperationDefinitionNode,
  VariableDefinitionNode,
} from 'graphql';
import type { GraphQLSchema } from 'graphql';
import { CostAnalysisError, CostErrorCode } from './errors.js';

/** One operation of a document, ready to be priced: its root type, fragments and coerced variables. */
export interface ResolvedOperation {
  readonly operation: OperationDefinitionNode;
  readonly rootType: GraphQLObjectType;
  readonly fragments: ReadonlyMap<string, FragmentDefinitionNode>;
  /** The variables pricing reads, coerced by graphql-js, with the operation's defaults applied. */
  readonly variables: Readonly<Record<string, unknown>>;
  /** The request's variables as sent (checked to coerce), for a model that reads what was written. */
  readonly rawVariables: Readonly<Record<string, unknown>>;
}

export interface OperationRequest {
  readonly document: DocumentNode;
  readonly operationName?: string | null | undefined;
  readonly operation?: OperationDefinitionNode | undefined;
  readonly variables?: Readonly<Record<string, unknown>> | null | undefined;
}

/**
 * Picks the operation to price (the given `operation`, else the one `operationName` names) and coerces the raw request variables with graphql-js
 * (`getVariableValues`, GraphQL spec "CoerceVariableValues"), as execution will.
 *
 * @throws {CostAnalysisError} `OPERATION_RESOLUTION_FAILURE` when no single operation matches;
 * `BAD_USER_INPUT` when the variables do not fit the operation's variable definitions.
 * @throws {TypeError} when the given `operation` is not one of the document's definitions.
 */
export function resolveOperation(
  schema: GraphQLSchema,
  request: OperationRequest,
  priced: (operation: OperationDefinitionNode) => readonly VariableDefinitionNode[] = (operation) =>
    operation.variableDefinitions ?? [],
): ResolvedOperation {
  const operation =
    request.operation === undefined
      ? getOperationAST(request.document, request.operationName ?? undefined)
      : givenOperation(request.document, request.operation);
  if (!operation) {
    throw new CostAnalysisError(
      CostErrorCode.unknownOperation,
      request.operationName
        ? `Unknown operation named "${request.operationName}".`
        : 'The document must hold exactly one operation, or name the one to run.',
    );
  }
  const rootType = schema.getRootType(operation.operation);
  if (!rootType) {
    throw new CostAnalysisError(
      CostErrorCode.unknownOperation,
      `The schema does not support ${operation.operation} operations.`,
      operation,
    );
  }
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of request.document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const raw = request.variables ?? {};
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    throw new CostAnalysisError(CostErrorCode.invalidVariables, 'Variables must be a JSON object.');
  }
  // Only the variables that can change the price are read: a large one that prices nothing costs nothing here.
  const coerced = getVariableValues(schema, priced(operation), raw, { maxErrors: 5 });
  if (coerced.errors !== undefined) {
    const messages = coerced.errors.map((error) =>
      /call stack/i.test(error.message) ? 'A variable value is nested too deeply to read.' : error.message,
    );
    throw new CostAnalysisError(CostErrorCode.invalidVariables, messages.join(' '), operation.variableDefinitions);
  }
  return { operation, rootType, fragments, variables: coerced.coerced, rawVariables: raw };
}

/** The given operation, checked to be one of the document's definitions. */
function givenOperation(document: DocumentNode, operation: OperationDefinitionNode): OperationDefinitionNode {
  if (operationIndex(document, operation) === -1) {
    throw new TypeError("The cost engine was given an `operation` that is not one of the `document`'s definitions.");
  }
  return operation;
}

/** Where the operation stands among the document's definitions, or -1 if it is not one of them. */
export function operationIndex(document: DocumentNode, operation: OperationDefinitionNode): number {
  const index = document.definitions.indexOf(operation);
  return index !== -1 && operation.kind === Kind.OPERATION_DEFINITION ? index : -1;
}
