/**
 * Float64 reference of the compositing stage (gsplat 1.5 `rasterize_to_pixels` fwd/bwd): the
 * projected splats of projection.ts, sorted front to back, alpha-blended into each pixel.
 *
 * Per pixel (u, v), sampled at (u + 0.5, v + 0.5), for each visible splat by increasing depth
 * (ties by index): power = 0.5 (a dx^2 + c dy^2) + b dx dy with d = mean2d - centre; skip when
 * power < 0; alpha = min(0.99, o exp(-power)); skip when alpha < 1/255; stop (this splat and all
 * after it are not composited) when T (1 - alpha) <= 1e-4; else w = alpha T, accumulate, T *= 1 - alpha.
 *
 * Candidates: splats are binned into 16x16 tiles by the pixel box of the ellipse where
 * o exp(-power) >= 1/255 (the opacity-aware extent, slightly widened); the box only prunes
 * pixels where the splat is skipped anyway, so the result equals the loop over all splats.
 *
 * `walkPixel` is the one definition of which splats a pixel composites; forward and backward
 * both replay it.
 */
import type { ProjectedGradients } from './projection.js';

export const TILE_SIZE = 16;
export const ALPHA_MIN = 1 / 255;
/** The original 3DGS clamp, as our spec says; gsplat 1.5's CUDA rasterizer clamps at 0.999 instead. */
export const ALPHA_MAX = 0.99;
export const TRANSMITTANCE_MIN = 1e-4;

/** The projected splats as the compositor reads them (ProjectedSplats fits). */
export interface CompositeInput {
  width: number;
  height: number;
  count: number;
  visible: ArrayLike<number>;
  depth: ArrayLike<number>;
  mean2d: ArrayLike<number>;
  conic: ArrayLike<number>;
  opacity: ArrayLike<number>;
  colour: ArrayLike<number>;
  normal: ArrayLike<number>;
  background: readonly number[];
}

/** Optional outputs; each costs time only when asked for. */
export interface CompositeOptions {
  /** Depth of the first composited splat after which T <= 0.5; 0 where T stays above 0.5. */
  medianDepth?: boolean;
  /** Per splat: sum and max over pixels of its blending weight w. */
  splatWeights?: boolean;
  /** sum_i w_i n_i (camera space, not normalized). */
  normals?: boolean;
  /** 2DGS depth distortion sum_{i,j} w_i w_j |z_i - z_j|. */
  distortion?: boolean;
}

export interface CompositeResult {
  width: number;
  height: number;
  /** C + T * background, 3 per pixel, row-major. */
  rgb: Float64Array;
  /** 1 - T. */
  alpha: Float64Array;
  /** sum_i w_i z_i (not divided by alpha). */
  depth: Float64Array;
  medianDepth?: Float64Array;
  normals?: Float64Array;
  distortion?: Float64Array;
  splatWeightSum?: Float64Array;
  splatWeightMax?: Float64Array;
  /** Number of splats composited per pixel. */
  compositedCount: Uint32Array;
  /** Per pixel, PixelWalk.stopMargin: how close the 1e-4 stop came to going the other way. */
  stopMargin: Float64Array;
  /**
   * Hash of every discrete decision, in order: which splats each pixel composited, whether alpha
   * was clamped at 0.99, where it stopped and which splat gave the median depth. Finite-difference tests compare it to detect a
   * perturbation that crosses a discontinuity.
   */
  branchSignature: number;
}

/** dL/d of each output, same layouts as CompositeResult; absent means zero. */
export interface CompositeOutputGradients {
  rgb?: ArrayLike<number>;
  alpha?: ArrayLike<number>;
  depth?: ArrayLike<number>;
  medianDepth?: ArrayLike<number>;
  normals?: ArrayLike<number>;
  distortion?: ArrayLike<number>;
}

export interface CompositeGradients extends ProjectedGradients {
  /** Per splat, per component: sum over pixels of |that pixel's contribution to dL/dmean2d| (gsplat absgrad). */
  absMean2d: Float64Array;
}

/** Splats in depth order, their pixel boxes and the per-tile candidate lists. */
export interface Binning {
  order: Uint32Array;
  /** u0, u1, v0, v1 (inclusive) per splat; u0 > u1 when the splat reaches no pixel. */
  box: Int32Array;
  tilesX: number;
  tiles: number[][];
}

