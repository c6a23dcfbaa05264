/**
 * A float64 reference of applyEdits, written the other way round: every operation is applied at
 * once to the current splats (deletes filter the arrays, transforms move them), with a
 * base -> current map rebuilt for each selection. Only the SH are not rotated here: the reference
 * keeps each splat's total rotation, and the tests compare colours (the property that defines
 * the rotation) with tests/reference/sh.ts.
 */
import type { EditList, SelectionRef } from '../../../../shared/edits/edit-list.js';
import { shCoefficientCount, type SplatSet } from '../../../../shared/scene/splats.js';

export interface ReferenceSplat {
  base: number;
  mean: number[];
  /** (w, x, y, z), as the splats store them. */
  quat: number[];
  logScale: number[];
  opacity: number;
  /** The base splat's SH, unrotated. */
  sh: number[];
  hidden: boolean;
  layer: string;
  /** The composed rotation of every transform so far, (w, x, y, z). */
  rotation: number[];
}

function hamilton(a: number[], b: number[]): number[] {
  return [
    a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
    a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
    a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
    a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0],
  ];
}

/** v rotated by the unit quaternion q (w, x, y, z): q v q*. */
export function rotateVector(q: number[], v: number[]): number[] {
  const p = hamilton(hamilton(q, [0, ...v]), [q[0], -q[1], -q[2], -q[3]]);
  return [p[1], p[2], p[3]];
}

/** The edit list's (x, y, z, w) as a unit (w, x, y, z). */
export function wxyz(q: readonly number[]): number[] {
  const n = Math.hypot(...q);
  return [q[3] / n, q[0] / n, q[1] / n, q[2] / n];
}

export function referenceEdits(splats: SplatSet, list: EditList, selections: Map<string, Uint32Array>): ReferenceSplat[] {
  const K = shCoefficientCount(splats.shDegree);
  let current: ReferenceSplat[] = Array.from({ length: splats.count }, (_, i) => ({
    base: i,
    mean: Array.from(splats.means.subarray(3 * i, 3 * i + 3)),
    quat: Array.from(splats.quats.subarray(4 * i, 4 * i + 4)),
    logScale: Array.from(splats.logScales.subarray(3 * i, 3 * i + 3)),
    opacity: splats.opacityLogits[i],
    sh: Array.from(splats.sh.subarray(i * K * 3, (i + 1) * K * 3)),
    hidden: false,
    layer: 'main',
    rotation: [1, 0, 0, 0],
  }));
  const selected = (ref: SelectionRef | undefined) => {
    const baseToCurrent = new Map(current.map((s, j) => [s.base, j]));
    return [...(ref ? selections.get(ref.file)! : [])].map((b) => baseToCurrent.get(b)).filter((j): j is number => j !== undefined);
  };
  for (const op of list.operations) {
    if (op.op === 'delete' || op.op === 'clean') {
      const gone = new Set(selected(op.selection));
      current = current.filter((_, j) => !gone.has(j));
    } else if (op.op === 'hide') {
      for (const j of selected(op.selection)) current[j].hidden = true;
    } else if (op.op === 'unhide') {
      if (op.selection) for (const j of selected(op.selection)) current[j].hidden = false;
      else for (const s of current) s.hidden = false;
    } else if (op.op === 'separate') {
      for (const j of selected(op.selection)) current[j].layer = op.layer;
    } else if (op.op === 'crop') {
      const inverse = wxyz(op.box.rotation).map((v, i) => (i === 0 ? v : -v));
      current = current.filter((s) => {
        const local = rotateVector(inverse, s.mean.map((v, a) => v - op.box.centre[a]));
        return local.every((v, a) => Math.abs(v) <= op.box.halfSize[a]);
      });
    } else if (op.op === 'transform') {
      const r = wxyz(op.transform.rotation);
      for (const s of current) {
        s.mean = rotateVector(r, s.mean).map((v, a) => op.transform.scale * v + op.transform.translation[a]);
        s.quat = hamilton(r, s.quat);
        s.logScale = s.logScale.map((v) => v + Math.log(op.transform.scale));
        s.rotation = hamilton(r, s.rotation);
      }
    }
  }
  return current.filter((s) => !s.hidden);
}
