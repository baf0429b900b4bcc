import { getLocation } from 'graphql';
import { lintCostSchema, type CostLintFinding, type LintCostSchemaOptions } from '../cost/cost-lint.js';
import { CostSchemaError } from '../cost/errors.js';
import { numberOption, parseCommandLine } from './arguments.js';
import { costSchemaInputError, nodeAtCoordinate } from './coordinates.js';
import { inferenceOption } from './engine-flags.js';
import { UsageError } from './errors.js';
import { HELP } from './help.js';
import type { CliIo } from './io.js';
import { groupedReport, largestRuleFix, verboseReport, type LintSummary, type LocatedFinding } from './lint-report.js';
import { loadSchema, type LoadedSchema } from './schema-loader.js';

const OPTIONS = {
  schema: { type: 'string', short: 's', multiple: true },
  json: { type: 'boolean' },
  verbose: { type: 'boolean' },
  strict: { type: 'boolean' },
  'infer-list-sizes': { type: 'string' },
  'default-list-size': { type: 'string' },
  'max-list-size': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** What `--infer-list-sizes relay` does, as the report names it when it fixes the most. */
const INFERENCE_FIX =
  "--infer-list-sizes relay (the plugin's inferListSizes: 'relay'), which prices each Relay connection by its " +
  'first or last; graphql-budget annotate --infer-list-sizes relay writes the same @listSize into the SDL';

/**
 * `graphql-budget lint`: `lintCostSchema`'s findings for the schema, each at the file, line and
 * column of its coordinate: grouped by rule by default (a count and a few coordinates per rule),
 * each on its own line with `--verbose`, as JSON with `--json`; the report ends with what fixes the
 * most warnings. Findings are warnings or information (`--strict`: exit 1 when there is a warning).
 *
 * @returns the exit code: 0, or 1 with `--strict` and warnings.
 * @throws {UsageError | InputError} when the schema cannot be read, or its cost directives not used.
 */
export function lintCommand(args: readonly string[], io: CliIo): number {
  const { values, positionals } = parseCommandLine('lint', args, OPTIONS);
  if (values.help === true) {
    io.out(HELP.lint);
    return 0;
  }
  const schemaPaths = values.schema ?? [];
  if (schemaPaths.length === 0)
    throw new UsageError('lint needs --schema <path or glob> (see graphql-budget lint --help).');
  if (positionals.length > 0) {
    throw new UsageError(
      `lint takes no operations; got ${positionals.join(' ')} (--schema names the schema; see graphql-budget lint --help).`,
    );
  }
  const rule = { min: 0, allowInfinity: true };
  const defaultListSize = numberOption('lint', 'default-list-size', values['default-list-size'], rule);
  const maxListSize = numberOption('lint', 'max-list-size', values['max-list-size'], rule);
  const inferListSizes = inferenceOption('lint', values['infer-list-sizes']);

  const loaded = loadSchema(schemaPaths, io.cwd);
  for (const warning of loaded.warnings) io.err(`warning: ${warning}\n`);
  const options: LintCostSchemaOptions = {
    ...(loaded.supergraphSdl === undefined ? {} : { supergraphSdl: loaded.supergraphSdl }),
    ...(defaultListSize === undefined ? {} : { defaultListSize }),
    ...(maxListSize === undefined ? {} : { maxListSize }),
    ...(inferListSizes === undefined ? {} : { inferListSizes }),
  };
  const findings = lint(loaded, options);
  const located = findings.map((finding): LocatedFinding => {
    const loc = nodeAtCoordinate(loaded.located, finding.coordinate)?.loc;
    if (loc === undefined) return { ...finding, file: loaded.files.join(', '), line: null, column: null };
    const { line, column } = getLocation(loc.source, loc.start);
    return { ...finding, file: loc.source.name, line, column };
  });
  const warnings = located.filter((finding) => finding.severity === 'warning').length;
  if (values.json === true) {
    io.out(`${JSON.stringify(located, null, 2)}\n`);
  } else {
    const summary: LintSummary = {
      files: loaded.files,
      defaultListSize: defaultListSize ?? 10,
      fix: mostFixing(loaded, options, findings),
    };
    const lines = values.verbose === true ? verboseReport(located, summary) : groupedReport(located, summary);
    io.out(`${lines.join('\n')}\n`);
  }
  return values.strict === true && warnings > 0 ? 1 : 0;
}

function lint(loaded: LoadedSchema, options: LintCostSchemaOptions): CostLintFinding[] {
  try {
    return lintCostSchema(loaded.schema, options);
  } catch (error) {
    if (error instanceof CostSchemaError) throw costSchemaInputError(error, loaded.located, loaded.files);
    throw error;
  }
}

/**
 * What fixes the most warnings: `--infer-list-sizes relay`, where it is not given and makes at least
 * half of the warnings go away (linted again with it to count them): one option, where a rule's
 * remedy is one annotation per finding; else the remedy of the largest rule.
 */
function mostFixing(
  loaded: LoadedSchema,
  options: LintCostSchemaOptions,
  findings: readonly CostLintFinding[],
): LintSummary['fix'] {
  const ruleFix = largestRuleFix(findings);
  if (ruleFix === undefined || options.inferListSizes !== undefined) return ruleFix;
  const key = (finding: CostLintFinding) => `${finding.rule} ${finding.coordinate}`;
  const remaining = new Set(
    lint(loaded, { ...options, inferListSizes: 'relay' })
      .filter((finding) => finding.severity === 'warning')
      .map(key),
  );
  const fixes = findings.filter((finding) => finding.severity === 'warning' && !remaining.has(key(finding))).length;
  const warnings = findings.filter((finding) => finding.severity === 'warning').length;
  return fixes > 0 && 2 * fixes >= warnings ? { text: INFERENCE_FIX, fixes } : ruleFix;
}
