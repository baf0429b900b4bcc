/** The `--help` text of each command, and of the program. */
export const HELP = {
  main: `Usage: graphql-budget <command> [options]

Prices GraphQL operations and lints a schema's cost directives, with the numbers queryBudgetPlugin uses.

Commands:
  price   Price a client's operations against a schema (what the plugin charges up front).
  lint    List what in a schema's @cost and @listSize makes prices meaningless or unbounded.

Options:
  -h, --help      Show this help; graphql-budget <command> --help for a command's.
  -v, --version   Show the version.

Exit status: 0 ok, 1 findings (an operation over --max-cost, lint --strict with findings),
2 a usage or input error.
`,
  price: `Usage: graphql-budget price --schema <path or glob> [options] <operations…>

Prices each operation as queryBudgetPlugin does before it runs: typeCost + fieldCost, with the
plugin's defaults unless an option says otherwise.

Operations: .graphql and .gql files (every operation in each, with the fragments it spreads from
any file given), directories (their .graphql and .gql files), globs (quote them: 'src/**/*.graphql'),
and Apollo persisted query manifests (.json).

Options:
  -s, --schema <path or glob>   The schema: SDL files (merged), an introspection result (.json), or a
                                Federation supergraph. Repeat for several files. Required.
      --json                    Print [{ file, operation, typeCost, fieldCost, cost }] on standard
                                output, and nothing else there.
      --top <n>                 Also show the n fields that add the most to each operation.
      --max-cost <n>            Exit with 1, naming each operation that costs more than n.
      --variables <file>        A JSON object of variables given to every operation (each reads the
                                ones it declares).
      --model <ibm|apollo>      The cost model (the plugin's costModel). Default: ibm.
      --default-list-size <n>   Items of a list that no @listSize sizes (the plugin's defaultListSize).
                                Default: 10.
      --max-list-size <n>       The largest list size a client may ask for (the plugin's maxListSize;
                                Infinity for no bound). Default: 10000.
  -h, --help                    Show this help.

Exit status: 0 every operation priced and none over --max-cost; 1 some over --max-cost; 2 a usage
or input error (a file that cannot be read, a schema that does not build, an operation that does
not validate or that the plugin would refuse).
`,
  lint: `Usage: graphql-budget lint --schema <path or glob> [options]

Lists what in a schema's cost directives makes prices meaningless or unbounded, each at its schema
coordinate: lists no @listSize sizes, slicing arguments without a default or without a bound,
scalar or enum lists a client sizes that weigh nothing, sizedFields that reach no list, negative
weights, cost directives declared but never applied.

Options:
  -s, --schema <path or glob>   The schema: SDL files (merged), an introspection result (.json), or a
                                Federation supergraph. Repeat for several files. Required.
      --json                    Print [{ rule, coordinate, message, file, line, column }] on standard
                                output, and nothing else there.
      --strict                  Exit with 1 when there is any finding.
      --default-list-size <n>   The plugin's defaultListSize, as the findings name it. Default: 10.
      --max-list-size <n>       The plugin's maxListSize; Infinity reports every slicing argument as
                                unbounded. Default: 10000.
  -h, --help                    Show this help.

Exit status: 0 (findings are warnings), 1 with --strict and findings, 2 a usage or input error.
`,
} as const;
