/** How an option value is described in an error message: short, never the whole value. */
export function describeValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'function') return 'a function';
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  return typeof value === 'object' ? 'an object' : String(value);
}

/** What a numeric option must be. */
export interface NumberRule {
  min: number;
  /** An upper bound, inclusive (a timer's delay: Node clamps one above 2^31 − 1 ms to 1 ms). */
  max?: number;
  exclusiveMin?: boolean;
  integer?: boolean;
  allowInfinity?: boolean;
}

/**
 * Throws unless `value` is a number within `rule`: a `TypeError` for a value that is not a number,
 * a `RangeError` for one out of range; `name` says where it came from (`` `maxListSize` ``).
 */
export function requireNumber(owner: string, value: unknown, name: string, rule: NumberRule): asserts value is number {
  if (typeof value !== 'number') {
    throw new TypeError(`${owner}: ${name} must be a number; got ${describeValue(value)}.`);
  }
  const finiteOk = Number.isFinite(value) || (rule.allowInfinity === true && value === Number.POSITIVE_INFINITY);
  const aboveMin = rule.exclusiveMin ? value > rule.min : value >= rule.min;
  const belowMax = rule.max === undefined || value <= rule.max;
  const whole = !rule.integer || Number.isInteger(value) || value === Number.POSITIVE_INFINITY;
  if (!finiteOk || !aboveMin || !belowMax || !whole) {
    const bound = `${rule.exclusiveMin ? '>' : '≥'} ${rule.min}${rule.max === undefined ? '' : ` and ≤ ${rule.max}`}`;
    const kind = rule.integer ? 'an integer' : rule.allowInfinity ? 'a number' : 'a finite number';
    const infinity = rule.allowInfinity ? ' (or Infinity)' : '';
    throw new RangeError(`${owner}: ${name} must be ${kind} ${bound}${infinity}; got ${value}.`);
  }
}
