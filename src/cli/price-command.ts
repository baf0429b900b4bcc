import { getVariableValues, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { createCostAnalyzer } from '../cost/analyzer.js';
import { CostAnalysisError, CostErrorCode, CostSchemaError } from '../cost/errors.js';
import { queryBudgetDefaults } from '../core/options.js';
import { numberOption, parseCommandLine } from './arguments.js';
import { costSchemaInputError } from './coordinates.js';
import { inferenceOption, modelOption } from './engine-flags.js';
import { InputError, isStackOverflow, UsageError } from './errors.js';
import { HELP } from './help.js';
import type { CliIo } from './io.js';
import { errorLine, whereIs } from './locations.js';
import { loadOperations, nestingOf } from './operation-loader.js';
import { pluginPrice, type PricingOptions } from './plugin-price.js';
import { byCost, priceJson, priceTable, type PricedOperation } from './price-report.js';
import { loadSchema } from './schema-loader.js';
import { parseJson, readSource } from './source-files.js';
import { resolve } from 'node:path';

const OPTIONS = {
  schema: { type: 'string', short: 's', multiple: true },
  json: { type: 'boolean' },
  top: { type: 'string' },
  'max-cost': { type: 'string' },
  variables: { type: 'string' },
  model: { type: 'string' },
  'infer-list-sizes': { type: 'string' },
  'default-list-size': { type: 'string' },
  'max-list-size': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/**
 * `graphql-budget price`: prices the operations the positional arguments name against the schema,
 * as the plugin charges them before they run (`pluginPrice`), and prints a table or JSON.
 *
 * @returns the exit code: 0, 1 when an operation costs more than `--max-cost`, 2 when an operation
 * could not be priced (its errors are on standard error, the others are still reported).
 * @throws {UsageError | InputError} when nothing can be priced.
 */
export function priceCommand(args: readonly string[], io: CliIo): number {
  const { values, positionals } = parseCommandLine('price', args, OPTIONS);
  if (values.help === true) {
    io.out(HELP.price);
    return 0;
  }
  const schemaPaths = values.schema ?? [];
  if (schemaPaths.length === 0)
    throw new UsageError('price needs --schema <path or glob> (see graphql-budget price --help).');
  if (positionals.length === 0) {
    throw new UsageError(
      'price needs operations: .graphql files, directories, globs or a persisted query manifest (see graphql-budget price --help).',
    );
  }
  const options = pricingOptions(values);
  const top = numberOption('price', 'top', values.top, { min: 1, integer: true });
  const maxCost = numberOption('price', 'max-cost', values['max-cost'], { min: 0 });
  const variables = values.variables === undefined ? {} : readVariables(values.variables, io.cwd);

  const loaded = loadSchema(schemaPaths, io.cwd);
  for (const warning of loaded.warnings) io.err(`warning: ${warning}\n`);
  try {
    // The cost directives are read before any operation: a server with invalid ones does not start.
    createCostAnalyzer(loaded.schema, {
      supergraphSdl: loaded.supergraphSdl,
      costModel: options.costModel ?? 'ibm',
      inferListSizes: options.inferListSizes ?? false,
    });
  } catch (error) {
    if (error instanceof CostSchemaError) throw costSchemaInputError(error, loaded.located, loaded.files);
    throw error;
  }
  const { operations, errors } = loadOperations(positionals, io.cwd, loaded.schema);
  const problems = [...errors];
  const rows: PricedOperation[] = [];
  for (const operation of operations) {
    try {
      // The server refuses an operation whose variables do not coerce, those that price nothing too.
      checkVariables(loaded.schema, operation.operation, variables);
      const price = pluginPrice(loaded.schema, loaded.supergraphSdl, options, {
        document: operation.document,
        operation: operation.operation,
        variables,
        breakdown: top !== undefined,
      });
      rows.push({ file: operation.file, operation: operation.name, ...price });
    } catch (error) {
      if (isStackOverflow(error)) {
        const where = whereIs(operation.operation) ?? operation.file;
        const { name, depth } = nestingOf(operation.operation);
        problems.push(
          `${where}: ${name} or its variables are nested too deeply to price (the operation: ${depth} levels).`,
        );
        continue;
      }
      if (!(error instanceof CostAnalysisError)) throw error;
      const hint = error.code === CostErrorCode.invalidVariables ? ' Give the values with --variables <file>.' : '';
      problems.push(errorLine(error, whereIs(operation.operation) ?? operation.file) + hint);
    }
  }
  if (rows.length === 0 && problems.length === 0) {
    throw new InputError([`${positionals.join(', ')}: no operation found.`]);
  }
  rows.sort(byCost);
  const over = maxCost === undefined ? [] : rows.filter((row) => row.cost > maxCost);
  const overLines = over.map(
    (row) => `over --max-cost ${maxCost}: ${row.file} ${row.operation ?? '(anonymous)'} costs ${row.cost}\n`,
  );
  if (values.json === true) {
    io.out(priceJson(rows, top));
    for (const line of overLines) io.err(line);
  } else {
    const lines = rows.length === 0 ? [] : priceTable(rows, top);
    // The defaults are the plugin's: the cost engine's 'ibm' and 10, the plugin's own maxListSize.
    const maxListSize = options.maxListSize ?? queryBudgetDefaults.maxListSize;
    const inference = options.inferListSizes === undefined ? '' : `, inferListSizes ${options.inferListSizes}`;
    const model = `costModel ${options.costModel ?? 'ibm'}${inference}, defaultListSize ${options.defaultListSize ?? 10}, maxListSize ${maxListSize}`;
    const count = `${rows.length} operation${rows.length === 1 ? '' : 's'}`;
    if (lines.length > 0) lines.push('');
    lines.push(`${count} priced against ${loaded.files.join(', ')} (${model}).`);
    io.out(`${lines.join('\n')}\n`);
    for (const line of overLines) io.out(line);
  }
  for (const problem of problems) io.err(`${problem}\n`);
  if (problems.length > 0) return 2;
  return over.length > 0 ? 1 : 0;
}

function pricingOptions(values: {
  model?: string | undefined;
  'infer-list-sizes'?: string | undefined;
  'default-list-size'?: string | undefined;
  'max-list-size'?: string | undefined;
}): PricingOptions {
  const options: PricingOptions = {};
  const costModel = modelOption('price', values.model);
  if (costModel !== undefined) options.costModel = costModel;
  const inferListSizes = inferenceOption('price', values['infer-list-sizes']);
  if (inferListSizes !== undefined) options.inferListSizes = inferListSizes;
  const rule = { min: 0, allowInfinity: true };
  const defaultListSize = numberOption('price', 'default-list-size', values['default-list-size'], rule);
  if (defaultListSize !== undefined) options.defaultListSize = defaultListSize;
  const maxListSize = numberOption('price', 'max-list-size', values['max-list-size'], rule);
  if (maxListSize !== undefined) options.maxListSize = maxListSize;
  return options;
}

function readVariables(path: string, cwd: string): Record<string, unknown> {
  const source = readSource(resolve(cwd, path), cwd);
  const value = parseJson(source);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new InputError([`${source.name}: --variables must be a JSON object of variable values.`]);
  }
  return value as Record<string, unknown>;
}

/**
 * Refuses, as the server's execution does, an operation whose declared variables do not coerce (a
 * required one without a value): the cost engine reads only the variables that price.
 */
function checkVariables(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  variables: Readonly<Record<string, unknown>> | undefined,
): void {
  const definitions = operation.variableDefinitions ?? [];
  const coerced = getVariableValues(schema, definitions, variables ?? {}, { maxErrors: 5 });
  if (coerced.errors === undefined) return;
  const message = coerced.errors.map((error) => error.message).join(' ');
  throw new CostAnalysisError(CostErrorCode.invalidVariables, message, definitions);
}
