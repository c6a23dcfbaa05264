/**
 * The order of the Train view's table of test views (TestViewsTable.vue), apart from the component
 * so it is testable without a DOM. Every score is higher-is-better, so ascending is worst first:
 * the table opens that way, on PSNR, so a user sees first the views the model renders worst.
 */
import type { EvaluationView } from '../../../shared/contract/train-metrics.js';

export type TestViewColumn = 'name' | 'psnr' | 'ccPsnr' | 'ssim';

export interface TestViewOrder {
  key: TestViewColumn;
  descending: boolean;
}

export const WORST_FIRST: TestViewOrder = { key: 'psnr', descending: false };

/** The views in `order`; a view without the column's value (an older engine's, no ccPsnr) sorts last either way. Ties: by name. */
export function sortTestViews(views: readonly EvaluationView[], order: TestViewOrder): EvaluationView[] {
  const sign = order.descending ? -1 : 1;
  return [...views].sort((a, b) => {
    if (order.key === 'name') return a.name.localeCompare(b.name) * sign;
    const x = a[order.key];
    const y = b[order.key];
    if (x === undefined || y === undefined) return x === y ? a.name.localeCompare(b.name) : x === undefined ? 1 : -1;
    return (x - y) * sign || a.name.localeCompare(b.name);
  });
}

/** The order after a click on `key`'s header: the same column flips, another starts worst first (names A to Z). */
export function nextOrder(current: TestViewOrder, key: TestViewColumn): TestViewOrder {
  return current.key === key ? { key, descending: !current.descending } : { key, descending: false };
}
