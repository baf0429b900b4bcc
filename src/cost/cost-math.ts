/** A (typeCost, fieldCost) pair while it is being summed. */
export interface Cost {
  readonly typeCost: number;
  readonly fieldCost: number;
}

export const ZERO_COST: Cost = { typeCost: 0, fieldCost: 0 };

/** `count × cost`, where either being 0 gives 0 (never `0 × Infinity = NaN`). */
export function scale(count: number, cost: number): number {
  return count === 0 || cost === 0 ? 0 : count * cost;
}

/** Componentwise maximum: the cost of the costlier of two exclusive cases. */
export function maxCost(a: Cost, b: Cost): Cost {
  return { typeCost: Math.max(a.typeCost, b.typeCost), fieldCost: Math.max(a.fieldCost, b.fieldCost) };
}

/**
 * A total as reported: values beyond `Number.MAX_SAFE_INTEGER` are not exact any more and are
 * reported as `Infinity`, which the plugin treats as too expensive.
 */
export function reported(value: number): number {
  return value > Number.MAX_SAFE_INTEGER ? Number.POSITIVE_INFINITY : value;
}
