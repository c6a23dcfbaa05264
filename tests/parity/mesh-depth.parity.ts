import { lookAt, type PinholeCamera } from '../../shared/scene/camera.js';
import { emptySplats, SH_C0, type SplatSet } from '../../shared/scene/splats.js';
import { readBuffer } from '../../main/engine/gpu/buffers.js';
import type { GpuContext } from '../../main/engine/gpu/context.js';
import { RayDepth } from '../../main/engine/mesh/ray-depth.js';
import { GpuSplats } from '../../main/engine/render/gpu-splats.js';
import { Rasterizer } from '../../main/engine/render/rasterizer.js';
import { rng } from '../helpers/random.js';
import type { ParityResult } from './types.js';

interface Rendered {
  alpha: Float32Array;
  depth: Float32Array;
  ray: Float32Array;
}

async function render(ctx: GpuContext, splats: SplatSet, camera: PinholeCamera, centreDepth: boolean, entry = true): Promise<Rendered> {
  const rasterizer = await Rasterizer.create(ctx);
  const rayDepth = await RayDepth.create(ctx, { centreDepth, entry });
  const gpuSplats = GpuSplats.fromHost(ctx, splats);
  const frame = await rasterizer.createFrame(gpuSplats, camera.width, camera.height, splats.count * 64);
  const target = rayDepth.bind(frame);
  const pixels = camera.width * camera.height;
  ctx.device.queue.writeBuffer(target.depth, 0, new Uint32Array(pixels).fill(0x7fc00001)); // poisoned
  const commands = ctx.commands('mesh-depth.test');
  rasterizer.encodeForward(commands, frame, camera, { background: [0, 0, 0], antialiased: false, shDegree: 0 });
  rayDepth.encode(commands, target);
  await commands.submit();
  if ((await rasterizer.readCounts(frame)).overflow) throw new Error('intersection buffer overflow in the test render');
  const image = new Float32Array(await readBuffer(ctx.device, frame.image, pixels * 16));
  const depth = new Float32Array(await readBuffer(ctx.device, frame.depth, pixels * 4));
  const ray = new Float32Array(await readBuffer(ctx.device, target.depth, pixels * 4));
  target.destroy();
  frame.destroy();
  gpuSplats.destroy();
  ctx.assertNoErrors('mesh-depth parity');
  return { alpha: image.filter((_, i) => i % 4 === 3), depth, ray };
}

function randomCamera(random: () => number, width: number, height: number): PinholeCamera {
  const eye = [random() - 0.5, random() - 0.5, -3];
  return { width, height, fx: 1.1 * width, fy: 1.1 * width, cx: width / 2, cy: height / 2, worldToCamera: lookAt(eye, [0.2 * (random() - 0.5), 0.2 * (random() - 0.5), 0], [0, -1, 0]) };
}

/**
 * With CENTRE_DEPTH the depth pass must reproduce the rasterizer's depth / alpha for random
 * splats (every pixel, every value; poisoned output first): its loop, stops and weights are the
 * rasterizer's.
 */
export async function rayDepthLoopParity(ctx: GpuContext, seed: number, count = 400): Promise<ParityResult> {
  const random = rng(seed);
  const splats = emptySplats(count, 0);
  for (let i = 0; i < count; i++) {
    splats.means.set([random() * 1.6 - 0.8, random() * 1.6 - 0.8, random() * 1.6 - 0.8], 3 * i);
    splats.logScales.set([0, 1, 2].map(() => Math.log(0.02 + 0.1 * random())), 3 * i);
    const q = [random() - 0.5, random() - 0.5, random() - 0.5, random() - 0.5];
    splats.quats.set(q, 4 * i);
    splats.opacityLogits[i] = 4 * random() - 1;
    for (let c = 0; c < 3; c++) splats.sh[3 * i + c] = (random() - 0.5) / SH_C0;
  }
  const camera = randomCamera(random, 45, 37);
  const r = await render(ctx, splats, camera, true);
  let worst = 0;
  let covered = 0;
  for (let p = 0; p < r.alpha.length; p++) {
    const want = r.alpha[p] > 0 ? Math.fround(r.depth[p] / r.alpha[p]) : 0;
    if (r.alpha[p] > 0) covered++;
    const e = Math.abs(r.ray[p] - want) / Math.max(1e-3, Math.abs(want));
    worst = Number.isFinite(e) ? Math.max(worst, e) : Infinity;
  }
  return { name: `mesh-depth loop = rasterizer (centre depths, ${count} splats, ${covered} covered pixels)`, variant: ctx.info.variant, seed, ok: worst <= 1e-6 && covered > r.alpha.length / 4, error: worst, tolerance: 1e-6 };
}

