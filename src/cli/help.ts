/** The `--help` text of each command, and of the program. */
export const HELP = {
  main: `Usage: graphql-budget <command> [options]

Prices GraphQL operations and lints a schema's cost directives, with the numbers queryBudgetPlugin uses.

Commands:
  price      Price a client's operations against a schema (what the plugin charges up front).
  lint       List what in a schema's @cost and @listSize makes prices meaningless or unbounded.
  annotate   Write a schema's SDL with the @listSize that --infer-list-sizes gives its fields.

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
      --model <ibm|apollo|github>
                                The cost model (the plugin's costModel). Default: ibm.
      --infer-list-sizes relay  Price Relay connections by first and last where the schema has no
                                @listSize (the plugin's inferListSizes). Default: off.
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

By default one line per rule, with its count and its first coordinates, and last the option or
annotation that fixes the most warnings.

Options:
  -s, --schema <path or glob>   The schema: SDL files (merged), an introspection result (.json), or a
                                Federation supergraph. Repeat for several files. Required.
      --verbose                 Print every finding on its own line, at its file, line and column.
      --json                    Print [{ rule, severity, coordinate, message, file, line, column }] on
                                standard output, and nothing else there.
      --strict                  Exit with 1 when there is a warning.
      --infer-list-sizes relay  Read the schema as the plugin's inferListSizes does: Relay connections
                                are sized by first and last, and each is reported (inferred-list-size).
      --default-list-size <n>   The plugin's defaultListSize, as the findings name it. Default: 10.
      --max-list-size <n>       The plugin's maxListSize; Infinity reports every slicing argument as
                                unbounded. Default: 10000.
  -h, --help                    Show this help.

Exit status: 0 (findings are warnings or information), 1 with --strict and warnings, 2 a usage or
input error.
`,
  annotate: `Usage: graphql-budget annotate --schema <path or glob> --infer-list-sizes relay [options] > annotated.graphql

Writes the schema's SDL on standard output with the list sizes the plugin prices it with written in:
the @listSize that --infer-list-sizes gives each field (a Relay connection sized by first and last),
with assumedSize: n for an operation that gives neither, and @listSize(assumedSize: n) on each list
that nothing else sizes, n being the size such a list is priced at now (give each the most items it
returns). The definition of @listSize is added where the schema has none. What it annotated goes to
standard error. The result lints with no unsized list.

Options:
  -s, --schema <path or glob>   The schema: SDL files (merged) or an introspection result (.json).
                                Repeat for several files. Required.
      --infer-list-sizes relay  The inference whose @listSize to write. Required.
      --default-list-size <n>   The assumedSize of the lists nothing else sizes (the plugin's
                                defaultListSize). Default: 10.
  -h, --help                    Show this help.

Exit status: 0 the SDL was written, 2 a usage or input error.
`,
} as const;
