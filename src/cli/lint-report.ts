import { CostLintRule, type CostLintFinding } from '../cost/cost-lint.js';

/** A finding with where its coordinate is defined (when the schema was read from files with locations). */
export interface LocatedFinding extends CostLintFinding {
  readonly file: string;
  readonly line: number | null;
  readonly column: number | null;
}

/** What the report says about the schema as a whole. */
export interface LintSummary {
  /** The files read, as named to the user. */
  readonly files: readonly string[];
  /** The `defaultListSize` the findings assume. */
  readonly defaultListSize: number;
  /** What fixes the most warnings, and how many: a rule's remedy, or an option. */
  readonly fix: { readonly text: string; readonly fixes: number } | undefined;
}

/** Coordinates named per rule in the grouped report. */
const SHOWN_PER_RULE = 3;

/** What the findings of one rule have in common (`n` the defaultListSize), and the remedy for them. */
const RULES: Readonly<Record<CostLintRule, { what(n: number): string; readonly fix: string }>> = {
  [CostLintRule.listWithoutListSize]: {
    what: (n) => `lists that no @listSize sizes, each priced at defaultListSize (${n}) items whatever it returns`,
    fix: 'a @listSize(assumedSize: …) or a slicing argument on each list no @listSize sizes',
  },
  [CostLintRule.slicingArgumentWithoutDefault]: {
    what: (n) => `slicing arguments a client may leave out, then refused or priced at defaultListSize (${n})`,
    fix: 'a default on each slicing argument (first: Int = 10), or an assumedSize',
  },
  [CostLintRule.unboundedSlicingArgument]: {
    what: () => 'slicing arguments a client sets to any size (maxListSize Infinity)',
    fix: "a finite --max-list-size (the plugin's maxListSize, 10,000 by default)",
  },
  [CostLintRule.unweightedClientSizedLeafList]: {
    what: () => 'lists of scalars or enums a client sizes, which weigh nothing at any length',
    fix: 'a @cost weight on each scalar or enum list a client sizes, or on its item type',
  },
  [CostLintRule.sizedFieldsReachNoList]: {
    what: (n) => `@listSize(sizedFields:) without a size to hand, their lists at defaultListSize (${n})`,
    fix: 'a slicing argument or an assumedSize in each @listSize(sizedFields:)',
  },
  [CostLintRule.negativeWeight]: {
    what: () => 'negative @cost weights, which lower the price of work that still happens',
    fix: 'a @cost weight of 0 or more where a weight is negative',
  },
  [CostLintRule.unusedCostDirective]: {
    what: () => 'cost directives declared and applied nowhere',
    fix: 'the annotations, in the copy of the schema the server runs',
  },
  [CostLintRule.inferredListSize]: {
    what: () => 'Relay connections priced by first and last (--infer-list-sizes relay)',
    fix: 'graphql-budget annotate --infer-list-sizes relay writes their @listSize into the SDL',
  },
};

/** The remedy of the rule with the most warnings, and how many it fixes (undefined without warnings). */
export function largestRuleFix(findings: readonly CostLintFinding[]): LintSummary['fix'] {
  let best: LintSummary['fix'];
  for (const [rule, group] of byRule(findings)) {
    if (group[0]?.severity !== 'warning') continue;
    if (best === undefined || group.length > best.fixes) best = { text: RULES[rule].fix, fixes: group.length };
  }
  return best;
}

/**
 * The report for people, by default: one line per rule (its severity, name, count, what the findings
 * have in common and the first few coordinates, at their place when known), then the count, and
 * last what fixes the most warnings.
 */
export function groupedReport(findings: readonly LocatedFinding[], summary: LintSummary): string[] {
  const lines: string[] = [];
  // Warnings before information, the largest groups first.
  const groups = [...byRule(findings)].sort(
    ([, a], [, b]) =>
      Number(a[0]?.severity !== 'warning') - Number(b[0]?.severity !== 'warning') || b.length - a.length,
  );
  for (const [rule, group] of groups) {
    const shown = group.slice(0, SHOWN_PER_RULE).map(located);
    const more = group.length > shown.length ? ` and ${group.length - shown.length} more` : '';
    const severity = group[0]?.severity ?? 'warning';
    lines.push(
      `${severity} ${rule} ×${group.length}: ${RULES[rule].what(summary.defaultListSize)}: ${shown.join(', ')}${more}.`,
    );
  }
  return withEnding(lines, findings, summary, '; --verbose or --json lists each with its message');
}

/** Every finding on its own line, `file:line:column: severity: message (rule)`, then the same ending. */
export function verboseReport(findings: readonly LocatedFinding[], summary: LintSummary): string[] {
  const lines = findings.map(
    (finding) => `${where(finding)}: ${finding.severity}: ${finding.message} (${finding.rule})`,
  );
  return withEnding(lines, findings, summary, '');
}

function withEnding(
  lines: string[],
  findings: readonly LocatedFinding[],
  summary: LintSummary,
  hint: string,
): string[] {
  const warnings = findings.filter((finding) => finding.severity === 'warning').length;
  const kinds = warnings === findings.length ? '' : ` (${warnings} warning${warnings === 1 ? '' : 's'})`;
  const count = `${findings.length} finding${findings.length === 1 ? '' : 's'}${kinds}`;
  const ending = [`${count} in ${summary.files.join(', ')}${findings.length === 0 ? '' : hint}.`];
  if (summary.fix !== undefined) {
    const of = `${summary.fix.fixes} of ${warnings} warning${warnings === 1 ? '' : 's'}`;
    ending.push(`Fixes the most (${of}): ${summary.fix.text}.`);
  }
  return lines.length === 0 ? ending : [...lines, '', ...ending];
}

function byRule(findings: readonly CostLintFinding[]): Map<CostLintRule, CostLintFinding[]> {
  const groups = new Map<CostLintRule, CostLintFinding[]>();
  for (const finding of findings) {
    const group = groups.get(finding.rule);
    if (group === undefined) groups.set(finding.rule, [finding]);
    else group.push(finding);
  }
  return groups;
}

function located(finding: CostLintFinding): string {
  const { line } = finding as LocatedFinding;
  return line === null || line === undefined
    ? finding.coordinate
    : `${finding.coordinate} (${where(finding as LocatedFinding)})`;
}

function where(finding: LocatedFinding): string {
  return finding.line === null ? finding.file : `${finding.file}:${finding.line}:${finding.column}`;
}
