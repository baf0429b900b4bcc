import {
  GraphQLSchema,
  KnownArgumentNamesRule,
  KnownDirectivesRule,
  KnownTypeNamesRule,
  LoneSchemaDefinitionRule,
  PossibleTypeExtensionsRule,
  ProvidedRequiredArgumentsRule,
  UniqueArgumentDefinitionNamesRule,
  UniqueArgumentNamesRule,
  UniqueDirectiveNamesRule,
  UniqueDirectivesPerLocationRule,
  UniqueEnumValueNamesRule,
  UniqueFieldDefinitionNamesRule,
  UniqueInputFieldNamesRule,
  UniqueOperationTypesRule,
  UniqueTypeNamesRule,
  ValidationContext,
  TypeInfo,
  visit,
  visitInParallel,
} from 'graphql';
import type { ASTVisitor, DocumentNode, GraphQLError } from 'graphql';

/**
 * The rules graphql-js's `buildASTSchema` checks SDL with (its `specifiedSDLRules`; the two it
 * keeps for directives only are included in `KnownArgumentNamesRule` and
 * `ProvidedRequiredArgumentsRule`, whose other visitors find nothing in SDL).
 */
const SDL_RULES: readonly ((context: never) => ASTVisitor)[] = [
  LoneSchemaDefinitionRule,
  UniqueOperationTypesRule,
  UniqueTypeNamesRule,
  UniqueEnumValueNamesRule,
  UniqueFieldDefinitionNamesRule,
  UniqueArgumentDefinitionNamesRule,
  UniqueDirectiveNamesRule,
  KnownTypeNamesRule,
  KnownDirectivesRule,
  UniqueDirectivesPerLocationRule,
  PossibleTypeExtensionsRule,
  KnownArgumentNamesRule,
  UniqueArgumentNamesRule,
  UniqueInputFieldNamesRule,
  ProvidedRequiredArgumentsRule,
];

/**
 * What `buildASTSchema` would refuse in an SDL document, as errors that keep their locations
 * (`buildASTSchema` joins the messages into one plain `Error` and drops them). The document
 * extends nothing: only the built-in scalars and directives are known besides its own.
 */
export function validateSdl(document: DocumentNode): GraphQLError[] {
  const errors: GraphQLError[] = [];
  const builtIns = new GraphQLSchema({});
  const context = new ValidationContext(builtIns, document, new TypeInfo(builtIns), (error) => errors.push(error));
  visit(document, visitInParallel(SDL_RULES.map((rule) => rule(context as never))));
  return errors;
}
