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

async function render(ctx: GpuContext, splats: SplatSet, camera: PinholeCamera, centreDepth: boolean): Promise<Rendered> {
  const rasterizer = await Rasterizer.create(ctx);
  const rayDepth = await RayDepth.create(ctx, { centreDepth });
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
