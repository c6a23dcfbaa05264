import { poisonBuffer, readBuffer, writeRange, type GpuRange } from '../../main/engine/gpu/buffers.js';
import type { GpuContext } from '../../main/engine/gpu/context.js';
import type { KernelVariant } from '../../main/engine/gpu/kernels.js';
import { GpuSplatGrads, GpuSplats, shPlanarToAos } from '../../main/engine/render/gpu-splats.js';
import { CameraGradSum } from '../../main/engine/render/camera-grads.js';
import { Rasterizer } from '../../main/engine/render/rasterizer.js';
import type { SplatSet } from '../../shared/scene/splats.js';
import type { PinholeCamera } from '../../shared/scene/camera.js';
import type { RenderSettings } from '../../main/engine/render/camera-uniform.js';
import { rng } from '../helpers/random.js';
import { rasterizeBackward, rasterizeForward } from '../reference/rasterize.js';
import { randomLossWeights, randomScene, type LossWeights, type SplatKind } from '../reference/scenes.js';
import { relativeL2 } from './loss.parity.js';
import type { ParityResult } from './types.js';

export interface RasterCase {
  count: number;
  width: number;
  height: number;
  setDegree: number;
  shDegree?: number;
  antialiased: boolean;
  kinds?: readonly SplatKind[];
  /** The first splats' kinds, one each (randomScene's `leading`). */
  leading?: readonly SplatKind[];
  /** Optional outputs to render and differentiate too. */
  outputs?: { median?: boolean; normals?: boolean; distortion?: boolean; weights?: boolean };
}

/** Forward and backward of the GPU rasterizer against the float64 reference on one random scene. */
export interface RasterParityOptions {
  backwardReduce?: 'partials' | 'cas';
  backwardPixels?: 1 | 2;
  /** Rasterizer `bigSplat`: 1 sends every splat over more than one tile down the workgroup paths. */
  bigSplat?: number;
  /** Rasterizer `gatherItems` and `workgroupSize`: small gather chunks, so that many splats cross chunk borders. */
  gatherItems?: number;
  workgroupSize?: number;
  /** Camera refinement: also compare the summed dL/d(camera) (project_backward's shares, camera-grads.wgsl's sum). */
  cameraGrads?: boolean;
  /**
   * The frame's visible capacity (createFrame's `visibleCapacity`): 'exact' the view's visible
   * count (every ranked array full), 'half' half of it (the rest must be culled: the reference
   * renders the first half of the visible splats by index, the others with zero opacity, and
   * their gradients must be zero).
   */
  visibleCapacity?: 'exact' | 'half';
  /** false: project_backward without the screen-space gradient (MEAN2D_GRADS off): its buffer must stay as poisoned, every other gradient as the reference. */
  mean2dGrads?: boolean;
}

/**
 * The shift of every mean2d (both ways, in u and in v), in focal lengths, that finds the pixels
 * whose alpha cut float32 positions may flip: ~1e-6 of camera-space units is the float32 error of
 * the world-to-camera product here (depths 1.5-4), fx / z of it in pixels.
 */
const POSITION_NUDGE = 1e-6;

function zeroPixelWeights(weights: LossWeights, p: number): void {
  for (const w of [weights.alpha, weights.depth, weights.medianDepth, weights.distortion]) if (w) w[p] = 0;
  for (const w of [weights.rgb, weights.normals]) if (w) w.fill(0, 3 * p, 3 * p + 3);
}

/** The stop test within this relative distance of 1e-4 is a tie float32 may break either way (a few float32 ulps of a product of several factors). */
const STOP_TIE = 1e-5;

