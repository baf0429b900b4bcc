/**
 * What the settlement's response walk costs on the in-process section's operations, on the built
 * package, outside any server: the response every server gives each operation is priced by the walk (`CostAnalyzer.actual`, what every response
 * took before the walk was compiled) and by the operation's compiled walk (`ResponsePlan.cost`,
 * what the plugin keeps with the estimate), each many times over, in 5 interleaved rounds; the
 * median per call is printed. The two must give the same cost, or the run stops.
 *
 *   npm run bench:response-walk
 */
import { buildSchema, parse } from 'graphql';
import { costDirectivesTypeDefs } from 'graphql-budget';
import { createPlanningAnalyzer } from '../src/cost/analyzer.js';
import { BOOKSTORE_OPERATIONS, BOOKSTORE_TYPE_DEFS } from './in-process/bookstore.js';
import { median } from './lib/stats.js';

const schema = buildSchema(costDirectivesTypeDefs + BOOKSTORE_TYPE_DEFS);
const analyzer = createPlanningAnalyzer(schema);
const ROUNDS = 5;

/** µs per call of `price`, over `calls` calls. */
function timed(calls: number, price: () => unknown): number {
  const started = performance.now();
  for (let call = 0; call < calls; call++) price();
  return ((performance.now() - started) * 1000) / calls;
}

for (const operation of BOOKSTORE_OPERATIONS.filter((candidate) => candidate.id !== 'variable')) {
  const document = parse(operation.query);
  // The response every server gives it (the section checks each answer against it).
  const result = { data: JSON.parse(operation.dataJson) as Record<string, unknown> };
  const plan = analyzer.plan({ document }, 5000);
  if (plan === undefined) throw new Error(`${operation.label}: no compiled walk`);
  const walked = analyzer.actual({ document, data: result.data });
  const planned = plan.cost(result.data);
  if (walked.typeCost !== planned.typeCost || walked.fieldCost !== planned.fieldCost) {
    throw new Error(
      `${operation.label}: the walk gives ${JSON.stringify(walked)}, the plan ${JSON.stringify(planned)}`,
    );
  }
  const walks: number[] = [];
  const plans: number[] = [];
  const calls = operation.id === 'small' ? 20_000 : 500;
  for (let round = 0; round < ROUNDS; round++) {
    walks.push(timed(calls, () => analyzer.actual({ document, data: result.data })));
    plans.push(timed(calls * 10, () => plan.cost(result.data)));
  }
  console.log(
    `${operation.label} (cost ${walked.typeCost + walked.fieldCost}): walk ${median(walks).toFixed(2)} µs, ` +
      `compiled walk ${median(plans).toFixed(2)} µs per response (medians of ${ROUNDS} rounds)`,
  );
}