/**
 * Flat splats (discs) on a random slanted plane, densely: wherever alpha > 0.5 the ray depth is
 * the plane's depth along the pixel's ray (to 1e-4 relative), whatever the weights; the centre
 * depth (the rasterizer's) is not, which is why extraction uses the ray depth.
 */
export async function rayDepthPlaneParity(ctx: GpuContext, seed: number): Promise<ParityResult & { centreError: number }> {
  const random = rng(seed);
  const n = [random() - 0.5, random() - 0.5, -1.5];
  const len = Math.hypot(n[0], n[1], n[2]);
  const normal = n.map((x) => x / len);
  const u = normalizeCross(normal, [0, 1, 0]);
  const v = normalizeCross(normal, u);
  const count = 900;
  const splats = emptySplats(count, 0);
  const q = quatFromZ(normal);
  for (let i = 0; i < count; i++) {
    const a = (random() * 2 - 1) * 1.2;
    const b = (random() * 2 - 1) * 1.2;
    splats.means.set([0, 1, 2].map((d) => a * u[d] + b * v[d]), 3 * i);
    splats.logScales.set([Math.log(0.08), Math.log(0.05), Math.log(1e-4)], 3 * i);
    splats.quats.set(q, 4 * i);
    splats.opacityLogits[i] = 1 + 3 * random();
  }
  const camera: PinholeCamera = { width: 40, height: 40, fx: 40, fy: 40, cx: 20, cy: 20, worldToCamera: lookAt([0.1, 0.05, -3], [0, 0, 0], [0, -1, 0]) };
  const r = await render(ctx, splats, camera, false);
  // plane through the origin with `normal`, in camera space: depth along pixel (x, y)
  const m = camera.worldToCamera;
  const nc = [0, 1, 2].map((row) => m[4 * row] * normal[0] + m[4 * row + 1] * normal[1] + m[4 * row + 2] * normal[2]);
  const oc = [m[3], m[7], m[11]]; // the world origin in camera space
  let worst = 0;
  let centreWorst = 0;
  let used = 0;
  for (let y = 0; y < camera.height; y++) {
    for (let x = 0; x < camera.width; x++) {
      const p = y * camera.width + x;
      if (!(r.alpha[p] > 0.5)) continue;
      used++;
      const dir = [(x + 0.5 - camera.cx) / camera.fx, (y + 0.5 - camera.cy) / camera.fy, 1];
      const t = (nc[0] * oc[0] + nc[1] * oc[1] + nc[2] * oc[2]) / (nc[0] * dir[0] + nc[1] * dir[1] + nc[2] * dir[2]);
      const e = Math.abs(r.ray[p] - t) / t;
      worst = Number.isFinite(e) ? Math.max(worst, e) : Infinity;
      centreWorst = Math.max(centreWorst, Math.abs(r.depth[p] / r.alpha[p] - t) / t);
    }
  }
  return {
    name: `mesh-depth on a slanted plane of flat splats (${used} pixels): ray depth error ${worst.toExponential(2)}, centre depth error ${centreWorst.toExponential(2)}`,
    variant: ctx.info.variant,
    seed,
    ok: worst <= 1e-4 && used > 800 && centreWorst > 10 * worst,
    error: worst,
    tolerance: 1e-4,
    centreError: centreWorst,
  };
}