export async function rasterParity(ctx: GpuContext, variant: KernelVariant, seed: number, c: RasterCase, options: RasterParityOptions = {}): Promise<ParityResult[]> {
  const { backwardReduce = 'partials', backwardPixels = 1, bigSplat, gatherItems, workgroupSize, cameraGrads = false, visibleCapacity, mean2dGrads = true } = options;
  const random = rng(seed);
  const out = c.outputs ?? {};
  const refOptions = { antialiased: c.antialiased, medianDepth: Boolean(out.median), normals: Boolean(out.normals), distortion: Boolean(out.distortion), splatWeights: Boolean(out.weights) };
  const scene = randomScene(random, { count: c.count, width: c.width, height: c.height, setDegree: c.setDegree, shDegree: c.shDegree, options: refOptions, kinds: c.kinds, leading: c.leading });
  // The GPU works in float32: give the reference the same (rounded) parameters.
  const f32: SplatSet = {
    count: c.count,
    shDegree: c.setDegree,
    means: Float32Array.from(scene.splats.means),
    logScales: Float32Array.from(scene.splats.logScales),
    quats: Float32Array.from(scene.splats.quats),
    opacityLogits: Float32Array.from(scene.splats.opacityLogits),
    sh: Float32Array.from(scene.splats.sh),
  };
  const camera = { ...scene.camera, worldToCamera: Array.from(Float32Array.from(scene.camera.worldToCamera)) };
  const background = Array.from(Float32Array.from(scene.background)) as [number, number, number];
  const { device } = ctx;
  const rasterizer = await Rasterizer.create(ctx, { variant, backwardReduce, backwardPixels, bigSplat, gatherItems, workgroupSize, outputs: out, cameraGrads, mean2dGrads });
  const settings = { background, antialiased: c.antialiased, shDegree: scene.shDegree };
  const splats = GpuSplats.fromHost(ctx, f32, c.count + 7); // capacity > count: the GPU count must rule
  // the visible capacity asked for, and the splats it culls (by index, past the first V visible)
  const clamp = visibleCapacity ? await visibleClamp(ctx, rasterizer, splats, c, camera, settings, visibleCapacity) : undefined;
  const refSplats = clamp ? { ...f32, opacityLogits: Float32Array.from(f32.opacityLogits, (x, i) => (clamp.dropped.has(i) ? -1e30 : x)) } : f32;
  const input = { ...scene, splats: refSplats, camera, background };
  const ref = rasterizeForward(input);
  // Pixels at a discontinuity (alpha within float32 noise of the 1/255 cut, transmittance of
  // the 1e-4 stop) may legitimately go either way in float32: they are where nudging every
  // opacity by +-1e-5 changes which splats the reference composites, or where the stop test
  // lands within 1e-5 (relative) of 1e-4 (clamped alphas, which no nudge moves: two splats at
  // 0.99 give T = 0.01 x 0.01 exactly; seed 1494725223). Left out of the forward comparison, and counted.
  // Positions too: the GPU's mean2d carries float32 error (the world-to-camera product, ~1e-6 of
  // camera-space units, is ~1e-3 px at fx / z ~ 1000: POSITION_NUDGE), and a tiny splat's alpha moves
  // by d delta / sigma^2 with it: ~1e-3 relative at sigma ~ 0.5 px, 100x the opacity nudge, so a pixel
  // at its 1/255 cut goes either way (seed 557200633: one tiny splat's mean2d gradient 1.3% off).
  // Moving the principal point shifts every mean2d by exactly that many pixels.
  const nudged = (delta: number) => rasterizeForward({ ...input, splats: { ...refSplats, opacityLogits: Float64Array.from(refSplats.opacityLogits, (x) => x + delta) } });
  const shifted = (du: number, dv: number) => rasterizeForward({ ...input, camera: { ...camera, cx: camera.cx + du, cy: camera.cy + dv } });
  const shift = POSITION_NUDGE * Math.max(camera.fx, camera.fy);
  const nudges = [nudged(1e-5), nudged(-1e-5), shifted(shift, 0), shifted(-shift, 0), shifted(0, shift), shifted(0, -shift)];
  const ambiguous = new Uint8Array(c.width * c.height);
  let ambiguousCount = 0;
  for (let p = 0; p < ambiguous.length; p++) {
    const medianFlips = out.median && nudges.some((r) => r.medianDepth![p] !== ref.medianDepth![p]);
    const stopTie = ref.stopMargin[p] < STOP_TIE;
    if (nudges.some((r) => r.compositedCount[p] !== ref.compositedCount[p]) || medianFlips || stopTie) {
      ambiguous[p] = 1;
      ambiguousCount++;
    }
  }
  // room for every intersection of the big-splat case (a splat over every tile: tiles records)
  const tiles = Math.ceil(c.width / 16) * Math.ceil(c.height / 16);
  const frame = await rasterizer.createFrame(splats, c.width, c.height, Math.max(1 << 16, splats.capacity * 4, tiles * 8), clamp?.capacity);
  const P = c.width * c.height;
  poisonBuffer(device, frame.image);
  poisonBuffer(device, frame.depth);
  const weights = randomLossWeights(random, P, refOptions);
  // The backward is compared where the forward is: an ambiguous pixel's loss weights are zero, so
  // neither side's gradients hold what float32 may composite differently there.
  for (let p = 0; p < P; p++) if (ambiguous[p]) zeroPixelWeights(weights, p);
  const vImage = new Float32Array(P * 4);
  for (let p = 0; p < P; p++) vImage.set([weights.rgb[3 * p], weights.rgb[3 * p + 1], weights.rgb[3 * p + 2], weights.alpha[p]], 4 * p);
  writeRange(device, frame.pixelGrads!.image, vImage);
  const vAux = new Float32Array(P * 4);
  for (let p = 0; p < P; p++) vAux.set([weights.depth[p], weights.medianDepth?.[p] ?? 0, weights.distortion?.[p] ?? 0, 0], 4 * p);
  writeRange(device, frame.pixelGrads!.aux, vAux);
  const vNormals = new Float32Array(P * 4);
  if (weights.normals) for (let p = 0; p < P; p++) vNormals.set([weights.normals[3 * p], weights.normals[3 * p + 1], weights.normals[3 * p + 2], 0], 4 * p);
  if (out.normals) writeRange(device, frame.pixelGrads!.normals, vNormals);
  const grads = new GpuSplatGrads(ctx, splats.capacity, splats.shCoeffs);
  for (const b of grads.all) poisonBuffer(device, b);
  rasterizer.bindBackward(frame, grads);
  const cameraSum = cameraGrads ? await CameraGradSum.create(ctx, frame, variant) : undefined;
  if (cameraSum) {
    poisonBuffer(device, frame.cameraGradPartials);
    poisonBuffer(device, cameraSum.result);
  }
  const commands = ctx.commands('parity.raster');
  rasterizer.encodeForward(commands, frame, camera, settings);
  rasterizer.encodeBackward(commands, frame);
  cameraSum?.encode(commands);
  await commands.submit();
  const counts = await rasterizer.readCounts(frame);
  const image = new Float32Array(await readBuffer(device, frame.image, P * 16));
  const depth = new Float32Array(await readBuffer(device, frame.depth, P * 4));
  const rgb = new Float64Array(P * 3);
  const alpha = new Float64Array(P);
  const refRgb = Float64Array.from(ref.rgb);
  const refAlpha = Float64Array.from(ref.alpha);
  const refDepth = Float64Array.from(ref.depth);
  const gotDepth = Float64Array.from(depth);
  for (let p = 0; p < P; p++) {
    rgb.set([image[4 * p], image[4 * p + 1], image[4 * p + 2]], 3 * p);
    alpha[p] = image[4 * p + 3];
    if (ambiguous[p]) {
      // compare the unambiguous pixels only (both sides zeroed here)
      rgb.fill(0, 3 * p, 3 * p + 3);
      refRgb.fill(0, 3 * p, 3 * p + 3);
      alpha[p] = refAlpha[p] = gotDepth[p] = refDepth[p] = 0;
    }
  }
  const n = c.count;
  const read = async (b: GpuRange, floats: number) => new Float32Array(await readBuffer(device, b, floats * 4));
  const got = {
    means: await read(grads.means, 3 * n),
    logScales: await read(grads.logScales, 3 * n),
    quats: await read(grads.quats, 4 * n),
    opacityLogits: await read(grads.opacityLogits, n),
    sh: shPlanarToAos(await read(grads.sh, splats.capacity * splats.shCoeffs * 3), n, splats.shCoeffs * 3, splats.capacity),
    mean2dRaw: await read(grads.mean2d, 4 * n),
  };
  const mean2d = new Float32Array(2 * n);
  const absMean2d = new Float32Array(2 * n);
  for (let i = 0; i < n; i++) {
    mean2d.set([got.mean2dRaw[4 * i], got.mean2dRaw[4 * i + 1]], 2 * i);
    absMean2d.set([got.mean2dRaw[4 * i + 2], got.mean2dRaw[4 * i + 3]], 2 * i);
  }
  const refCamera = new Float64Array(12);
  const refGrads = rasterizeBackward(input, { rgb: weights.rgb, alpha: weights.alpha, depth: weights.depth, medianDepth: weights.medianDepth, normals: weights.normals, distortion: weights.distortion }, refCamera);
  const extra: { what: string; got: Float64Array; want: Float64Array; tolerance?: number }[] = [];
  if (cameraSum) {
    const got = new Float32Array(await readBuffer(device, cameraSum.result, 48));
    extra.push({ what: 'grad camera (pose, intrinsics)', got: Float64Array.from(got), want: refCamera, tolerance: 1e-3 });
    cameraSum.destroy();
  }
  if (out.median || out.distortion) {
    const geometry = new Float32Array(await readBuffer(device, frame.geometry, P * 16));
    if (out.median) extra.push({ what: 'forward median depth', got: Float64Array.from({ length: P }, (_, p) => (ambiguous[p] ? 0 : geometry[4 * p])), want: Float64Array.from({ length: P }, (_, p) => (ambiguous[p] ? 0 : ref.medianDepth![p])) });
    if (out.distortion) extra.push({ what: 'forward distortion', got: Float64Array.from({ length: P }, (_, p) => (ambiguous[p] ? 0 : geometry[4 * p + 1])), want: Float64Array.from({ length: P }, (_, p) => (ambiguous[p] ? 0 : ref.distortion![p])) });
  }
  if (out.normals) {
    const normals = new Float32Array(await readBuffer(device, frame.normals, P * 16));
    extra.push({ what: 'forward normals', got: Float64Array.from({ length: 3 * P }, (_, i) => (ambiguous[Math.floor(i / 3)] ? 0 : normals[4 * Math.floor(i / 3) + (i % 3)])), want: Float64Array.from({ length: 3 * P }, (_, i) => (ambiguous[Math.floor(i / 3)] ? 0 : ref.normals![i])) });
  }
  if (out.weights) {
    // per splat (sum of w, max w) over every pixel (discontinuity pixels included: their w is tiny)
    const w = new Float32Array(await readBuffer(device, frame.splatWeights, c.count * 8));
    extra.push({ what: 'forward splat weight sum', got: Float64Array.from({ length: c.count }, (_, i) => w[2 * i]), want: Float64Array.from(ref.splatWeightSum!) });
    extra.push({ what: 'forward splat weight max', got: Float64Array.from({ length: c.count }, (_, i) => w[2 * i + 1]), want: Float64Array.from(ref.splatWeightMax!) });
  }
  splats.destroy();
  grads.destroy();
  frame.destroy();
  const name = `raster${cameraGrads ? ' (camera grads)' : ''}${backwardReduce === 'cas' ? ' (cas)' : ''}${backwardPixels === 2 ? ' (2 px/thread)' : ''}${bigSplat !== undefined ? ` (big > ${bigSplat})` : ''}${gatherItems !== undefined ? ` (gather ${workgroupSize ?? 256}x${gatherItems})` : ''}${visibleCapacity ? ` (visible capacity ${visibleCapacity})` : ''}${mean2dGrads ? '' : ' (no mean2d grads)'}${c.outputs ? ` +${Object.keys(c.outputs).filter((k) => (c.outputs as Record<string, boolean>)[k]).join('+')}` : ''} ${c.count} splats ${c.width}x${c.height} deg ${scene.shDegree}/${c.setDegree}${c.antialiased ? ' aa' : ''}${c.kinds ? ` [${c.kinds.join(',')}]` : ''}${c.leading ? ` (${c.leading.length} leading)` : ''}`;
  const untouched = (what: string, values: Float32Array): ParityResult => {
    const words = new Uint32Array(values.buffer, values.byteOffset, values.length);
    const written = words.filter((w) => w !== 0x7fc00001).length;
    return { name: `${name}: ${what}`, variant, seed, ok: written === 0, error: written, tolerance: 0, detail: `${written} of ${words.length} words written` };
  };
  const result = (what: string, g: ArrayLike<number>, w: ArrayLike<number>, tolerance: number): ParityResult => {
    const error = relativeL2(g, w);
    let finite = true;
    for (let i = 0; i < g.length; i++) if (!Number.isFinite(g[i])) finite = false;
    // a clamped frame must rank exactly its capacity (every visible splat where fewer are visible:
    // a lone random splat is off the image now and then, and the capacity is never below 1) and
    // report the view's whole visible count
    const clampOk = !clamp || (counts.visible === Math.min(clamp.capacity, clamp.needed) && counts.visibleNeeded === clamp.needed);
    const clampDetail = clamp ? `; visible capacity ${clamp.capacity} of ${counts.visibleNeeded} needed (want ${clamp.needed}), ${counts.visible} ranked` : '';
    return { name: `${name}: ${what}`, variant, seed, ok: finite && error < tolerance && ambiguousCount <= 0.02 * P && !counts.overflow && clampOk, error, tolerance, detail: `${what} rel L2 ${error.toExponential(2)}${finite ? '' : ' (non-finite or unwritten values)'}${counts.overflow ? ' (intersections overflowed the capacity)' : ''}; ${counts.visible} visible, ${counts.intersections} intersections, ${ambiguousCount} pixels at a discontinuity left out${clampDetail}` };
  };
  return [
    result('forward rgb', rgb, refRgb, 1e-4),
    result('forward alpha', alpha, refAlpha, 1e-4),
    result('forward depth', gotDepth, refDepth, 1e-4),
    result('grad means', got.means, refGrads.means, 1e-3),
    result('grad logScales', got.logScales, refGrads.logScales, 1e-3),
    result('grad quats', got.quats, refGrads.quats, 1e-3),
    result('grad opacityLogits', got.opacityLogits, refGrads.opacityLogits, 1e-3),
    result('grad sh', got.sh, refGrads.sh, 1e-3),
    ...(mean2dGrads
      ? [result('grad mean2d', mean2d, refGrads.mean2d, 1e-3), result('absgrad mean2d', absMean2d, refGrads.absMean2d, 1e-3)]
      : [untouched('grad mean2d never written', got.mean2dRaw)]),
    ...extra.map((e) => result(e.what, e.got, e.want, e.tolerance ?? 1e-4)),
  ];
}

