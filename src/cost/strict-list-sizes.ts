import type { CostTable } from './cost-table.js';
import { unsizedLists } from './unsized-lists.js';

/**
 * What `strictListSizes` refuses in a schema: one sentence per list field that nothing bounds (see
 * `unsizedLists`), each naming it and how to bound it.
 */
export function strictListSizeProblems(table: CostTable): string[] {
  return unsizedLists(table).map(
    ({ coordinate }) =>
      `${coordinate}: a list whose size nothing bounds (strictListSizes): give it @listSize(assumedSize: …) ` +
      'or a slicing argument, or name it in an enclosing field’s sizedFields.',
  );
}
