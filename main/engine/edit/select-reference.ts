/**
 * The float64 reference of kernels/edit-select.wgsl: the same tests, formula by formula, in
 * double precision. It also reports, per splat, whether its test lies so close to the shape's
 * boundary that float32 rounding on the GPU may decide it either way (`ambiguous`): the parity
 * test allows a mismatch only there. Also the CPU path for small scenes and tests.
 */
import type { SelectionShape } from '../../../shared/contract/edit-select.js';
import { SH_C0, shCoefficientCount, type SplatSet } from '../../../shared/scene/splats.js';
import { checkMask, emptyMask, maskCount } from '../../../shared/edits/selection-mask.js';
import { checkSelectRequest, DEFAULT_SELECT_NEAR, modeUsesShape, screenBounds, solidFrame, type SelectRequest } from './select-shape.js';

export interface SelectResult {
  /** The new selection, bitmask words. */
  mask: Uint32Array<ArrayBuffer>;
  count: number;
}

/**
 * Boundary margins under which float32 may disagree: pixels for screen shapes (scaled by the
 * coordinates' size: float32 keeps 24 bits), solid-local units, opacity, size (relative) and
 * colour distance.
 */
const MARGIN = { pixelsRelative: 1e-5, depthRelative: 1e-5, solid: 2e-5, opacity: 2e-6, sizeRelative: 2e-6, colour: 2e-6 };

interface ShapeTest {
  hit: boolean;
  ambiguous: boolean;
}

type SplatTest = (i: number) => ShapeTest;

function segmentDistance(px: number, py: number, ax: number, ay: number, bx: number, by: number): number {
  const dx = bx - ax;
  const dy = by - ay;
  const l2 = dx * dx + dy * dy;
  const t = l2 > 0 ? Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / l2)) : 0;
  return Math.hypot(px - (ax + t * dx), py - (ay + t * dy));
}

function screenTest(splats: SplatSet, shape: Extract<SelectionShape, { kind: 'rect' | 'lasso' | 'brush' }>, request: SelectRequest): SplatTest {
  const camera = request.camera!;
  const m = camera.worldToCamera;
  const near = request.near ?? DEFAULT_SELECT_NEAR;
  const [bx0, by0, bx1, by1] = screenBounds(shape);
  const scale = Math.max(1, Math.abs(bx0), Math.abs(by0), Math.abs(bx1), Math.abs(by1), Math.abs(camera.cx), Math.abs(camera.cy));
  return (i) => {
    const x = splats.means[3 * i];
    const y = splats.means[3 * i + 1];
    const z = splats.means[3 * i + 2];
    const cx = m[0] * x + m[1] * y + m[2] * z + m[3];
    const cy = m[4] * x + m[5] * y + m[6] * z + m[7];
    const cz = m[8] * x + m[9] * y + m[10] * z + m[11];
    const depthMargin = MARGIN.depthRelative * (Math.abs(near) + Math.abs(m[11]) + Math.hypot(x, y, z));
    if (!(cz > near)) return { hit: false, ambiguous: Math.abs(cz - near) < depthMargin };
    const u = (camera.fx * cx) / cz + camera.cx;
    const v = (camera.fy * cy) / cz + camera.cy;
    // float32's error in u grows with |u| and with the camera-space values' size relative to z
    const eps = MARGIN.pixelsRelative * (scale + Math.abs(u) + Math.abs(v) + (camera.fx * (Math.abs(cx) + Math.hypot(x, y, z) + Math.abs(m[3]))) / cz);
    const nearDepth = Math.abs(cz - near) < depthMargin;
    let hit: boolean;
    let distance: number;
    if (shape.kind === 'rect') {
      hit = u >= bx0 && v >= by0 && u <= bx1 && v <= by1;
      distance = Math.min(Math.abs(u - bx0), Math.abs(u - bx1), Math.abs(v - by0), Math.abs(v - by1));
      // a splat far outside along one axis is not ambiguous because it lines up on the other
      if (!hit) distance = Math.max(u < bx0 - eps || u > bx1 + eps || v < by0 - eps || v > by1 + eps ? Infinity : 0, distance);
    } else if (shape.kind === 'lasso') {
      const p = shape.points;
      let inside = false;
      distance = Infinity;
      for (let k = 0, j = p.length - 1; k < p.length; j = k++) {
        const [ax, ay] = p[j];
        const [bx, by] = p[k];
        if (ay > v !== by > v) {
          const xCross = ((bx - ax) * (v - ay)) / (by - ay) + ax;
          if (u < xCross) inside = !inside;
        }
        distance = Math.min(distance, segmentDistance(u, v, ax, ay, bx, by));
      }
      hit = inside;
    } else {
      hit = false;
      distance = Infinity;
      let certain = false;
      for (const c of shape.circles) {
        const d = Math.hypot(u - c.centre[0], v - c.centre[1]);
        if (d <= c.radius) hit = true;
        // inside one circle by more than eps: certain, whatever the others say
        if (d < c.radius - eps) certain = true;
        distance = Math.min(distance, Math.abs(d - c.radius));
      }
      if (certain) distance = Infinity;
    }
    return { hit, ambiguous: nearDepth || distance < eps };
  };
}

