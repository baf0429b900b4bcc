import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from './errors.js';

type OptionSpecs = NonNullable<ParseArgsConfig['options']>;

/** What `parseArgs` returns for a command's options: `values` and `positionals`. */
export type CommandLine<T extends OptionSpecs> = ReturnType<
  typeof parseArgs<{ args: string[]; options: T; allowPositionals: true; strict: true }>
>;

/**
 * `node:util` `parseArgs` for one command, strict: an unknown option, a missing value or a value
 * given to a flag is a `UsageError` naming the option and the command's `--help`.
 */
export function parseCommandLine<T extends OptionSpecs>(
  command: string,
  args: readonly string[],
  options: T,
): CommandLine<T> {
  try {
    return parseArgs({ args: [...args], options, allowPositionals: true, strict: true });
  } catch (error) {
    const code = (error as { code?: string }).code ?? '';
    if (!code.startsWith('ERR_PARSE_ARGS')) throw error;
    // One line: Node's message may run over several, and repeats advice about positionals.
    const message = (error as Error).message
      .replace(/\. To specify a positional argument.*$/s, '')
      .replace(/\s*\n\s*/g, ' ')
      .replace(/\.$/, '');
    throw new UsageError(`${message} (see graphql-budget ${command} --help).`);
  }
}

/** What a numeric option accepts. */
export interface NumberRule {
  readonly min: number;
  readonly integer?: boolean;
  readonly allowInfinity?: boolean;
  /** `min` itself is not allowed. */
  readonly exclusive?: boolean;
}

/**
 * The value of a numeric option, or undefined when absent: a finite number, or, where the rule
 * allows it, the word `Infinity` (a number too large to hold, such as `1e400`, is refused rather
 * than read as Infinity). @throws {UsageError} naming the option.
 */
export function numberOption(
  command: string,
  name: string,
  value: string | undefined,
  rule: NumberRule,
): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  const infinity = rule.allowInfinity === true && /^\+?Infinity$/.test(text);
  const number = infinity ? Number.POSITIVE_INFINITY : text === '' ? Number.NaN : Number(text);
  const finite = Number.isFinite(number) || infinity;
  const above = rule.exclusive === true ? number > rule.min : number >= rule.min;
  if (!finite || !above || (rule.integer === true && !Number.isInteger(number) && Number.isFinite(number))) {
    const kind = rule.integer === true ? 'an integer' : 'a number';
    const bound = `${rule.exclusive === true ? '>' : '≥'} ${rule.min}`;
    const allowed = rule.allowInfinity === true ? ' (or Infinity)' : '';
    const overflow =
      Math.abs(number) === Number.POSITIVE_INFINITY && !/^[+-]?Infinity$/.test(text)
        ? ', beyond the largest number'
        : '';
    throw new UsageError(
      `--${name} must be ${kind} ${bound}${allowed}; got ${JSON.stringify(value)}${overflow} (see graphql-budget ${command} --help).`,
    );
  }
  return number;
}