/**
 * The visible count of the scene's view (a full frame, the forward up to the count) and the
 * visible capacity `mode` asks for; `dropped`: the visible splats past the first `capacity` by
 * index, which a frame of that capacity must cull.
 */
async function visibleClamp(ctx: GpuContext, rasterizer: Rasterizer, splats: GpuSplats, c: RasterCase, camera: PinholeCamera, settings: RenderSettings, mode: 'exact' | 'half') {
  const full = await rasterizer.createFrame(splats, c.width, c.height);
  const commands = ctx.commands('parity.visible');
  rasterizer.encodeIntersectionCount(commands, full, camera, settings);
  await commands.submit();
  const needed = (await rasterizer.readCounts(full)).visibleNeeded;
  const flags = new Uint32Array(await readBuffer(ctx.device, full.internal.visible, c.count * 4));
  full.destroy();
  const capacity = Math.max(1, mode === 'exact' ? needed : Math.floor(needed / 2));
  const dropped = new Set<number>();
  let seen = 0;
  for (let i = 0; i < c.count; i++) if (flags[i] && seen++ >= capacity) dropped.add(i);
  return { needed, capacity, dropped };
}

export const RASTER_CASES: readonly RasterCase[] = [
  { count: 1, width: 32, height: 32, setDegree: 0, antialiased: false },
  { count: 40, width: 48, height: 40, setDegree: 1, antialiased: false },
  { count: 200, width: 64, height: 48, setDegree: 3, antialiased: false, kinds: ['ordinary', 'tiny', 'huge', 'transparent', 'behind', 'offscreen', 'opaque'] },
  { count: 200, width: 64, height: 48, setDegree: 3, shDegree: 2, antialiased: true, kinds: ['ordinary', 'tiny', 'huge', 'transparent', 'behind', 'opaque'] },
  { count: 2000, width: 96, height: 80, setDegree: 2, antialiased: false, kinds: ['ordinary', 'tiny', 'transparent'] },
  { count: 150, width: 64, height: 48, setDegree: 1, antialiased: false, kinds: ['ordinary', 'tiny', 'opaque'], outputs: { median: true, normals: true, distortion: true } },
  { count: 60, width: 40, height: 32, setDegree: 0, antialiased: true, outputs: { distortion: true } },
  { count: 60, width: 40, height: 32, setDegree: 0, antialiased: false, outputs: { median: true } },
  { count: 60, width: 40, height: 32, setDegree: 2, antialiased: false, outputs: { normals: true } },
  { count: 300, width: 64, height: 48, setDegree: 1, antialiased: false, kinds: ['ordinary', 'tiny', 'huge', 'transparent', 'behind', 'opaque'], outputs: { weights: true } },
  { count: 150, width: 48, height: 40, setDegree: 0, antialiased: true, outputs: { distortion: true, weights: true } },
];

/**
 * What real captures stress in gather_grads: a few splats over every tile of a big image (each
 * ~6,000 intersection records, spanning several gather chunks) among many tiny ones (a record
 * or two each, many to a chunk).
 */
export const BIG_SPLAT_CASE: RasterCase = { count: 1500, width: 1536, height: 1024, setDegree: 0, antialiased: false, kinds: ['tiny'], leading: ['huge', 'huge', 'huge', 'huge', 'huge'] };
