import type { SelectionMode, SelectionShape, SelectionShapeKind } from '../../shared/contract/edit-select.js';
import { lookAt, type PinholeCamera } from '../../shared/scene/camera.js';
import { emptySplats, shCoefficientCount, type SplatSet } from '../../shared/scene/splats.js';
import type { GpuContext } from '../../main/engine/gpu/context.js';
import type { KernelVariant } from '../../main/engine/gpu/kernels.js';
import { GpuSelection } from '../../main/engine/edit/select.js';
import { selectReference } from '../../main/engine/edit/select-reference.js';
import { maskCount, maskWords } from '../../shared/edits/selection-mask.js';
import { rng } from '../helpers/random.js';
import type { ParityResult } from './types.js';

export interface SelectCase {
  /** Splats of the scene (not a multiple of 32: the last word is partial). */
  splats: number;
  shapes: readonly SelectionShapeKind[];
  workgroupSize?: number;
}

const ALL_SHAPES: readonly SelectionShapeKind[] = ['rect', 'lasso', 'brush', 'box', 'ellipsoid', 'opacity', 'size', 'colour'];
export const SELECT_CASES: readonly SelectCase[] = [
  { splats: 3001, shapes: ALL_SHAPES, workgroupSize: 64 },
  { splats: 20_037, shapes: ALL_SHAPES },
];
const SHAPE_MODES: readonly SelectionMode[] = ['replace', 'add', 'subtract', 'intersect'];

/** Splats in [-1, 1]^3 with random scales, opacities, SH degree and DC colours. */
export function randomSelectScene(random: () => number, count: number): SplatSet {
  const degree = Math.floor(random() * 4);
  const splats = emptySplats(count, degree);
  const stride = shCoefficientCount(degree) * 3;
  for (let i = 0; i < count; i++) {
    for (let k = 0; k < 3; k++) {
      splats.means[3 * i + k] = random() * 2 - 1;
      splats.logScales[3 * i + k] = -6 + 5 * random();
      splats.sh[i * stride + k] = (random() * 2 - 1) * 2.2;
    }
    splats.opacityLogits[i] = (random() * 2 - 1) * 6;
    for (let k = 0; k < 4; k++) splats.quats[4 * i + k] = random() - 0.5;
  }
  return splats;
}

/** A camera 1.2..2.5 from the origin looking near it: some splats lie behind it, many outside the image. */
export function randomSelectCamera(random: () => number): PinholeCamera {
  const width = 320 + Math.floor(random() * 400);
  const height = 240 + Math.floor(random() * 300);
  const z = random() * 1.8 - 0.9;
  const phi = random() * 2 * Math.PI;
  const r = 1.2 + 1.3 * random();
  const s = Math.sqrt(1 - z * z);
  const eye = [r * s * Math.cos(phi), r * z, r * s * Math.sin(phi)];
  const f = (0.6 + random()) * width;
  const target = [0.3 * (random() - 0.5), 0.3 * (random() - 0.5), 0.3 * (random() - 0.5)];
  return { width, height, fx: f, fy: f * (0.9 + 0.2 * random()), cx: width / 2 + 20 * (random() - 0.5), cy: height / 2 + 20 * (random() - 0.5), worldToCamera: lookAt(eye, target) };
}

