import { getLocation } from 'graphql';
import { lintCostSchema, type CostLintFinding } from '../cost/cost-lint.js';
import { CostSchemaError } from '../cost/errors.js';
import { numberOption, parseCommandLine } from './arguments.js';
import { costSchemaInputError, nodeAtCoordinate } from './coordinates.js';
import { UsageError } from './errors.js';
import { HELP } from './help.js';
import type { CliIo } from './io.js';
import { loadSchema } from './schema-loader.js';

const OPTIONS = {
  schema: { type: 'string', short: 's', multiple: true },
  json: { type: 'boolean' },
  strict: { type: 'boolean' },
  'default-list-size': { type: 'string' },
  'max-list-size': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** A finding with where its coordinate is defined (when the schema was read from files with locations). */
interface LocatedFinding extends CostLintFinding {
  readonly file: string;
  readonly line: number | null;
  readonly column: number | null;
}

/**
 * `graphql-budget lint`: `lintCostSchema`'s findings for the schema, each at the file, line and
 * column of its coordinate, as warnings (`--strict`: exit 1 when there is any).
 *
 * @returns the exit code: 0, or 1 with `--strict` and findings.
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

  const loaded = loadSchema(schemaPaths, io.cwd);
  for (const warning of loaded.warnings) io.err(`warning: ${warning}\n`);
  let findings: CostLintFinding[];
  try {
    findings = lintCostSchema(loaded.schema, {
      ...(loaded.supergraphSdl === undefined ? {} : { supergraphSdl: loaded.supergraphSdl }),
      ...(defaultListSize === undefined ? {} : { defaultListSize }),
      ...(maxListSize === undefined ? {} : { maxListSize }),
    });
  } catch (error) {
    if (error instanceof CostSchemaError) throw costSchemaInputError(error, loaded.located, loaded.files);
    throw error;
  }
  const located = findings.map((finding): LocatedFinding => {
    const loc = nodeAtCoordinate(loaded.located, finding.coordinate)?.loc;
    if (loc === undefined) return { ...finding, file: loaded.files.join(', '), line: null, column: null };
    const { line, column } = getLocation(loc.source, loc.start);
    return { ...finding, file: loc.source.name, line, column };
  });
  if (values.json === true) {
    io.out(`${JSON.stringify(located, null, 2)}\n`);
  } else {
    const lines = located.map((finding) => {
      const where = finding.line === null ? finding.file : `${finding.file}:${finding.line}:${finding.column}`;
      return `${where}: warning: ${finding.message} (${finding.rule})`;
    });
    const count = `${located.length} finding${located.length === 1 ? '' : 's'}`;
    lines.push(`${lines.length > 0 ? '\n' : ''}${count} in ${loaded.files.join(', ')}.`);
    io.out(`${lines.join('\n')}\n`);
  }
  return values.strict === true && located.length > 0 ? 1 : 0;
}
