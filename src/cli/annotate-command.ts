import { CostSchemaError } from '../cost/errors.js';
import { numberOption, parseCommandLine } from './arguments.js';
import { annotatedSdl } from './annotated-sdl.js';
import { costSchemaInputError } from './coordinates.js';
import { inferenceOption } from './engine-flags.js';
import { InputError, UsageError } from './errors.js';
import { HELP } from './help.js';
import type { CliIo } from './io.js';
import { loadSchema } from './schema-loader.js';

const OPTIONS = {
  schema: { type: 'string', short: 's', multiple: true },
  'infer-list-sizes': { type: 'string' },
  'default-list-size': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Coordinates named on standard error per kind of annotation. */
const SHOWN = 5;

/**
 * `graphql-budget annotate`: writes the schema's SDL on standard output with the `@listSize`
 * directives `--infer-list-sizes` gives (see `annotatedSdl`), and on standard error what it
 * annotated. The SDL lints with no unsized list.
 *
 * @returns the exit code, 0.
 * @throws {UsageError | InputError} when the schema cannot be read or annotated.
 */
export function annotateCommand(args: readonly string[], io: CliIo): number {
  const { values, positionals } = parseCommandLine('annotate', args, OPTIONS);
  if (values.help === true) {
    io.out(HELP.annotate);
    return 0;
  }
  const schemaPaths = values.schema ?? [];
  if (schemaPaths.length === 0) {
    throw new UsageError('annotate needs --schema <path or glob> (see graphql-budget annotate --help).');
  }
  if (positionals.length > 0) {
    throw new UsageError(
      `annotate takes no operations; got ${positionals.join(' ')} (see graphql-budget annotate --help).`,
    );
  }
  const inference = inferenceOption('annotate', values['infer-list-sizes']);
  if (inference === undefined) {
    throw new UsageError(
      'annotate needs --infer-list-sizes relay: it writes the @listSize the inference gives (see graphql-budget annotate --help).',
    );
  }
  const defaultListSize =
    numberOption('annotate', 'default-list-size', values['default-list-size'], { min: 0, integer: true }) ?? 10;

  const loaded = loadSchema(schemaPaths, io.cwd);
  if (loaded.kind === 'supergraph') {
    throw new InputError([
      `${loaded.files.join(', ')}: a Federation supergraph is composed from its subgraphs; annotate each subgraph's SDL instead.`,
    ]);
  }
  let annotated: ReturnType<typeof annotatedSdl>;
  try {
    annotated = annotatedSdl(loaded.schema, inference, defaultListSize);
  } catch (error) {
    if (error instanceof CostSchemaError) throw costSchemaInputError(error, loaded.located, loaded.files);
    throw error;
  }
  io.out(annotated.sdl);
  io.err(
    `${loaded.files.join(', ')}: @listSize inferred (${inference}) on ${count(annotated.inferred, 'field')}, ` +
      `with assumedSize: ${defaultListSize} for an operation that gives none of its slicing arguments` +
      `${named(annotated.inferred)}.\n`,
  );
  if (annotated.assumed.length > 0) {
    io.err(
      `${loaded.files.join(', ')}: @listSize(assumedSize: ${defaultListSize}) on ${count(annotated.assumed, 'list')} ` +
        `that nothing else sizes, the size each is priced at now: give each the most items it returns` +
        `${named(annotated.assumed)}.\n`,
    );
  }
  return 0;
}

function count(items: readonly string[], noun: string): string {
  return `${items.length} ${noun}${items.length === 1 ? '' : 's'}`;
}

function named(coordinates: readonly string[]): string {
  if (coordinates.length === 0) return '';
  const more = coordinates.length > SHOWN ? ` and ${coordinates.length - SHOWN} more` : '';
  return ` (${coordinates.slice(0, SHOWN).join(', ')}${more})`;
}