function randomQuaternion(random: () => number): [number, number, number, number] {
  const q = [random() - 0.5, random() - 0.5, random() - 0.5, random() - 0.5];
  const n = Math.hypot(...q);
  return q.map((x) => x / n) as [number, number, number, number];
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

/** The pixel of a random splat centre in front of the camera and inside its image (undefined if 100 draws find none). */
function visiblePixel(random: () => number, camera: PinholeCamera, splats: SplatSet): [number, number] | undefined {
  const m = camera.worldToCamera;
  for (let attempt = 0; attempt < 100; attempt++) {
    const i = Math.floor(random() * splats.count);
    const [x, y, z] = [splats.means[3 * i], splats.means[3 * i + 1], splats.means[3 * i + 2]];
    const c = [0, 1, 2].map((r) => m[4 * r] * x + m[4 * r + 1] * y + m[4 * r + 2] * z + m[4 * r + 3]);
    if (!(c[2] > 0.01)) continue;
    const [u, v] = [camera.fx * (c[0] / c[2]) + camera.cx, camera.fy * (c[1] / c[2]) + camera.cy];
    if (u >= 0 && u < camera.width && v >= 0 && v < camera.height) return [u, v];
  }
  return undefined;
}

/** A shape of `kind` sized to catch a fair share of the scene. */
export function randomShape(random: () => number, kind: SelectionShapeKind, camera: PinholeCamera, splats: SplatSet): SelectionShape {
  const { width, height } = camera;
  const px = () => [random() * width, random() * height] as [number, number];
  switch (kind) {
    case 'rect': {
      const [w, h] = [(0.3 + 0.6 * random()) * width, (0.3 + 0.6 * random()) * height];
      const [x, y] = [random() * (width - w), random() * (height - h)];
      return { kind, min: [x, y], max: [x + w, y + h] };
    }
    case 'lasso': {
      const n = 3 + Math.floor(random() * 300);
      if (random() < 0.3) return { kind, points: Array.from({ length: n }, px) }; // self-intersecting: the even-odd rule decides
      const [cx, cy] = px();
      const radius = (0.2 + 0.4 * random()) * Math.min(width, height);
      return { kind, points: Array.from({ length: n }, (_, k) => {
        const a = (2 * Math.PI * k) / n;
        const r = radius * (0.4 + 0.6 * random());
        return [cx + r * Math.cos(a), cy + r * Math.sin(a)] as [number, number];
      }) };
    }
    case 'brush': {
      // The stroke starts on a splat the camera sees, its first circle there: from a random pixel
      // a short stroke could cross no splat at all (1 run of the portable 3001-splat case in 10,
      // seed 482734315), and a shape that selects nothing tests nothing.
      let [x, y] = visiblePixel(random, camera, splats) ?? px();
      const radius = 15 + 50 * random();
      return { kind, circles: Array.from({ length: 1 + Math.floor(random() * 60) }, (_, k) => {
        const [dx, dy] = [(random() - 0.5) * 40, (random() - 0.5) * 40];
        if (k > 0) [x, y] = [x + dx, y + dy];
        return { centre: [x, y] as [number, number], radius: radius * (0.5 + random()) };
      }) };
    }
    case 'box':
    case 'ellipsoid': {
      const solid = { centre: [random() - 0.5, random() - 0.5, random() - 0.5] as [number, number, number], halfSize: [0.2 + 0.6 * random(), 0.2 + 0.6 * random(), 0.2 + 0.6 * random()] as [number, number, number], rotation: randomQuaternion(random) };
      return kind === 'box' ? { kind, box: solid } : { kind, ellipsoid: solid };
    }
    case 'opacity': {
      const min = 0.5 * random();
      return { kind, min, max: Math.min(1, min + 0.1 + 0.5 * random()) };
    }
    case 'size': {
      const sizes = Array.from({ length: Math.min(splats.count, 2000) }, (_, i) => Math.exp(Math.max(splats.logScales[3 * i], splats.logScales[3 * i + 1], splats.logScales[3 * i + 2])));
      const lo = 0.6 * random();
      return { kind, min: quantile(sizes, lo), max: quantile(sizes, lo + 0.1 + 0.3 * random()) };
    }
    case 'colour':
      return { kind, rgb: [random(), random(), random()], distance: 0.2 + 0.5 * random() };
  }
}

function randomMask(random: () => number, count: number, density: number): Uint32Array {
  const mask = new Uint32Array(maskWords(count));
  for (let i = 0; i < count; i++) if (random() < density) mask[i >>> 5] |= 1 << (i & 31);
  return mask;
}

/**
 * Every shape in every mode that reads one (replace, add, subtract, intersect), then invert, all
 * and none, on one random scene and camera, with a random current selection and a random exclude
 * mask: the GPU's mask must be the float64 reference's except for splats within float32 rounding
 * of a shape's boundary (at most 2% of the scene: a 300-point self-crossing lasso has a long one), its count the popcount of its own mask, and
 * every word written (the output is poisoned first). A shape that selects nothing or everything
 * proves little, so each must select some splats and leave some.
 */
export async function selectParity(ctx: GpuContext, variant: KernelVariant, seed: number, c: SelectCase): Promise<ParityResult[]> {
  const random = rng(seed);
  const splats = randomSelectScene(random, c.splats);
  const camera = randomSelectCamera(random);
  const exclude = randomMask(random, c.splats, 0.1);
  const selection = await GpuSelection.create(ctx, splats, { workgroupSize: c.workgroupSize, variant });
  selection.setExclude(exclude);
  const results: ParityResult[] = [];
  const requests: { label: string; shape?: SelectionShape; mode: SelectionMode; hits: number }[] = [];
  for (const kind of c.shapes) {
    const shape = randomShape(random, kind, camera, splats);
    const hits = selectReference(splats, { mode: 'replace', shape, camera }).count;
    for (const mode of SHAPE_MODES) requests.push({ label: `${kind} ${mode}`, shape, mode, hits });
  }
  for (const mode of ['invert', 'all', 'none'] as const) requests.push({ label: mode, mode, hits: -1 });
  try {
    for (const r of requests) {
      const current = random() < 0.2 ? undefined : randomMask(random, c.splats, random());
      const request = { mode: r.mode, shape: r.shape, camera, current };
      const got = await selection.select(request, { poison: true });
      const want = selectReference(splats, { ...request, exclude });
      const hits = r.hits;
      let mismatches = 0;
      let unexplained = 0;
      for (let w = 0; w < want.mask.length; w++) {
        const diff = (got.mask[w] ^ want.mask[w]) >>> 0;
        if (!diff) continue;
        mismatches += maskCount(Uint32Array.of(diff));
        unexplained += maskCount(Uint32Array.of(diff & ~want.ambiguous[w]));
      }
      const ambiguous = maskCount(want.ambiguous);
      const ownCount = maskCount(got.mask);
      const trivial = r.shape !== undefined && r.mode === 'replace' && (hits === 0 || hits === c.splats);
      const ok = unexplained === 0 && got.count === ownCount && ambiguous <= 0.02 * c.splats && !trivial;
      const detail = unexplained ? `${unexplained} splats differ away from any boundary` : got.count !== ownCount ? `count ${got.count} but the mask holds ${ownCount}` : ambiguous > 0.02 * c.splats ? `${ambiguous} splats within rounding of the boundary: the margins are too wide to test anything` : trivial ? `the shape selects ${hits} of ${c.splats}` : undefined;
      results.push({ name: `select ${r.label}, ${c.splats} splats${c.workgroupSize ? ` wg ${c.workgroupSize}` : ''}: ${want.count} selected (${hits >= 0 ? `${hits} in the shape, ` : ''}${mismatches} at a boundary)`, variant, seed, ok, error: unexplained, tolerance: 0, detail });
    }
  } finally {
    selection.destroy();
  }
  return results;
}
