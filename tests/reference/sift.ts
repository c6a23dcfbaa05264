/**
 * SIFT in float64, stage by stage: the reference kernels/sift-*.wgsl are held to. Written from the
 * papers' and VLFeat's documented conventions (main/engine/sfm/sift-options.ts states them), not
 * from the GPU code: only the parameters are shared.
 *   referencePyramid     Gaussian levels (separable blur, clamp-to-edge) and DoG, per octave
 *   referenceDetect      3x3x3 extrema, quadratic refinement, contrast and edge tests
 *   referenceOrientations 36-bin histograms, smoothed, peaks >= 0.8 max, parabolic interpolation
 *   referenceDescriptor  4x4x8 trilinear histogram, clamp 0.2, RootSIFT
 */
import {
  CAMERA_BLUR, DESCRIPTOR_CLAMP, DESCRIPTOR_MAGNIFICATION, DETECT_BORDER, ORIENTATION_BINS, ORIENTATION_PEAK_RATIO,
  ORIENTATION_SIGMA_FACTOR, ORIENTATION_SMOOTHINGS, PRE_THRESHOLD_FRACTION, REFINE_MAX_OFFSET, REFINE_STEPS, SIGMA0,
  octaveLayout, type SiftOptions,
} from '../../main/engine/sfm/sift-options.js';
import { upsample2x, type GreyImage } from '../../main/engine/sfm/grey-image.js';
import type { DetectedKeypoint } from '../../main/engine/sfm/sift-detect.js';

export interface ReferenceOctave {
  width: number;
  height: number;
  step: number;
  gauss: Float64Array[];
  dog: Float64Array[];
}

function blur(src: Float64Array, w: number, h: number, sigma: number): Float64Array {
  const r = Math.ceil(4 * sigma);
  const k = Float64Array.from({ length: 2 * r + 1 }, (_, i) => Math.exp(-((i - r) ** 2) / (2 * sigma * sigma)));
  const total = k.reduce((a, b) => a + b, 0);
  for (let i = 0; i < k.length; i++) k[i] /= total;
  const tmp = new Float64Array(w * h);
  const out = new Float64Array(w * h);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      let s = 0;
      for (let d = -r; d <= r; d++) s += k[d + r] * src[y * w + Math.min(w - 1, Math.max(0, x + d))];
      tmp[y * w + x] = s;
    }
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      let s = 0;
      for (let d = -r; d <= r; d++) s += k[d + r] * tmp[Math.min(h - 1, Math.max(0, y + d)) * w + x];
      out[y * w + x] = s;
    }
  return out;
}

export function referencePyramid(image: GreyImage, options: SiftOptions): ReferenceOctave[] {
  const input = options.firstOctave === -1 ? upsample2x(image) : image;
  const S = options.scalesPerOctave;
  const sigmaAt = (s: number) => SIGMA0 * 2 ** (s / S);
  const camera = options.firstOctave === -1 ? 2 * CAMERA_BLUR : CAMERA_BLUR;
  const octaves: ReferenceOctave[] = [];
  for (const layout of octaveLayout(image.width, image.height, options)) {
    const { width: w, height: h } = layout;
    let base: Float64Array;
    if (layout.index === 0) base = blur(Float64Array.from(input.data), w, h, Math.sqrt(SIGMA0 ** 2 - camera ** 2));
    else {
      const prev = octaves[layout.index - 1];
      base = new Float64Array(w * h);
      for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) base[y * w + x] = prev.gauss[S][2 * y * prev.width + 2 * x];
    }
    const gauss = [base];
    for (let s = 1; s <= S + 2; s++) gauss.push(blur(gauss[s - 1], w, h, Math.sqrt(sigmaAt(s) ** 2 - sigmaAt(s - 1) ** 2)));
    const dog = gauss.slice(0, -1).map((g, s) => Float64Array.from(g, (v, p) => gauss[s + 1][p] - v));
    octaves.push({ width: w, height: h, step: layout.step, gauss, dog });
  }
  return octaves;
}

