import { lookAt, type PinholeCamera } from '../../shared/scene/camera.js';
import { readBuffer, uploadStorage } from '../../main/engine/gpu/buffers.js';
import type { GpuContext } from '../../main/engine/gpu/context.js';
import type { KernelVariant } from '../../main/engine/gpu/kernels.js';
import type { VoxelGrid } from '../../main/engine/mesh/grid.js';
import { MarchingCubes } from '../../main/engine/mesh/marching-cubes.js';
import { TsdfVolume } from '../../main/engine/mesh/tsdf.js';
import { rng } from '../helpers/random.js';
import { analyticTsdf, marchingCubesReference, shapeDistance, type Shape } from '../reference/marching-cubes.js';
import { carveReference, integrateReference, type TsdfState } from '../reference/tsdf.js';
import type { ParityResult } from './types.js';

export interface MeshCase {
  /** Grid points per axis. */
  dims: [number, number, number];
  /** Cells (marching cubes) or points (TSDF) per dispatch: small values exercise many slabs. */
  perDispatch: number;
  shapes: number;
}

export const MESH_CASES: readonly MeshCase[] = [
  { dims: [12, 12, 12], perDispatch: 1 << 22, shapes: 1 },
  { dims: [24, 17, 20], perDispatch: 1000, shapes: 3 },
  { dims: [40, 33, 37], perDispatch: 5000, shapes: 4 },
];

export function randomShapes(random: () => number, count: number): Shape[] {
  const shapes: Shape[] = [];
  const r = () => random() * 2 - 1;
  for (let i = 0; i < count; i++) {
    const center = [0.4 * r(), 0.4 * r(), 0.4 * r()];
    if (random() < 0.5) shapes.push({ kind: 'sphere', center, radius: 0.15 + 0.35 * random() });
    else shapes.push({ kind: 'box', center, half: [0.1 + 0.3 * random(), 0.1 + 0.3 * random(), 0.1 + 0.3 * random()] });
  }
  return shapes;
}

export function unitGrid(dims: [number, number, number]): VoxelGrid {
  const voxelSize = 2 / (Math.max(...dims) - 1);
  return { origin: [-1, -1, -1], voxelSize, dims, truncation: 3 * voxelSize };
}

/**
 * Marching cubes on random unions of spheres and boxes (values clamped to [-1, 1] truncation
 * units, about 3% of points unobserved, random colours): the GPU's triangles must be the
 * reference's, in the same order, with the same edge keys; positions within 1e-5 of the voxel
 * size; colours within one 8-bit step. The output is poisoned before every slab.
 */
export async function marchingCubesParity(ctx: GpuContext, seed: number, c: MeshCase): Promise<ParityResult> {
  const random = rng(seed);
  const grid = unitGrid(c.dims);
  // shapes that miss the grid give no surface, and a parity of no triangles proves nothing: draw
  // again (from the same seed's stream, so a seed still names its case)
  let values = analyticTsdf(grid, randomShapes(random, c.shapes));
  for (let draw = 0; draw < 20 && !hasSurface(values); draw++) values = analyticTsdf(grid, randomShapes(random, c.shapes));
  const points = values.length;
  const weights = new Float32Array(points);
  const colors = new Uint32Array(points);
  for (let p = 0; p < points; p++) {
    weights[p] = random() < 0.03 ? 0 : 1 + Math.floor(random() * 5);
    colors[p] = random() < 0.1 ? 0 : ((Math.floor(random() * 256) | (Math.floor(random() * 256) << 8) | (Math.floor(random() * 256) << 16) | ((1 + Math.floor(random() * 254)) << 24)) >>> 0);
  }
  const volume = await TsdfVolume.create(ctx, grid);
  ctx.device.queue.writeBuffer(volume.values, 0, values);
  ctx.device.queue.writeBuffer(volume.weights, 0, weights);
  ctx.device.queue.writeBuffer(volume.colors, 0, colors);
  const mc = await MarchingCubes.create(ctx, { maxCellsPerDispatch: c.perDispatch });
  const got = await mc.extract(volume, { poison: 0x7fc00001 });
  volume.destroy();
  const want = marchingCubesReference(grid, values, weights, colors);
  const name = `marching cubes ${c.dims.join('x')} (${c.shapes} shapes, ${c.perDispatch} cells a dispatch): ${want.triangles} triangles`;
  if (got.triangles !== want.triangles) return { name, variant: ctx.info.variant, seed, ok: false, error: Math.abs(got.triangles - want.triangles), tolerance: 0, detail: `${got.triangles} triangles, want ${want.triangles}` };
  let keyMismatches = 0;
  let worst = 0;
  let colorWorst = 0;
  let firstBad = -1;
  for (let v = 0; v < want.triangles * 3; v++) {
    if (got.keys[v] !== want.keys[v]) {
      keyMismatches++;
      if (firstBad < 0) firstBad = v;
    }
    for (let d = 0; d < 3; d++) {
      const e = Math.abs(got.positions[3 * v + d] - want.positions[3 * v + d]);
      worst = Number.isFinite(e) ? Math.max(worst, e) : Infinity;
      colorWorst = Math.max(colorWorst, Math.abs(got.colors[4 * v + d] - want.colors[3 * v + d]));
    }
  }
  const error = worst / grid.voxelSize;
  const ok = keyMismatches === 0 && error <= 1e-5 && colorWorst <= 1 && want.triangles > 0;
  return {
    name,
    variant: ctx.info.variant,
    seed,
    ok,
    error,
    tolerance: 1e-5,
    detail: keyMismatches ? `${keyMismatches} edge keys differ (first at vertex ${firstBad})` : colorWorst > 1 ? `colour differs by ${colorWorst}` : want.triangles === 0 ? 'no triangles' : undefined,
  };
}

