/**
 * Hand-placed scenes for the reference's forward tests: an axis-aligned camera (world = camera
 * space, OpenCV axes) and splats described by activated values.
 */
import type { PinholeCamera } from '../../shared/scene/camera.js';
import { SH_C0 } from '../../shared/scene/splats.js';
import { emptyFloat64Splats, type Float64Splats } from './scenes.js';

export function axisCamera(width: number, height: number, fx: number, fy: number, cx: number, cy: number): PinholeCamera {
  return { width, height, fx, fy, cx, cy, worldToCamera: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1] };
}

export interface PlacedSplat {
  /** World = camera-space position for axisCamera. */
  at: readonly number[];
  /** Per-axis standard deviation, or one for all three. */
  scale: number | readonly number[];
  /** (w, x, y, z), default identity. */
  quat?: readonly number[];
  opacity: number;
  /** Base colour per channel (the DC term is chosen so that colour = rgb in degree 0). */
  rgb?: readonly number[];
}

export function logit(p: number): number {
  return Math.log(p / (1 - p));
}

/** Degree-0 splats from activated values. */
export function placeSplats(list: readonly PlacedSplat[]): Float64Splats {
  const s = emptyFloat64Splats(list.length, 0);
  list.forEach((p, i) => {
    s.means.set(p.at, 3 * i);
    const sc = typeof p.scale === 'number' ? [p.scale, p.scale, p.scale] : p.scale;
    s.logScales.set(sc.map(Math.log), 3 * i);
    s.quats.set(p.quat ?? [1, 0, 0, 0], 4 * i);
    s.opacityLogits[i] = logit(p.opacity);
    s.sh.set((p.rgb ?? [0.5, 0.5, 0.5]).map((c) => (c - 0.5) / SH_C0), 3 * i);
  });
  return s;
}
