/** Small statistics helpers for the benchmark runner. */

/** The median of a non-empty list (mean of the two middle values for an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** The `p`-th percentile (0–100) by nearest rank. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

/** Smallest and largest value, for the spread printed next to a median. */
export function range(values: readonly number[]): [number, number] {
  return [Math.min(...values), Math.max(...values)];
}

/** Rotates `items` left by `by` places: round r of an alternating benchmark runs `rotate(variants, r)`. */
export function rotate<T>(items: readonly T[], by: number): T[] {
  const shift = ((by % items.length) + items.length) % items.length;
  return [...items.slice(shift), ...items.slice(0, shift)];
}

/** The first and third quartiles (25th and 75th percentiles, linear between ranks), for an interquartile range. */
export function quartiles(values: readonly number[]): [number, number] {
  if (values.length === 0) return [Number.NaN, Number.NaN];
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number): number => {
    const position = q * (sorted.length - 1);
    const low = Math.floor(position);
    const high = Math.min(sorted.length - 1, low + 1);
    return sorted[low]! + (sorted[high]! - sorted[low]!) * (position - low);
  };
  return [at(0.25), at(0.75)];
}