/** A camera on a sphere of radius 2.5..3.5 around the origin, looking at it. */
export function randomCamera(random: () => number, width: number, height: number): PinholeCamera {
  const z = random() * 2 - 1;
  const phi = random() * 2 * Math.PI;
  const r = 2.5 + random();
  const s = Math.sqrt(1 - z * z);
  const eye = [r * s * Math.cos(phi), r * z, r * s * Math.sin(phi)];
  const up = Math.abs(z) > 0.9 ? [1, 0, 0] : [0, 1, 0];
  const f = 0.9 * width;
  return { width, height, fx: f, fy: f * (0.9 + 0.2 * random()), cx: width / 2 + random() - 0.5, cy: height / 2 + random() - 0.5, worldToCamera: lookAt(eye, [0, 0, 0], up) };
}

/** Ray-marched depth of the shapes at each pixel centre; alpha and colour random inside, background outside. */
export function renderView(random: () => number, camera: PinholeCamera, shapes: readonly Shape[], depthMode: 'expected' | 'direct') {
  const { width, height } = camera;
  const depth = new Float32Array(width * height);
  const image = new Float32Array(width * height * 4);
  const m = camera.worldToCamera;
  const eye = [0, 1, 2].map((i) => -(m[i] * m[3] + m[4 + i] * m[7] + m[8 + i] * m[11]));
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const dc = [(x + 0.5 - camera.cx) / camera.fx, (y + 0.5 - camera.cy) / camera.fy, 1];
      const dir = [0, 1, 2].map((i) => m[i] * dc[0] + m[4 + i] * dc[1] + m[8 + i] * dc[2]); // R^T dc, camera z = 1 per unit t
      let t = 0.5;
      let hit = false;
      for (let step = 0; step < 400 && t < 6; step++) {
        const p = [eye[0] + t * dir[0], eye[1] + t * dir[1], eye[2] + t * dir[2]];
        const d = Math.min(...shapes.map((s) => shapeDistance(s, p)));
        if (d < 1e-4) {
          hit = true;
          break;
        }
        t += d / Math.hypot(dir[0], dir[1], dir[2]);
      }
      const pixel = y * width + x;
      // alpha away from the 0.5 threshold, so the threshold decision is never a float question
      const alpha = hit ? 0.6 + 0.4 * random() : 0.4 * random();
      const z = hit ? t : 2 + 3 * random();
      depth[pixel] = depthMode === 'expected' ? z * alpha : z;
      for (let c = 0; c < 3; c++) image[4 * pixel + c] = random() * alpha;
      image[4 * pixel + 3] = alpha;
    }
  }
  return { depth, image };
}

export interface TsdfParityOptions {
  views?: number;
  depthMode?: 'expected' | 'direct';
  carve?: boolean;
  depthStride?: number;
  /** Give every other view a random image alpha (the training image's own, for the free-space vote). */
  imageAlpha?: boolean;
  /** Run the carve pass after the views with this many votes (0: none). */
  carveVotes?: number;
  variant?: KernelVariant;
}

const CARVE_ALPHA = 0.05;
const CARVE_DEPTH_TRUNCATIONS = 1;

