import { checkKnownOptions } from '../known-options.js';
import { describeValue, requireNumber } from '../option-values.js';
import { apolloCostModel } from './apollo-model.js';
import { assertComplexityAvailable, complexityCostModel } from './complexity-bridge.js';
import type { CostModel, EngineSettings } from './cost-model.js';
import { githubCostModel } from './github-model.js';
import { ibmCostModel } from './ibm-model.js';
import type { CostAnalyzerOptions, CostModelName } from './types.js';

/** The cost models by the name `costModel` gives. */
const MODELS: Readonly<Record<CostModelName, CostModel>> = {
  ibm: ibmCostModel,
  apollo: apolloCostModel,
  github: githubCostModel,
};

/** The names `costModel` takes, in the order the documentation gives them. */
export const costModelNames: readonly CostModelName[] = Object.keys(MODELS) as CostModelName[];

/** The defaults of the engine's options: the same wherever the engine is used (plugin, CLI, functions). */
export const engineDefaults = {
  costModel: 'ibm',
  defaultListSize: 10,
  maxNodes: 10_000,
  maxListSize: 10_000,
  introspection: 'priced',
  strictListSizes: false,
  inferListSizes: false,
} as const satisfies CostAnalyzerOptions;

/** Every engine option's name (the type keeps the list complete). */
const ENGINE_OPTIONS = {
  costModel: true,
  supergraphSdl: true,
  defaultListSize: true,
  maxNodes: true,
  maxListSize: true,
  introspection: true,
  estimators: true,
  strictListSizes: true,
  inferListSizes: true,
} as const satisfies Record<keyof CostAnalyzerOptions, true>;

export const engineOptionNames: readonly string[] = Object.keys(ENGINE_OPTIONS);

/** Options of earlier releases, and what replaced them. */
const REPLACED: Readonly<Record<string, string>> = {
  introspectionIsFree: "`introspection: 'free'`",
  introspectionListSizes: 'nothing: introspection lists are always sized by the schema',
};

/**
 * The engine's options checked and completed with their defaults, the one place they are read:
 * `createCostAnalyzer`, `estimateCost`, the plugin and the CLI all come here. `others` names the
 * options the caller reads itself (besides the engine's); anything else is refused by name.
 *
 * @throws {TypeError | RangeError} naming the option.
 */
export function engineSettings(
  options: CostAnalyzerOptions,
  owner: string,
  others: readonly string[] = [],
): EngineSettings {
  if (options === null || typeof options !== 'object') throw new TypeError(`${owner}: options must be an object.`);
  for (const [name, replacement] of Object.entries(REPLACED)) {
    if (name in options) throw new TypeError(`${owner}: \`${name}\` was replaced by ${replacement}; remove it.`);
  }
  checkKnownOptions(owner, options, [...engineOptionNames, ...others]);
  const costModel = options.costModel ?? engineDefaults.costModel;
  if (!Object.hasOwn(MODELS, costModel)) {
    throw new RangeError(
      `${owner}: \`costModel\` must be ${alternatives(costModelNames)}; got ${describeValue(costModel)}.`,
    );
  }
  const defaultListSize = options.defaultListSize ?? engineDefaults.defaultListSize;
  requireNumber(owner, defaultListSize, '`defaultListSize`', { min: 0, allowInfinity: true });
  const maxNodes = options.maxNodes ?? engineDefaults.maxNodes;
  requireNumber(owner, maxNodes, '`maxNodes`', { min: 1, integer: true, allowInfinity: true });
  const maxListSize = options.maxListSize ?? engineDefaults.maxListSize;
  requireNumber(owner, maxListSize, '`maxListSize`', { min: 0, integer: true, allowInfinity: true });
  const introspection = options.introspection ?? engineDefaults.introspection;
  if (introspection !== 'priced' && introspection !== 'free') {
    throw new RangeError(
      `${owner}: \`introspection\` must be 'priced' or 'free'; got ${describeValue(introspection)}.`,
    );
  }
  const strictListSizes = options.strictListSizes ?? engineDefaults.strictListSizes;
  if (typeof strictListSizes !== 'boolean') {
    throw new TypeError(`${owner}: \`strictListSizes\` must be a boolean; got ${describeValue(strictListSizes)}.`);
  }
  const inferListSizes = options.inferListSizes ?? engineDefaults.inferListSizes;
  if (inferListSizes !== false && inferListSizes !== 'relay') {
    throw new RangeError(
      `${owner}: \`inferListSizes\` must be 'relay' or false; got ${describeValue(inferListSizes)}.`,
    );
  }
  const { supergraphSdl } = options;
  if (supergraphSdl !== undefined && typeof supergraphSdl !== 'string') {
    throw new TypeError(
      `${owner}: \`supergraphSdl\` must be a string (a supergraph's SDL); got ${typeof supergraphSdl}.`,
    );
  }
  return {
    model: modelOf(options, owner, costModel),
    supergraphSdl,
    defaultListSize,
    maxNodes,
    maxListSize,
    introspectionIsFree: introspection === 'free',
    strictListSizes,
    inferListSizes: inferListSizes === false ? undefined : inferListSizes,
  };
}

/** The cost model in use: the one `costModel` names, or graphql-query-complexity's `estimators`. */
function modelOf(options: CostAnalyzerOptions, owner: string, costModel: CostModelName): CostModel {
  const { estimators } = options;
  if (estimators === undefined) return MODELS[costModel];
  if (!Array.isArray(estimators) || estimators.length === 0 || estimators.some((item) => typeof item !== 'function')) {
    throw new TypeError(
      `${owner}: \`estimators\` must be a non-empty array of graphql-query-complexity estimator functions; got ${describeValue(estimators)}.`,
    );
  }
  if (costModel !== 'ibm') {
    throw new RangeError(
      `${owner}: \`estimators\` replace the cost directives, so they cannot be combined with \`costModel: '${costModel}'\`.`,
    );
  }
  assertComplexityAvailable(owner);
  return complexityCostModel(estimators);
}

/** `'a' or 'b'`, `'a', 'b' or 'c'`. */
function alternatives(names: readonly string[]): string {
  const quoted = names.map((name) => `'${name}'`);
  return quoted.length === 1 ? (quoted[0] as string) : `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}`;
}
