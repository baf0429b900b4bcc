/** How a column's cells line up. */
export type Alignment = 'left' | 'right';

/**
 * Rows of cells as plain-text columns, two spaces apart, each line without trailing spaces (what
 * `tsc` and `eslint` print on a terminal or in a CI log, no colour).
 */
export function textTable(rows: readonly (readonly string[])[], alignments: readonly Alignment[]): string[] {
  const widths = alignments.map((_, column) => Math.max(0, ...rows.map((row) => (row[column] ?? '').length)));
  return rows.map((row) =>
    row
      .map((cell, column) =>
        alignments[column] === 'right' ? cell.padStart(widths[column] ?? 0) : cell.padEnd(widths[column] ?? 0),
      )
      .join('  ')
      .trimEnd(),
  );
}
