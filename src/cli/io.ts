/** Where a command reads and writes: the working directory and the two output streams. */
export interface CliIo {
  /** The directory relative paths and globs are read from, and file names are printed relative to. */
  readonly cwd: string;
  /** Writes to standard output (results: a table, or JSON). */
  out(text: string): void;
  /** Writes to standard error (warnings, errors). */
  err(text: string): void;
}
