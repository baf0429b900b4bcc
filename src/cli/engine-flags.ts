import { costModelNames } from '../cost/engine-options.js';
import type { CostModelName } from '../cost/types.js';
import { UsageError } from './errors.js';

/** The values `--infer-list-sizes` takes (the plugin's `inferListSizes`). */
const INFERENCES = ['relay'] as const;

/** `--model`: one of the cost models' names, or undefined when absent. @throws {UsageError} naming the option. */
export function modelOption(command: string, value: string | undefined): CostModelName | undefined {
  if (value === undefined) return undefined;
  if ((costModelNames as readonly string[]).includes(value)) return value as CostModelName;
  throw new UsageError(
    `--model must be ${oneOf(costModelNames)}; got ${JSON.stringify(value)} (see graphql-budget ${command} --help).`,
  );
}

/** `--infer-list-sizes`: `relay`, or undefined when absent. @throws {UsageError} naming the option. */
export function inferenceOption(command: string, value: string | undefined): 'relay' | undefined {
  if (value === undefined) return undefined;
  if ((INFERENCES as readonly string[]).includes(value)) return value as 'relay';
  throw new UsageError(
    `--infer-list-sizes must be ${oneOf(INFERENCES)}; got ${JSON.stringify(value)} (see graphql-budget ${command} --help).`,
  );
}

/** `a`, `a or b`, `a, b or c`. */
function oneOf(names: readonly string[]): string {
  return names.length === 1 ? (names[0] as string) : `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
}
