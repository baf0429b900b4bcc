// Imported first by bench/run.ts (and inherited by the HTTP server processes): the benchmarks run
// as servers are deployed, with NODE_ENV=production, unless NODE_ENV is set. graphql-js reads it
// once when it loads; in development mode its type checks take a slower path that would weigh on
// every variant.
process.env.NODE_ENV ??= 'production';

export const nodeEnv: string = process.env.NODE_ENV;
