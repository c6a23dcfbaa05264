/**
 * Seams of a merged partition (docs/scale.md): the test views rendered from the merged splats and
 * their squared errors pooled in two groups, the pixels within `borderPx` of a projected block
 * border and the rest, each as a PSNR. A border is a side two cores share (the outer edges are
 * none); it is drawn into each view as line segments at several heights across the blocks'
 * height range, each clipped to the space in front of the camera. A seam shows as a near PSNR
 * clearly under the away PSNR.
 */
import type { Partition } from '../../../shared/project/partition.js';
import type { PinholeCamera } from '../../../shared/scene/camera.js';
import type { SplatSet } from '../../../shared/scene/splats.js';
import type { GpuContext } from '../gpu/context.js';
import { createImageRenderer } from '../render/render-image.js';
import type { TrainingData } from '../train/data.js';
import { fromGround, type Vec3 } from './ground.js';
import { outerRect } from './split.js';

export interface SeamMeasure {
  nearPsnr: number;
  awayPsnr: number;
  borderPx: number;
  nearPixels: number;
  awayPixels: number;
  views: number;
}

/** Heights the borders are drawn at, evenly from the lowest to the highest block point. */
const BORDER_LEVELS = 5;

/** The sides two cores share, as ground segments [u0, v0, u1, v1] (each once). */
export function internalBorders(partition: Partition): [number, number, number, number][] {
  const outer = outerRect(partition.blocks.map((b) => b.core));
  const seen = new Set<string>();
  const borders: [number, number, number, number][] = [];
  for (const { core } of partition.blocks) {
    const sides: [number, number, number, number][] = [
      [core.min[0], core.min[1], core.max[0], core.min[1]],
      [core.min[0], core.max[1], core.max[0], core.max[1]],
      [core.min[0], core.min[1], core.min[0], core.max[1]],
      [core.max[0], core.min[1], core.max[0], core.max[1]],
    ];
    for (const s of sides) {
      const onOuter = (s[1] === s[3] && (s[1] <= outer.min[1] || s[1] >= outer.max[1])) || (s[0] === s[2] && (s[0] <= outer.min[0] || s[0] >= outer.max[0]));
      const key = s.join(',');
      if (onOuter || seen.has(key)) continue;
      seen.add(key);
      borders.push(s);
    }
  }
  return borders;
}

function toCamera(camera: PinholeCamera, p: Vec3): Vec3 {
  const m = camera.worldToCamera;
  return [0, 1, 2].map((r) => m[r * 4]! * p[0] + m[r * 4 + 1]! * p[1] + m[r * 4 + 2]! * p[2] + m[r * 4 + 3]!) as Vec3;
}

/** Marks the pixels within `radius` of the 2D segment a-b. */
function markSegment(mask: Uint8Array, width: number, height: number, a: [number, number], b: [number, number], radius: number): void {
  const x0 = Math.max(0, Math.floor(Math.min(a[0], b[0]) - radius));
  const x1 = Math.min(width - 1, Math.ceil(Math.max(a[0], b[0]) + radius));
  const y0 = Math.max(0, Math.floor(Math.min(a[1], b[1]) - radius));
  const y1 = Math.min(height - 1, Math.ceil(Math.max(a[1], b[1]) + radius));
  const dx = b[0] - a[0];
  const dy = b[1] - a[1];
  const length2 = dx * dx + dy * dy;
  for (let y = y0; y <= y1; y++) {
    for (let x = x0; x <= x1; x++) {
      const px = x + 0.5 - a[0];
      const py = y + 0.5 - a[1];
      const t = length2 > 0 ? Math.min(1, Math.max(0, (px * dx + py * dy) / length2)) : 0;
      if (Math.hypot(px - t * dx, py - t * dy) <= radius) mask[y * width + x] = 1;
    }
  }
}

/** 1 for the pixels of a view within `borderPx` of a projected block border. */
export function borderMask(partition: Partition, camera: PinholeCamera, borderPx: number): Uint8Array {
  const { width, height } = camera;
  const mask = new Uint8Array(width * height);
  const low = Math.min(...partition.blocks.map((b) => b.height[0]));
  const high = Math.max(...partition.blocks.map((b) => b.height[1]));
  const near = 1e-3;
  for (const [u0, v0, u1, v1] of internalBorders(partition)) {
    for (let level = 0; level < BORDER_LEVELS; level++) {
      const h = low + ((high - low) * level) / (BORDER_LEVELS - 1);
      let a = toCamera(camera, fromGround(partition.ground, u0, v0, h));
      let b = toCamera(camera, fromGround(partition.ground, u1, v1, h));
      if (a[2] < near && b[2] < near) continue;
      // clip to the space in front of the camera (a line stays a line under a pinhole)
      const clip = (from: Vec3, to: Vec3): Vec3 => {
        const t = (near - from[2]) / (to[2] - from[2]);
        return [from[0] + t * (to[0] - from[0]), from[1] + t * (to[1] - from[1]), near];
      };
      if (a[2] < near) a = clip(a, b);
      else if (b[2] < near) b = clip(b, a);
      const project = (p: Vec3): [number, number] => [(camera.fx * p[0]) / p[2] + camera.cx, (camera.fy * p[1]) / p[2] + camera.cy];
      markSegment(mask, width, height, project(a), project(b), borderPx);
    }
  }
  return mask;
}

const psnrOf = (squaredError: number, samples: number) => (samples > 0 ? -10 * Math.log10(Math.max(squaredError / samples, 1e-12)) : Number.NaN);

/**
 * Seam PSNRs of `splats` over the test views of `data` (its train views when it has no test
 * views). Undefined for a partition with one block (no border) or when no view sees a border.
 */
export async function measureSeams(ctx: GpuContext, splats: SplatSet, data: TrainingData, partition: Partition, options: { borderPx: number; antialiased: boolean }): Promise<SeamMeasure | undefined> {
  if (!internalBorders(partition).length) return undefined;
  const tests = data.views.flatMap((v, i) => (v.split === 'test' ? [i] : []));
  const views = tests.length ? tests : data.views.map((_, i) => i);
  const renderer = await createImageRenderer(ctx, splats, { background: data.background, antialiased: options.antialiased, shDegree: splats.shDegree });
  let nearError = 0;
  let awayError = 0;
  let nearPixels = 0;
  let awayPixels = 0;
  try {
    for (const index of views) {
      const { camera } = data.views[index]!;
      const [rendered, target] = await Promise.all([renderer.render(camera), data.loadImage(index)]);
      const mask = borderMask(partition, camera, options.borderPx);
      for (let p = 0; p < camera.width * camera.height; p++) {
        let error = 0;
        for (let c = 0; c < 3; c++) error += (Math.min(1, Math.max(0, rendered.rgba[4 * p + c]!)) - target[3 * p + c]!) ** 2;
        if (mask[p]) {
          nearError += error;
          nearPixels++;
        } else {
          awayError += error;
          awayPixels++;
        }
      }
    }
  } finally {
    renderer.destroy();
  }
  if (!nearPixels || !awayPixels) return undefined;
  return { nearPsnr: psnrOf(nearError, nearPixels * 3), awayPsnr: psnrOf(awayError, awayPixels * 3), borderPx: options.borderPx, nearPixels, awayPixels, views: views.length };
}