/** A refined extremum, octave units: the product's DetectedKeypoint fields (sift-detect.ts), computed here in float64. */
export type ReferenceKeypoint = DetectedKeypoint;

const roundAway = (v: number) => Math.sign(v) * Math.floor(Math.abs(v) + 0.5);

/** Solves H x = -g (3x3, symmetric) by Cramer's rule; undefined when singular. */
function solve3(h: number[], g: number[]): number[] | undefined {
  const [a, b, c, d, e, f, gg, hh, i] = h;
  const det = a * (e * i - f * hh) - b * (d * i - f * gg) + c * (d * hh - e * gg);
  if (det === 0 || !Number.isFinite(det)) return undefined;
  const r = g.map((v) => -v);
  const dx = (r[0] * (e * i - f * hh) - b * (r[1] * i - f * r[2]) + c * (r[1] * hh - e * r[2])) / det;
  const dy = (a * (r[1] * i - f * r[2]) - r[0] * (d * i - f * gg) + c * (d * r[2] - r[1] * gg)) / det;
  const ds = (a * (e * r[2] - r[1] * hh) - b * (d * r[2] - r[1] * gg) + r[0] * (d * hh - e * gg)) / det;
  return [dx, dy, ds];
}

/** Keypoints of every octave, sorted by (octave, yi, xi, si), one per final sample. */
export function referenceDetect(octaves: readonly ReferenceOctave[], options: SiftOptions): ReferenceKeypoint[] {
  const S = options.scalesPerOctave;
  const out: ReferenceKeypoint[] = [];
  const B = DETECT_BORDER;
  const r = options.edgeThreshold;
  octaves.forEach((oct, o) => {
    const { width: w, height: h, dog } = oct;
    const D = (x: number, y: number, s: number) => dog[s][y * w + x];
    for (let s = 1; s <= S; s++)
      for (let y = B; y < h - B; y++)
        for (let x = B; x < w - B; x++) {
          const v = D(x, y, s);
          if (Math.abs(v) < PRE_THRESHOLD_FRACTION * options.peakThreshold) continue;
          let extremum = true;
          for (let ds = -1; ds <= 1 && extremum; ds++)
            for (let dy = -1; dy <= 1 && extremum; dy++)
              for (let dx = -1; dx <= 1; dx++) {
                if (!dx && !dy && !ds) continue;
                const n = D(x + dx, y + dy, s + ds);
                if (v > 0 ? !(v > n) : !(v < n)) {
                  extremum = false;
                  break;
                }
              }
          if (!extremum) continue;
          let [xi, yi, si] = [x, y, s];
          let offset: number[] | undefined;
          let g: number[] = [];
          let hess: number[] = [];
          let converged = false;
          for (let step = 0; step < REFINE_STEPS; step++) {
            const c = D(xi, yi, si);
            g = [(D(xi + 1, yi, si) - D(xi - 1, yi, si)) / 2, (D(xi, yi + 1, si) - D(xi, yi - 1, si)) / 2, (D(xi, yi, si + 1) - D(xi, yi, si - 1)) / 2];
            const dxx = D(xi + 1, yi, si) + D(xi - 1, yi, si) - 2 * c;
            const dyy = D(xi, yi + 1, si) + D(xi, yi - 1, si) - 2 * c;
            const dss = D(xi, yi, si + 1) + D(xi, yi, si - 1) - 2 * c;
            const dxy = (D(xi + 1, yi + 1, si) - D(xi - 1, yi + 1, si) - D(xi + 1, yi - 1, si) + D(xi - 1, yi - 1, si)) / 4;
            const dxs = (D(xi + 1, yi, si + 1) - D(xi - 1, yi, si + 1) - D(xi + 1, yi, si - 1) + D(xi - 1, yi, si - 1)) / 4;
            const dys = (D(xi, yi + 1, si + 1) - D(xi, yi - 1, si + 1) - D(xi, yi + 1, si - 1) + D(xi, yi - 1, si - 1)) / 4;
            hess = [dxx, dxy, dxs, dxy, dyy, dys, dxs, dys, dss];
            offset = solve3(hess, g);
            if (!offset || offset.some((v) => Math.abs(v) > REFINE_MAX_OFFSET)) break;
            if (offset.every((v) => Math.abs(v) < 0.5)) {
              converged = true;
              break;
            }
            xi += roundAway(offset[0]);
            yi += roundAway(offset[1]);
            si += roundAway(offset[2]);
            if (si < 1 || si > S || xi < B || xi >= w - B || yi < B || yi >= h - B) break;
          }
          if (!converged || !offset) continue;
          const value = D(xi, yi, si) + 0.5 * (g[0] * offset[0] + g[1] * offset[1] + g[2] * offset[2]);
          if (Math.abs(value) < options.peakThreshold) continue;
          const tr = hess[0] + hess[4];
          const det = hess[0] * hess[4] - hess[1] * hess[1];
          if (det <= 0 || tr * tr * r >= (r + 1) * (r + 1) * det) continue;
          out.push({ octave: o, x: xi + offset[0], y: yi + offset[1], s: si + offset[2], response: Math.abs(value), xi, yi, si });
        }
  });
  out.sort((a, b) => a.octave - b.octave || a.yi - b.yi || a.xi - b.xi || a.si - b.si);
  return out.filter((k, i) => i === 0 || k.octave !== out[i - 1].octave || k.yi !== out[i - 1].yi || k.xi !== out[i - 1].xi || k.si !== out[i - 1].si);
}