export function binSplats(input: CompositeInput): Binning {
  const { width, height, count } = input;
  const visibleIds: number[] = [];
  for (let i = 0; i < count; i++) if (input.visible[i]) visibleIds.push(i);
  visibleIds.sort((p, q) => input.depth[p] - input.depth[q] || p - q);
  const order = Uint32Array.from(visibleIds);
  const box = new Int32Array(4 * count);
  const tilesX = Math.ceil(width / TILE_SIZE);
  const tilesY = Math.ceil(height / TILE_SIZE);
  const tiles: number[][] = Array.from({ length: tilesX * tilesY }, () => []);
  for (let i = 0; i < count; i++) box.set([0, -1, 0, -1], 4 * i);
  for (const i of order) {
    const o = input.opacity[i];
    if (!(o >= ALPHA_MIN)) continue;
    const [a, b, c] = [input.conic[3 * i], input.conic[3 * i + 1], input.conic[3 * i + 2]];
    const det = a * c - b * b;
    let u0 = 0;
    let u1 = width - 1;
    let v0 = 0;
    let v1 = height - 1;
    if (a > 0 && det > 0) {
      // 0.5 d^T Q d <= L  =>  |dx| <= sqrt(2 L Sigma_xx), Sigma = Q^-1.
      const reach = 2 * Math.max(0, Math.log(o / ALPHA_MIN));
      const rx = Math.sqrt((reach * c) / det) * (1 + 1e-9) + 1e-9;
      const ry = Math.sqrt((reach * a) / det) * (1 + 1e-9) + 1e-9;
      const mx = input.mean2d[2 * i];
      const my = input.mean2d[2 * i + 1];
      u0 = Math.max(u0, Math.ceil(mx - rx - 0.5));
      u1 = Math.min(u1, Math.floor(mx + rx - 0.5));
      v0 = Math.max(v0, Math.ceil(my - ry - 0.5));
      v1 = Math.min(v1, Math.floor(my + ry - 0.5));
    }
    if (!(u0 <= u1 && v0 <= v1)) continue;
    box.set([u0, u1, v0, v1], 4 * i);
    for (let ty = Math.floor(v0 / TILE_SIZE); ty <= Math.floor(v1 / TILE_SIZE); ty++) {
      for (let tx = Math.floor(u0 / TILE_SIZE); tx <= Math.floor(u1 / TILE_SIZE); tx++) tiles[ty * tilesX + tx].push(i);
    }
  }
  return { order, box, tilesX, tiles };
}

/** The splats one pixel composites, front to back; reused between pixels. */
export class PixelWalk {
  n = 0;
  /** Index of the splat that triggered the stop, or -1. */
  stoppedAt = -1;
  /** Transmittance after the last composited splat. */
  finalT = 1;
  /**
   * How close the stop test came to its threshold: the smallest |T (1 - alpha) - 1e-4| / 1e-4 over
   * the splats tested. Opacity nudges cannot move it where alpha is clamped at 0.99 (two clamped
   * splats give exactly 0.01 x 0.01 = 1e-4), so the parity filter reads it directly.
   */
  stopMargin = Infinity;
  index = new Int32Array(16);
  alpha = new Float64Array(16);
  /** Transmittance before each composited splat. */
  tBefore = new Float64Array(16);
  gauss = new Float64Array(16); // exp(-power)
  dx = new Float64Array(16);
  dy = new Float64Array(16);
  clamped = new Uint8Array(16);

  reserve(capacity: number): void {
    if (capacity <= this.index.length) return;
    const grow = <T extends Float64Array | Int32Array | Uint8Array>(old: T): T => {
      const next = new (old.constructor as new (n: number) => T)(capacity * 2);
      next.set(old);
      return next;
    };
    this.index = grow(this.index);
    this.alpha = grow(this.alpha);
    this.tBefore = grow(this.tBefore);
    this.gauss = grow(this.gauss);
    this.dx = grow(this.dx);
    this.dy = grow(this.dy);
    this.clamped = grow(this.clamped);
  }
}

