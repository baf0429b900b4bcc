/**
 * Refuses option names a function does not know, naming the unknown option and the nearest known
 * one: in JavaScript a misspelled option (`polcy`, `storeTimeout`) would otherwise be ignored
 * without a word, and the default used in its place.
 *
 * @throws {TypeError} naming the first unknown option, with "did you mean" when one is close.
 */
export function checkKnownOptions(owner: string, options: object, known: readonly string[]): void {
  for (const name of Object.keys(options)) {
    if (known.includes(name)) continue;
    const nearest = nearestName(name, known);
    const hint =
      nearest === undefined
        ? `The options are ${known.map((option) => `\`${option}\``).join(', ')}.`
        : `Did you mean \`${nearest}\`?`;
    throw new TypeError(`${owner}: unknown option \`${name}\`. ${hint}`);
  }
}

/** The known name closest to `name` by edit distance (case-insensitive), if it is close enough. */
export function nearestName(name: string, known: readonly string[]): string | undefined {
  const lower = name.toLowerCase();
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of known) {
    const candidateLower = candidate.toLowerCase();
    // A prefix counts as close: `storeTimeout` for `storeTimeoutMs`.
    const distance =
      candidateLower.startsWith(lower) || lower.startsWith(candidateLower)
        ? Math.abs(candidate.length - name.length) / 4
        : editDistance(lower, candidateLower);
    if (distance < bestDistance) {
      bestDistance = distance;
      best = candidate;
    }
  }
  return bestDistance <= Math.max(2, Math.floor(name.length / 3)) ? best : undefined;
}

/** Levenshtein distance, with a transposition counted as one edit. */
function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const columns = b.length + 1;
  const distances: number[][] = Array.from({ length: rows }, (_, i) =>
    Array.from({ length: columns }, (_unused, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < columns; j++) {
      const substitution = a[i - 1] === b[j - 1] ? 0 : 1;
      const row = distances[i] as number[];
      const above = distances[i - 1] as number[];
      let best = Math.min(
        (above[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (above[j - 1] as number) + substitution,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, ((distances[i - 2] as number[])[j - 2] as number) + 1);
      }
      row[j] = best;
    }
  }
  return (distances[rows - 1] as number[])[columns - 1] as number;
}