/** Where a keypoint samples its gradients: its octave's Gaussian level si, sigma in octave units. */
export interface ReferenceSample {
  octave: number;
  level: number;
  x: number;
  y: number;
  sigma: number;
}

function gradient(level: Float64Array, w: number, x: number, y: number): [number, number] {
  const gx = 0.5 * (level[y * w + x + 1] - level[y * w + x - 1]);
  const gy = 0.5 * (level[(y + 1) * w + x] - level[(y - 1) * w + x]);
  return [Math.hypot(gx, gy), ((Math.atan2(gy, gx) % (2 * Math.PI)) + 2 * Math.PI) % (2 * Math.PI)];
}

/** Dominant orientations (radians in [0, 2 pi)), strongest first, at most `max`. */
export function referenceOrientations(octaves: readonly ReferenceOctave[], k: ReferenceSample, max: number): number[] {
  const { width: w, height: h } = octaves[k.octave];
  const level = octaves[k.octave].gauss[k.level];
  const N = ORIENTATION_BINS;
  const sigmaW = ORIENTATION_SIGMA_FACTOR * k.sigma;
  const W = Math.floor(3 * sigmaW);
  const xi = Math.floor(k.x + 0.5);
  const yi = Math.floor(k.y + 0.5);
  let hist = new Float64Array(N);
  for (let y = Math.max(yi - W, 1); y <= Math.min(yi + W, h - 2); y++)
    for (let x = Math.max(xi - W, 1); x <= Math.min(xi + W, w - 2); x++) {
      const r2 = (x - k.x) ** 2 + (y - k.y) ** 2;
      if (r2 >= W * W + 0.6) continue;
      const [mod, angle] = gradient(level, w, x, y);
      const weight = Math.exp(-r2 / (2 * sigmaW * sigmaW));
      const fbin = (N * angle) / (2 * Math.PI);
      const bin = Math.floor(fbin - 0.5);
      const rbin = fbin - bin - 0.5;
      hist[(bin + N) % N] += (1 - rbin) * mod * weight;
      hist[(bin + 1) % N] += rbin * mod * weight;
    }
  for (let it = 0; it < ORIENTATION_SMOOTHINGS; it++) hist = Float64Array.from(hist, (v, i) => (hist[(i + N - 1) % N] + v + hist[(i + 1) % N]) / 3);
  const top = Math.max(...hist);
  const peaks: { value: number; angle: number }[] = [];
  for (let i = 0; i < N; i++) {
    const [hm, h0, hp] = [hist[(i + N - 1) % N], hist[i], hist[(i + 1) % N]];
    if (!(h0 > hm && h0 > hp && h0 >= ORIENTATION_PEAK_RATIO * top)) continue;
    const di = (-0.5 * (hp - hm)) / (hp + hm - 2 * h0);
    const angle = ((((2 * Math.PI * (i + di + 0.5)) / N) % (2 * Math.PI)) + 2 * Math.PI) % (2 * Math.PI);
    peaks.push({ value: h0, angle });
  }
  peaks.sort((a, b) => b.value - a.value);
  return peaks.slice(0, max).map((p) => p.angle);
}

