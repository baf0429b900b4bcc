import type { FieldCostBreakdown } from '../cost/types.js';
import type { PluginPrice } from './plugin-price.js';
import { textTable } from './text-table.js';

/** One priced operation, as reported. */
export interface PricedOperation extends PluginPrice {
  readonly file: string;
  /** The operation's name; null for an anonymous one. */
  readonly operation: string | null;
}

/** One field of the breakdown with what it adds to its operation: `multiplier × (typeCost + fieldCost)`. */
export interface TopField extends FieldCostBreakdown {
  readonly cost: number;
}

/** Most expensive first; then by file and name, so that the order is the same on every run. */
export function byCost(a: PricedOperation, b: PricedOperation): number {
  if (a.cost !== b.cost) return b.cost - a.cost;
  return a.file.localeCompare(b.file) || (a.operation ?? '').localeCompare(b.operation ?? '');
}

/**
 * The `count` breakdown entries that add the most to the operation (each entry's own part, its
 * children apart), largest first; entries that add nothing are left out.
 */
export function topFields(priced: PricedOperation, count: number): TopField[] {
  return (priced.fields ?? [])
    .map((field) => ({ ...field, cost: field.multiplier * (field.typeCost + field.fieldCost) }))
    .filter((field) => field.cost > 0)
    .sort((a, b) => b.cost - a.cost || a.path.localeCompare(b.path))
    .slice(0, count);
}

/** The table for people: one row per operation, with its top fields under it when `top` is given. */
export function priceTable(rows: readonly PricedOperation[], top: number | undefined): string[] {
  const cells: string[][] = [['file', 'operation', 'typeCost', 'fieldCost', 'cost']];
  const below = new Map<number, string[]>();
  for (const row of rows) {
    cells.push([
      row.file,
      row.operation ?? '(anonymous)',
      String(row.typeCost),
      String(row.fieldCost),
      String(row.cost),
    ]);
    if (top === undefined) continue;
    const fields = topFields(row, top).map((field) => [String(field.cost), field.path, describeField(field)]);
    below.set(
      cells.length - 1,
      textTable(fields, ['right', 'left', 'left']).map((line) => `    ${line}`),
    );
  }
  return textTable(cells, ['left', 'left', 'right', 'right', 'right']).flatMap((line, index) => [
    line,
    ...(below.get(index) ?? []),
  ]);
}

/**
 * How a breakdown entry adds up: `multiplier × (typeCost + fieldCost)`, with the nodes each call
 * returns under `'github'` and a note where the field's `@listSize` was inferred.
 */
function describeField(field: TopField): string {
  let text = `${field.multiplier} × (typeCost ${field.typeCost} + fieldCost ${field.fieldCost})`;
  if (field.nodes !== undefined) text += `, ${field.nodes} nodes each`;
  if (field.inferredListSize !== undefined) text += `, @listSize inferred (${field.inferredListSize})`;
  return text;
}

/** The JSON for machines: `[{ file, operation, typeCost, fieldCost, cost }]` (and `fields` with `top`). */
export function priceJson(rows: readonly PricedOperation[], top: number | undefined): string {
  const items = rows.map((row) => {
    const item = {
      file: row.file,
      operation: row.operation,
      typeCost: row.typeCost,
      fieldCost: row.fieldCost,
      cost: row.cost,
    };
    return top === undefined ? item : { ...item, fields: topFields(row, top) };
  });
  return `${JSON.stringify(items, null, 2)}\n`;
}