/**
 * TSDF fusion of several random views of random shapes into a volume that starts from a random
 * state (weights 0..4, values in [-1, 1], colours, free-space votes 0..3: so a kernel that
 * assigned instead of accumulating, or wrote a point it should leave alone, differs), then
 * optionally the carve pass: every point the reference updates must match it (weight and votes
 * exactly, value within 1e-5, colour within one step), and every point it leaves alone must keep
 * its bits. Points at a float32 decision boundary are left out and counted.
 */
export async function tsdfParity(ctx: GpuContext, seed: number, c: MeshCase, options: TsdfParityOptions = {}): Promise<ParityResult> {
  const random = rng(seed);
  const grid = unitGrid(c.dims);
  const shapes = randomShapes(random, c.shapes);
  const depthMode = options.depthMode ?? 'expected';
  const carve = options.carve ?? true;
  const carveVotes = options.carveVotes ?? 0;
  const points = grid.dims[0] * grid.dims[1] * grid.dims[2];
  const state: TsdfState = { values: new Float64Array(points), weights: new Float64Array(points), colors: new Uint32Array(points), freeVotes: new Uint32Array(points) };
  const values32 = new Float32Array(points);
  const weights32 = new Float32Array(points);
  for (let p = 0; p < points; p++) {
    const w = random() < 0.5 ? 0 : Math.floor(random() * 5);
    weights32[p] = w;
    values32[p] = w ? random() * 2 - 1 : 0;
    state.colors[p] = w ? ((Math.floor(random() * 256) | (Math.floor(random() * 256) << 8) | (Math.floor(random() * 256) << 16) | (Math.floor(random() * 4) << 24)) >>> 0) : 0;
    state.freeVotes[p] = Math.floor(random() * 4);
  }
  state.values.set(values32);
  state.weights.set(weights32);
  const initialColors = state.colors.slice();
  const initialVotes = state.freeVotes.slice();
  const stride = options.depthStride ?? 1;
  const volume = await TsdfVolume.create(ctx, grid, {
    depthMode: depthMode === 'direct' ? 'direct' : 'expected',
    depthStride: stride,
    carve,
    carveAlpha: CARVE_ALPHA,
    carveDepthTruncations: CARVE_DEPTH_TRUNCATIONS,
    maxPointsPerDispatch: c.perDispatch,
    variant: options.variant,
  });
  const { device } = ctx;
  device.queue.writeBuffer(volume.values, 0, values32);
  device.queue.writeBuffer(volume.weights, 0, weights32);
  device.queue.writeBuffer(volume.colors, 0, initialColors);
  device.queue.writeBuffer(volume.freeVotes, 0, initialVotes);
  const ambiguous = new Set<number>();
  const touched = new Set<number>();
  const viewCount = options.views ?? 3;
  const referenceOptions = { alphaMin: 0.5, carve, depthMode, near: 0.01, carveAlpha: CARVE_ALPHA, carveDepth: CARVE_DEPTH_TRUNCATIONS * grid.truncation };
  for (let v = 0; v < viewCount; v++) {
    const width = 24 + Math.floor(random() * 16);
    const height = 20 + Math.floor(random() * 16);
    const camera = randomCamera(random, width, height);
    const { depth, image } = renderView(random, camera, shapes, depthMode);
    // a quarter of the pixels under the vote's threshold, the rest over it (never within 1e-3 of it)
    const imageAlpha = options.imageAlpha && v % 2 === 0 ? Float32Array.from({ length: width * height }, () => (random() < 0.25 ? CARVE_ALPHA * 0.98 * random() : CARVE_ALPHA * 1.02 + random() * 0.9)) : undefined;
    const before = state.weights.slice();
    const votesBefore = state.freeVotes.slice();
    integrateReference(grid, state, { camera, depth, image, imageAlpha }, referenceOptions, ambiguous);
    for (let p = 0; p < points; p++) if (state.weights[p] !== before[p] || state.freeVotes[p] !== votesBefore[p]) touched.add(p);
    // strided depth (a frame's geometry buffer: median first, then other values the volume must skip)
    const strided = new Float32Array(depth.length * stride).map((_, i) => (i % stride === 0 ? depth[i / stride] : -1e6));
    const depthBuffer = uploadStorage(device, 'tsdf.test.depth', strided);
    const imageBuffer = uploadStorage(device, 'tsdf.test.image', image);
    const binding = volume.bindView(depthBuffer, imageBuffer, width, height);
    // the alpha buffer holds garbage (all under the threshold) for views without one: has_alpha must gate it
    if (!imageAlpha) device.queue.writeBuffer(binding.viewAlpha, 0, new Float32Array(width * height));
    const commands = ctx.commands('tsdf.test');
    volume.encodeIntegrate(commands, binding, camera, imageAlpha);
    await commands.submit();
    await device.queue.onSubmittedWorkDone();
    depthBuffer.destroy();
    imageBuffer.destroy();
  }
  if (carveVotes > 0) {
    for (let p = 0; p < points; p++) {
      if (Math.abs(state.values[p]) < 1e-5 && state.freeVotes[p] >= carveVotes) ambiguous.add(p); // the sign is a float32 question
      if (state.freeVotes[p] >= carveVotes && state.values[p] < 0) touched.add(p);
    }
    carveReference(state, carveVotes);
    const commands = ctx.commands('tsdf.test.carve');
    await volume.encodeCarve(commands, carveVotes);
    await commands.submit();
  }
  const gotValues = new Float32Array(await readBuffer(device, volume.values, points * 4));
  const gotWeights = new Float32Array(await readBuffer(device, volume.weights, points * 4));
  const gotColors = new Uint32Array(await readBuffer(device, volume.colors, points * 4));
  const gotVotes = new Uint32Array(await readBuffer(device, volume.freeVotes, points * 4));
  volume.destroy();
  ctx.assertNoErrors('tsdf parity');
  let worst = 0;
  let weightMismatches = 0;
  let voteMismatches = 0;
  let colorWorst = 0;
  let untouchedChanged = 0;
  let carved = 0;
  for (let p = 0; p < points; p++) {
    if (ambiguous.has(p)) continue;
    if (!touched.has(p)) {
      if (gotValues[p] !== values32[p] && !(Number.isNaN(gotValues[p]) && Number.isNaN(values32[p]))) untouchedChanged++;
      else if (gotWeights[p] !== weights32[p] || gotColors[p] !== initialColors[p] || gotVotes[p] !== initialVotes[p]) untouchedChanged++;
      continue;
    }
    if (gotWeights[p] !== state.weights[p]) weightMismatches++;
    if (gotVotes[p] !== state.freeVotes[p]) voteMismatches++;
    if (carveVotes > 0 && state.values[p] === 1 && state.freeVotes[p] >= carveVotes) carved++;
    const e = Math.abs(gotValues[p] - state.values[p]);
    worst = Number.isFinite(e) ? Math.max(worst, e) : Infinity;
    const a = gotColors[p];
    const b = state.colors[p];
    if (a >>> 24 !== b >>> 24) colorWorst = Math.max(colorWorst, 256);
    for (let ch = 0; ch < 3; ch++) colorWorst = Math.max(colorWorst, Math.abs(((a >>> (8 * ch)) & 255) - ((b >>> (8 * ch)) & 255)));
  }
  // a carve case that carves nothing proves nothing about the pass
  const carveProven = carveVotes === 0 || carved > 0;
  const ok = worst <= 1e-5 && weightMismatches === 0 && voteMismatches === 0 && colorWorst <= 1 && untouchedChanged === 0 && touched.size > points / 20 && carveProven;
  return {
    name: `tsdf ${c.dims.join('x')} (${viewCount} views, ${depthMode} depth, stride ${stride}, carve ${carve}${options.imageAlpha ? ', image alpha' : ''}${carveVotes ? `, carve pass at ${carveVotes} votes: ${carved} points carved` : ''}, ${c.perDispatch} points a dispatch): ${touched.size} points updated, ${ambiguous.size} at a float32 boundary left out`,
    variant: options.variant ?? ctx.info.variant,
    seed,
    ok,
    error: worst,
    tolerance: 1e-5,
    // (the last: a case whose random views update under 5% of the grid proves too little; 10%
    // failed about one seed in fifteen on 24x17x20 with stride 4, no carving)
    detail: weightMismatches
      ? `${weightMismatches} weights differ`
      : voteMismatches
        ? `${voteMismatches} free-space votes differ`
        : untouchedChanged
          ? `${untouchedChanged} points changed that the reference leaves alone`
          : colorWorst > 1
            ? `colour differs by ${colorWorst}`
            : touched.size <= points / 20
              ? `only ${touched.size} points updated`
              : !carveProven
                ? 'the carve pass carved no point'
                : undefined,
  };
}

/** Whether a TSDF has a zero crossing between two neighbouring points along x (a surface for marching cubes). */
function hasSurface(values: Float32Array): boolean {
  for (let p = 1; p < values.length; p++) if (values[p - 1] < 0 !== values[p] < 0) return true;
  return false;
}
