#!/usr/bin/env node
// The `graphql-budget` command (package.json `bin`). It loads the cost engine only: no server
// framework, no Redis client, so it runs where only graphql-budget and graphql are installed.
import { runCli } from './cli.js';

process.exitCode = runCli(process.argv.slice(2), {
  cwd: process.cwd(),
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
});
