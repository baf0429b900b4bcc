/**
 * Refuses option names a function does not know, naming the unknown option and the nearest known
 * one: in JavaScript a misspelled option (`polcy`, `storeTimeout`) would otherwise be ignored
 * without a word, and the default used in its place. `owner` is how the message names the
 * options' owner (`MemoryBucketStore options`, `queryBudgetPlugin`).
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
    throw new TypeError(`${owner}: unknown option \`${name.length > 64 ? `${name.slice(0, 64)}…` : name}\`. ${hint}`);
  }
}

/** The known name closest to `name` (case-insensitive edit distance, a prefix counting as close), if close enough. */
function nearestName(name: string, known: readonly string[]): string | undefined {
  const lower = name.toLowerCase();
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of known) {
    const other = candidate.toLowerCase();
    const distance =
      other.startsWith(lower) || lower.startsWith(other)
        ? Math.abs(other.length - lower.length) / 4
        : editDistance(lower, other);
    if (distance < bestDistance) {
      bestDistance = distance;
      best = candidate;
    }
  }
  return bestDistance <= Math.max(2, Math.floor(name.length / 3)) ? best : undefined;
}

/** Levenshtein distance over two short names (one row at a time); a name over 64 characters is near nothing. */
function editDistance(a: string, b: string): number {
  if (a.length > 64 || b.length > 64) return Number.POSITIVE_INFINITY;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1);
      row[j] = Math.min((previous[j] as number) + 1, (row[j - 1] as number) + 1, substitution);
    }
    previous = row;
  }
  return previous[b.length] as number;
}
