import {
  DirectiveLocation,
  GraphQLBoolean,
  GraphQLDirective,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLSchema,
  GraphQLString,
  printSchema,
} from 'graphql';

/**
 * `@cost(weight: String!)`, IBM "GraphQL Cost Directives" spec, "@cost": the weight a type, field,
 * argument, input field, enum or scalar adds to the cost of an operation. The weight is a string
 * holding a number (`"2.0"`, `"-3"`); Apollo Federation's variant `@cost(weight: Int!)` is read
 * the same way by the cost engine.
 */
export const costDirective = new GraphQLDirective({
  name: 'cost',
  description: 'The weight this element adds to the cost of an operation (IBM GraphQL Cost Directives spec).',
  locations: [
    DirectiveLocation.ARGUMENT_DEFINITION,
    DirectiveLocation.ENUM,
    DirectiveLocation.FIELD_DEFINITION,
    DirectiveLocation.INPUT_FIELD_DEFINITION,
    DirectiveLocation.OBJECT,
    DirectiveLocation.SCALAR,
  ],
  args: {
    weight: {
      type: new GraphQLNonNull(GraphQLString),
      description: 'A number written as a string, e.g. "2.0"; may be negative.',
    },
  },
});

/**
 * `@listSize(...)`, IBM "GraphQL Cost Directives" spec, "@listSize": how many items a list field returns
 * (`assumedSize`, or the largest `slicingArguments` value supplied), or, with `sizedFields`, how
 * many items the named list fields of the returned object hold (connections).
 */
export const listSizeDirective = new GraphQLDirective({
  name: 'listSize',
  description:
    'The size of the list this field returns, or of the lists named in sizedFields (IBM GraphQL Cost Directives spec).',
  locations: [DirectiveLocation.FIELD_DEFINITION],
  args: {
    assumedSize: {
      type: GraphQLInt,
      description: 'Size assumed when no slicing argument has a value.',
    },
    slicingArguments: {
      type: new GraphQLList(new GraphQLNonNull(GraphQLString)),
      description: 'Int arguments (or input-object paths such as "filter.max") that bound the size.',
    },
    sizedFields: {
      type: new GraphQLList(new GraphQLNonNull(GraphQLString)),
      description: 'List fields of the returned type that the size applies to instead of this field.',
    },
    requireOneSlicingArgument: {
      type: GraphQLBoolean,
      defaultValue: true,
      description: 'Whether exactly one slicing argument must be supplied.',
    },
  },
});

/** The SDL of `@cost` and `@listSize`, to add to a schema's typeDefs (same text as `schema/cost.graphql`). */
export const costDirectivesTypeDefs: string = `${printSchema(new GraphQLSchema({ directives: [costDirective, listSizeDirective] }))}\n`;
