/**
 * A mistake in how a command was called (an unknown option, a missing `--schema`, a value that is
 * not a number): printed as one line with a pointer to the command's `--help`; exit code 2.
 */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/**
 * Input the command cannot use: a file it cannot read, a schema that does not build, an operation
 * that does not validate or that the plugin would refuse to price. Each line of the message names
 * the file, the line and the field where it can; exit code 2.
 */
export class InputError extends Error {
  override readonly name = 'InputError';

  /** One error per line: `file:line:column: what is wrong`. */
  constructor(readonly lines: readonly string[]) {
    super(lines.join('\n'));
  }
}

/**
 * Whether `error` is the JavaScript stack running out (graphql-js parses, validates and visits some
 * structures recursively): a file nested thousands deep is a bad input, never a fault of the program.
 */
export function isStackOverflow(error: unknown): boolean {
  return error instanceof RangeError && /call stack/i.test(error.message);
}