/** The 128 RootSIFT values (float, L2 norm 1), layout (ybin * 4 + xbin) * 8 + orientation bin. */
export function referenceDescriptor(octaves: readonly ReferenceOctave[], k: ReferenceSample, theta: number): Float64Array {
  const { width: w, height: h } = octaves[k.octave];
  const level = octaves[k.octave].gauss[k.level];
  const NBP = 4;
  const NBO = 8;
  const SBP = DESCRIPTOR_MAGNIFICATION * k.sigma;
  const W = Math.floor(Math.SQRT2 * SBP * (NBP + 1) * 0.5 + 0.5);
  const ct = Math.cos(theta);
  const st = Math.sin(theta);
  const xi = Math.floor(k.x + 0.5);
  const yi = Math.floor(k.y + 0.5);
  const d = new Float64Array(NBP * NBP * NBO);
  const wsigma = NBP / 2;
  for (let y = Math.max(yi - W, 1); y <= Math.min(yi + W, h - 2); y++)
    for (let x = Math.max(xi - W, 1); x <= Math.min(xi + W, w - 2); x++) {
      const dx = x - k.x;
      const dy = y - k.y;
      const nx = (ct * dx + st * dy) / SBP;
      const ny = (-st * dx + ct * dy) / SBP;
      const [mod, angle] = gradient(level, w, x, y);
      const rel = (((angle - theta) % (2 * Math.PI)) + 2 * Math.PI) % (2 * Math.PI);
      const nt = (NBO * rel) / (2 * Math.PI);
      const win = Math.exp(-(nx * nx + ny * ny) / (2 * wsigma * wsigma));
      const binx = Math.floor(nx - 0.5);
      const biny = Math.floor(ny - 0.5);
      const bint = Math.floor(nt);
      const rbinx = nx - (binx + 0.5);
      const rbiny = ny - (biny + 0.5);
      const rbint = nt - bint;
      for (let dbx = 0; dbx < 2; dbx++)
        for (let dby = 0; dby < 2; dby++)
          for (let dbt = 0; dbt < 2; dbt++) {
            const bx = binx + dbx;
            const by = biny + dby;
            if (bx < -NBP / 2 || bx >= NBP / 2 || by < -NBP / 2 || by >= NBP / 2) continue;
            const weight = win * mod * Math.abs(1 - dbx - rbinx) * Math.abs(1 - dby - rbiny) * Math.abs(1 - dbt - rbint);
            d[((by + NBP / 2) * NBP + bx + NBP / 2) * NBO + ((bint + dbt) % NBO)] += weight;
          }
    }
  return rootSift(d);
}

function rootSift(d: Float64Array): Float64Array {
  const l2 = () => Math.sqrt(d.reduce((a, v) => a + v * v, 0)) || 1;
  let n = l2();
  for (let i = 0; i < d.length; i++) d[i] = Math.min(d[i] / n, DESCRIPTOR_CLAMP);
  n = l2();
  for (let i = 0; i < d.length; i++) d[i] /= n;
  const l1 = d.reduce((a, v) => a + v, 0) || 1;
  return d.map((v) => Math.sqrt(v / l1));
}