function normalizeCross(a: number[], b: number[]): number[] {
  const c = [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
  const l = Math.hypot(c[0], c[1], c[2]);
  return c.map((x) => x / l);
}

/** Unit quaternion (w, x, y, z) rotating +z onto n. */
function quatFromZ(n: number[]): number[] {
  const q = [1 + n[2], -n[1], n[0], 0];
  const l = Math.hypot(q[0], q[1], q[2], q[3]);
  return l < 1e-9 ? [0, 1, 0, 0] : q.map((x) => x / l);
}

/**
 * The 'surface' depth against float64 on single random splats (anisotropic, rotated, opaque or
 * not): wherever the splat's alpha exceeds 1/2 the depth is where the pixel's ray enters its
 * alpha-1/2 level set, t* - sqrt(2 ln(2 alpha) / r.(S^-1 r)), else t*; clamped like the kernel.
 * And with `entry` off, t* itself.
 */
export async function rayDepthEntryParity(ctx: GpuContext, seed: number, trials = 9): Promise<ParityResult> {
  const random = rng(seed);
  let worst = 0;
  let entered = 0;
  let shifted = 0;
  for (let trial = 0; trial < trials; trial++) {
    const splats = emptySplats(1, 0);
    splats.means.set([0.3 * (random() - 0.5), 0.3 * (random() - 0.5), 0.3 * (random() - 0.5)]);
    const scales = [0, 1, 2].map(() => 0.08 + 0.25 * random());
    splats.logScales.set(scales.map(Math.log));
    const q = [random() - 0.5, random() - 0.5, random() - 0.5, random() - 0.5];
    splats.quats.set(q);
    const opacity = 0.4 + 0.59 * random();
    splats.opacityLogits[0] = Math.log(opacity / (1 - opacity));
    splats.sh.set([0.5 / SH_C0, 0.5 / SH_C0, 0.5 / SH_C0]);
    const camera = randomCamera(random, 48, 40);
    const entryOn = trial % 3 !== 2;
    const r = await render(ctx, splats, camera, false, entryOn);
    // float64: covariance in camera space, its inverse A
    const f = (x: number) => Math.fround(x);
    const qn = Math.hypot(...q.map(f));
    const [w, x, y, z] = q.map((v) => f(v) / qn);
    const R = [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y), 2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x), 2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)];
    const m = camera.worldToCamera;
    const W = [m[0], m[1], m[2], m[4], m[5], m[6], m[8], m[9], m[10]];
    const s2 = splats.logScales.slice(0, 3).map((l) => Math.exp(2 * l));
    const M = [0, 1, 2].flatMap((i) => [0, 1, 2].map((j) => W[3 * i] * R[j] + W[3 * i + 1] * R[3 + j] + W[3 * i + 2] * R[6 + j])); // W R
    const S = [0, 1, 2].flatMap((i) => [0, 1, 2].map((j) => M[3 * i] * M[3 * j] * s2[0] + M[3 * i + 1] * M[3 * j + 1] * s2[1] + M[3 * i + 2] * M[3 * j + 2] * s2[2]));
    const A = invert3(S);
    const mw = Array.from(splats.means.slice(0, 3));
    const mu = [0, 1, 2].map((i) => m[4 * i] * mw[0] + m[4 * i + 1] * mw[1] + m[4 * i + 2] * mw[2] + m[4 * i + 3]);
    const Amu = [0, 1, 2].map((i) => A[3 * i] * mu[0] + A[3 * i + 1] * mu[1] + A[3 * i + 2] * mu[2]);
    const radius = 3 * Math.max(...splats.logScales.slice(0, 3).map(Math.exp));
    for (let py = 0; py < camera.height; py++) {
      for (let px = 0; px < camera.width; px++) {
        const p = py * camera.width + px;
        const alpha = r.alpha[p];
        if (!(alpha >= 1 / 255)) continue;
        const dir = [(px + 0.5 - camera.cx) / camera.fx, (py + 0.5 - camera.cy) / camera.fy, 1];
        const Ar = [0, 1, 2].map((i) => A[3 * i] * dir[0] + A[3 * i + 1] * dir[1] + A[3 * i + 2] * dir[2]);
        const a = dir[0] * Ar[0] + dir[1] * Ar[1] + dir[2] * Ar[2];
        let t = (dir[0] * Amu[0] + dir[1] * Amu[1] + dir[2] * Amu[2]) / a;
        if (entryOn && alpha > 0.5) {
          const d = Math.sqrt((2 * Math.log(2 * alpha)) / a);
          t -= d;
          entered++;
          if (d > 1e-3 * mu[2]) shifted++;
        }
        const want = Math.min(mu[2] + radius, Math.max(mu[2] - radius, t));
        const e = Math.abs(r.ray[p] - want) / want;
        worst = Number.isFinite(e) ? Math.max(worst, e) : Infinity;
      }
    }
  }
  return {
    name: `mesh-depth surface entry on single splats (${entered} pixels entered, ${shifted} moved > 1e-3)`,
    variant: ctx.info.variant,
    seed,
    ok: worst <= 2e-4 && shifted >= 20,
    error: worst,
    tolerance: 2e-4,
  };
}

function invert3(m: number[]): number[] {
  const [a, b, c, d, e, f, g, h, i] = m;
  const A = e * i - f * h;
  const B = -(d * i - f * g);
  const C = d * h - e * g;
  const det = a * A + b * B + c * C;
  return [A, -(b * i - c * h), b * f - c * e, B, a * i - c * g, -(a * f - c * d), C, -(a * h - b * g), a * e - b * d].map((v) => v / det);
}
