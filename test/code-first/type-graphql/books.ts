// The books schema as TypeGraphQL writes it: classes and decorators, the cost directives given with
// `@Directive` (which TypeGraphQL writes into the AST nodes it builds) and, for the type, with
// `@Extensions` (which it copies into `extensions`). Legacy decorators with metadata, as
// TypeGraphQL needs them: this folder's tsconfig.json turns them on, for tsc and for Vitest alike.
import 'reflect-metadata';
import type { GraphQLSchema } from 'graphql';
import { Arg, Directive, Extensions, Field, Int, ObjectType, Query, Resolver, buildSchemaSync } from 'type-graphql';

@ObjectType()
@Extensions({ directives: { cost: { weight: '2' } } })
class Book {
  @Field()
  title!: string;
}

@Resolver()
class BooksResolver {
  @Query(() => [Book])
  @Directive('@listSize(slicingArguments: ["first"])')
  @Directive('@cost(weight: "3")')
  books(
    @Arg('first', () => Int, { defaultValue: 10 }) first: number,
    @Arg('filter', () => String, { nullable: true })
    @Directive('@cost(weight: "4")')
    filter: string | null,
  ): Book[] {
    return Array.from({ length: first }, (_, index) => ({ title: `${filter ?? 'Book'} ${index}` }));
  }
}

/** The schema, built once per call (TypeGraphQL keeps its metadata globally). */
export function typeGraphQLBooksSchema(): GraphQLSchema {
  return buildSchemaSync({ resolvers: [BooksResolver], validate: false });
}
