// The schema that docs/subscriptions.md imports as './schema.js': yours, with a Subscription type.
import type { GraphQLSchema } from 'graphql';

export declare const schema: GraphQLSchema;
