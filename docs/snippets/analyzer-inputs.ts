// What the cost-engine fragments of docs/cost-model.md assume: a schema, one request to price, the
// response it got, and, behind a gateway, the API schema and the supergraph SDL.
import type { DocumentNode, ExecutionResult, GraphQLSchema } from 'graphql';

export { createCostAnalyzer } from 'graphql-budget';

export declare const schema: GraphQLSchema;
export declare const document: DocumentNode;
export declare const operationName: string | undefined;
export declare const variables: Record<string, unknown>;
export declare const response: ExecutionResult;

export declare const apiSchema: GraphQLSchema;
export declare const supergraphSdl: string;
