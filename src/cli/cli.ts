import { VERSION } from '../version.js';
import { InputError, UsageError } from './errors.js';
import { HELP } from './help.js';
import { annotateCommand } from './annotate-command.js';
import type { CliIo } from './io.js';
import { lintCommand } from './lint-command.js';
import { priceCommand } from './price-command.js';

const COMMANDS = { price: priceCommand, lint: lintCommand, annotate: annotateCommand } as const;

type Command = keyof typeof COMMANDS;

function isCommand(name: string | undefined): name is Command {
  return name !== undefined && Object.hasOwn(COMMANDS, name);
}

/**
 * Runs `graphql-budget <command> …` and returns its exit code: 0 ok, 1 findings, 2 a usage or input
 * error. A user's mistake is printed as lines naming the file, line and field, never a stack trace;
 * anything else is a fault of the program and is printed with its stack.
 */
export function runCli(argv: readonly string[], io: CliIo): number {
  const [command, ...args] = argv;
  try {
    if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
      const topic = command === 'help' ? args[0] : undefined;
      if (topic !== undefined && !isCommand(topic)) {
        throw new UsageError(
          `unknown command ${JSON.stringify(topic)}: use price, lint or annotate (see graphql-budget --help).`,
        );
      }
      // Without a command, the help is the answer to a usage error.
      (command === undefined ? io.err : io.out)(topic === undefined ? HELP.main : HELP[topic]);
      return command === undefined ? 2 : 0;
    }
    if (command === '--version' || command === '-v') {
      io.out(`${VERSION}\n`);
      return 0;
    }
    if (!isCommand(command)) {
      throw new UsageError(
        `unknown command ${JSON.stringify(command)}: use price, lint or annotate (see graphql-budget --help).`,
      );
    }
    return COMMANDS[command](args, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`graphql-budget: ${error.message}\n`);
      return 2;
    }
    if (error instanceof InputError) {
      for (const line of error.lines) io.err(`${line}\n`);
      return 2;
    }
    io.err(
      `graphql-budget: internal error, please report it: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return 2;
  }
}