function solidTest(splats: SplatSet, shape: Extract<SelectionShape, { kind: 'box' | 'ellipsoid' }>): SplatTest {
  const { centre, axes, half } = solidFrame(shape.kind === 'box' ? shape.box : shape.ellipsoid);
  const extent = Math.max(...centre.map(Math.abs), ...half);
  return (i) => {
    const d = [0, 1, 2].map((k) => splats.means[3 * i + k] - centre[k]);
    const q = axes.map((a, k) => (a[0] * d[0] + a[1] * d[1] + a[2] * d[2]) / half[k]);
    const margin = MARGIN.solid * (1 + (extent + Math.hypot(...d)) / Math.min(...half));
    if (shape.kind === 'box') {
      const hit = q.every((x) => Math.abs(x) <= 1);
      const ambiguous = q.some((x) => Math.abs(Math.abs(x) - 1) < margin) && q.every((x) => Math.abs(x) <= 1 + margin);
      return { hit, ambiguous };
    }
    const r2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2];
    return { hit: r2 <= 1, ambiguous: Math.abs(r2 - 1) < 2 * margin };
  };
}

function attributeTest(splats: SplatSet, shape: Extract<SelectionShape, { kind: 'opacity' | 'size' | 'colour' }>): SplatTest {
  if (shape.kind === 'opacity') {
    return (i) => {
      const o = 1 / (1 + Math.exp(-splats.opacityLogits[i]));
      return { hit: o >= shape.min && o <= shape.max, ambiguous: Math.min(Math.abs(o - shape.min), Math.abs(o - shape.max)) < MARGIN.opacity };
    };
  }
  if (shape.kind === 'size') {
    return (i) => {
      const s = Math.exp(Math.max(splats.logScales[3 * i], splats.logScales[3 * i + 1], splats.logScales[3 * i + 2]));
      const near = (bound: number) => Math.abs(s - bound) < MARGIN.sizeRelative * Math.max(s, bound);
      return { hit: s >= shape.min && s <= shape.max, ambiguous: near(shape.min) || near(shape.max) };
    };
  }
  const stride = shCoefficientCount(splats.shDegree) * 3;
  return (i) => {
    let d2 = 0;
    for (let c = 0; c < 3; c++) {
      const rgb = Math.min(1, Math.max(0, 0.5 + SH_C0 * splats.sh[i * stride + c]));
      d2 += (rgb - shape.rgb[c]) ** 2;
    }
    const d = Math.sqrt(d2);
    return { hit: d <= shape.distance, ambiguous: Math.abs(d - shape.distance) < MARGIN.colour * (1 + shape.distance) };
  };
}

function shapeTest(splats: SplatSet, request: SelectRequest): SplatTest {
  const shape = request.shape!;
  switch (shape.kind) {
    case 'rect':
    case 'lasso':
    case 'brush':
      return screenTest(splats, shape, request);
    case 'box':
    case 'ellipsoid':
      return solidTest(splats, shape);
    default:
      return attributeTest(splats, shape);
  }
}

function combine(mode: SelectRequest['mode'], s: number, c: number): number {
  switch (mode) {
    case 'replace': return s;
    case 'add': return c | s;
    case 'subtract': return c & ~s;
    case 'intersect': return c & s;
    case 'invert': return ~c;
    case 'all': return ~0;
    case 'none': return 0;
  }
}

/**
 * The selection in float64: the new mask and count, and `ambiguous` (splats whose shape test is
 * within float32 rounding of the boundary).
 */
export function selectReference(splats: SplatSet, request: SelectRequest): SelectResult & { ambiguous: Uint32Array } {
  checkSelectRequest(request);
  const n = splats.count;
  const current = request.current ?? emptyMask(n);
  const exclude = request.exclude ?? emptyMask(n);
  checkMask(current, n, 'select: current selection');
  checkMask(exclude, n, 'select: exclude mask');
  const mask = emptyMask(n);
  const ambiguous = emptyMask(n);
  const test = modeUsesShape(request.mode) ? shapeTest(splats, request) : undefined;
  for (let w = 0; w < mask.length; w++) {
    let s = 0;
    for (let b = 0; b < 32 && w * 32 + b < n; b++) {
      if (!test) break;
      const r = test(w * 32 + b);
      if (r.hit) s |= 1 << b;
      if (r.ambiguous) ambiguous[w] |= 1 << b;
    }
    let word = combine(request.mode, s, current[w]) & ~exclude[w];
    const first = w * 32;
    if (first + 32 > n) word &= (1 << (n - first)) - 1;
    mask[w] = word >>> 0;
  }
  return { mask, count: maskCount(mask), ambiguous };
}
