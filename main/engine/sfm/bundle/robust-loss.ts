/**
 * The spec's robust losses of a squared reprojection error s (pixels^2) with scale c, and the
 * LM diagonal's clamp: one definition for the reference, the CPU solver and the GPU host.
 */
import type { BaOptions } from './problem.js';

export type LossOptions = Pick<BaOptions, 'loss' | 'lossScalePx'>;

/** Ceres' clamp of the LM diagonal D = diag(H). */
export const MIN_DIAGONAL = 1e-6;
export const MAX_DIAGONAL = 1e32;

/** rho(s) of a squared residual norm s (pixels^2). */
export function lossValue(s: number, o: LossOptions): number {
  const c = o.lossScalePx;
  if (o.loss === 'huber') return s <= c * c ? s : 2 * c * Math.sqrt(s) - c * c;
  if (o.loss === 'cauchy') return c * c * Math.log1p(s / (c * c));
  return s;
}

/** rho'(s): the IRLS weight. */
export function lossWeight(s: number, o: LossOptions): number {
  const c = o.lossScalePx;
  if (o.loss === 'huber') return s <= c * c ? 1 : c / Math.sqrt(s);
  if (o.loss === 'cauchy') return 1 / (1 + s / (c * c));
  return 1;
}