export function walkPixel(input: CompositeInput, bins: Binning, u: number, v: number, walk: PixelWalk): void {
  const list = bins.tiles[Math.floor(v / TILE_SIZE) * bins.tilesX + Math.floor(u / TILE_SIZE)];
  walk.reserve(list.length);
  walk.n = 0;
  walk.stoppedAt = -1;
  walk.stopMargin = Infinity;
  const px = u + 0.5;
  const py = v + 0.5;
  const box = bins.box;
  let T = 1;
  for (const i of list) {
    if (u < box[4 * i] || u > box[4 * i + 1] || v < box[4 * i + 2] || v > box[4 * i + 3]) continue;
    const dx = input.mean2d[2 * i] - px;
    const dy = input.mean2d[2 * i + 1] - py;
    const power = 0.5 * (input.conic[3 * i] * dx * dx + input.conic[3 * i + 2] * dy * dy) + input.conic[3 * i + 1] * dx * dy;
    if (power < 0) continue;
    const gauss = Math.exp(-power);
    const raw = input.opacity[i] * gauss;
    const alpha = Math.min(ALPHA_MAX, raw);
    if (alpha < ALPHA_MIN) continue;
    const nextT = T * (1 - alpha);
    walk.stopMargin = Math.min(walk.stopMargin, Math.abs(nextT - TRANSMITTANCE_MIN) / TRANSMITTANCE_MIN);
    if (nextT <= TRANSMITTANCE_MIN) {
      walk.stoppedAt = i;
      break;
    }
    const k = walk.n++;
    walk.index[k] = i;
    walk.alpha[k] = alpha;
    walk.tBefore[k] = T;
    walk.gauss[k] = gauss;
    walk.dx[k] = dx;
    walk.dy[k] = dy;
    walk.clamped[k] = raw > ALPHA_MAX ? 1 : 0;
    T = nextT;
  }
  walk.finalT = T;
}

export function hashStep(h: number, value: number): number {
  return Math.imul(h ^ (value | 0), 16777619) >>> 0;
}

export function compositeImage(input: CompositeInput, options: CompositeOptions = {}): CompositeResult {
  const { width, height, count } = input;
  const pixels = width * height;
  const bins = binSplats(input);
  const out: CompositeResult = {
    width,
    height,
    rgb: new Float64Array(3 * pixels),
    alpha: new Float64Array(pixels),
    depth: new Float64Array(pixels),
    compositedCount: new Uint32Array(pixels),
    stopMargin: new Float64Array(pixels),
    branchSignature: 2166136261,
  };
  if (options.medianDepth) out.medianDepth = new Float64Array(pixels);
  if (options.normals) out.normals = new Float64Array(3 * pixels);
  if (options.distortion) out.distortion = new Float64Array(pixels);
  if (options.splatWeights) {
    out.splatWeightSum = new Float64Array(count);
    out.splatWeightMax = new Float64Array(count);
  }
  let h = 2166136261;
  for (const i of bins.order) h = hashStep(h, i);
  const walk = new PixelWalk();
  for (let v = 0; v < height; v++) {
    for (let u = 0; u < width; u++) {
      const p = v * width + u;
      walkPixel(input, bins, u, v, walk);
      let r = 0;
      let g = 0;
      let b = 0;
      let depth = 0;
      let weightSum = 0; // sum of w so far (distortion)
      let weightedDepth = 0; // sum of w z so far (distortion)
      let distortion = 0;
      let median = 0;
      let medianAt = -1; // which composited splat the median depth picked
      for (let k = 0; k < walk.n; k++) {
        const i = walk.index[k];
        const w = walk.alpha[k] * walk.tBefore[k];
        const z = input.depth[i];
        r += w * input.colour[3 * i];
        g += w * input.colour[3 * i + 1];
        b += w * input.colour[3 * i + 2];
        depth += w * z;
        if (out.normals) for (let d = 0; d < 3; d++) out.normals[3 * p + d] += w * input.normal[3 * i + d];
        // Splats come by increasing z, so |z - z_j| = z - z_j for every earlier j.
        distortion += 2 * w * (z * weightSum - weightedDepth);
        weightSum += w;
        weightedDepth += w * z;
        const tAfter = k + 1 < walk.n ? walk.tBefore[k + 1] : walk.finalT;
        if (medianAt < 0 && tAfter <= 0.5) {
          median = z;
          medianAt = k;
        }
        if (out.splatWeightSum && out.splatWeightMax) {
          out.splatWeightSum[i] += w;
          out.splatWeightMax[i] = Math.max(out.splatWeightMax[i], w);
        }
        h = hashStep(hashStep(h, i), walk.clamped[k]);
      }
      h = hashStep(hashStep(h, walk.stoppedAt), medianAt);
      const T = walk.finalT;
      out.rgb[3 * p] = r + T * input.background[0];
      out.rgb[3 * p + 1] = g + T * input.background[1];
      out.rgb[3 * p + 2] = b + T * input.background[2];
      out.alpha[p] = 1 - T;
      out.depth[p] = depth;
      out.compositedCount[p] = walk.n;
      out.stopMargin[p] = walk.stopMargin;
      if (out.medianDepth) out.medianDepth[p] = median;
      if (out.distortion) out.distortion[p] = distortion;
    }
  }
  out.branchSignature = h;
  return out;
}
