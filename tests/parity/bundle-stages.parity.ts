/**
 * Parity of the GPU bundle adjuster's stages (kernels/bundle-*.wgsl) against the float64
 * reference (sfm/bundle/reference.ts, camera-models.ts) on fresh random problems (10 images, 400
 * points, the five models mixed, two images held; tests/main/engine/sfm/bundle/gpu-problems.ts),
 * outputs poisoned first. One ParityResult per compared quantity; vitest
 * (tests/main/engine/sfm/bundle/gpu-*.test.ts) asserts on them, the GPU runner prints them.
 */
import type { GpuContext } from '../../main/engine/gpu/context.js';
import type { KernelVariant } from '../../main/engine/gpu/kernels.js';
import { generalIntrinsics, linearizeObservation, observationJacobiansScratch } from '../../main/engine/sfm/bundle/camera-models.js';
import { CHUNK_OBS, LIN_STRIDE, POINT_STRIDE, SEG_STRIDE, VEC } from '../../main/engine/sfm/bundle/gpu/gpu-layout.js';
import type { SyntheticProblemOptions } from '../../main/engine/sfm/bundle/gpu/synthetic-problem.js';
import { backSubstitute, pcg, reducedRightHandSide, schurMatVec } from '../../main/engine/sfm/bundle/reference.js';
import { rng } from '../helpers/random.js';
import { blockwiseDifference, PARITY_OPTIONS, relativeDifference, SMALL_PROBLEM } from '../main/engine/sfm/bundle/gpu-problems.js';
import { linearisedCase } from '../main/engine/sfm/bundle/gpu-setup.js';
import type { ParityResult } from './types.js';

/** Problem shapes: five cameras, and one camera shared by every image (its sums over several chunks). */
export const BUNDLE_SHAPES: readonly { name: string; shape: SyntheticProblemOptions }[] = [
  { name: 'five cameras', shape: SMALL_PROBLEM },
  { name: 'one camera, several chunks', shape: { ...SMALL_PROBLEM, models: ['OPENCV'] } },
];

/**
 * Blocks summed with the IRLS weights: float32 residuals carry ~1e-4 px of rounding (X_c.z ~ 4 in
 * the normalised frame holds 7 digits, times f ~ 800 px), which moves a Cauchy weight by up to
 * ~1e-4 (measured: V 3.4e-5 to 5.3e-5, U 0.9e-5 to 1.7e-5); the Jacobians alone agree to 1e-6.
 */
export const WEIGHTED_BLOCKS = 2e-4;
/** Gradients are sums of w J r with r ~ the 0.5 px noise: the residuals' 1e-4 px of rounding is ~2e-4 of them. */
export const GRADIENT = 1e-3;
/** PCG steps of the fixed-count case (tolerance 0: exactly this many). */
export const PCG_STEPS = 6;

export function result(name: string, variant: string, seed: number, error: number, tolerance: number, detail = ''): ParityResult {
  return { name: `bundle ${name}`, variant, seed, ok: error < tolerance, error, tolerance, ...(detail ? { detail } : {}) };
}

/** A GPU symmetric 3x3 (00 01 02 11 12 22) as 9 row-major values. */
const full3 = (s: ArrayLike<number>) => [s[0], s[1], s[2], s[1], s[3], s[4], s[2], s[4], s[5]];
/** The leading n x n of a row-major 8x8. */
const leading = (m: ArrayLike<number>, n: number) => Array.from({ length: n * n }, (_, k) => m[8 * Math.floor(k / n) + (k % n)]);

export async function bundleLineariseParity(ctx: GpuContext, variant: KernelVariant, seed: number): Promise<ParityResult[]> {
  const c = await linearisedCase(ctx, variant, seed);
  const { problem, layout } = c;
  const lin = await c.stages.readLinearisation();
  const out = observationJacobiansScratch();
  const worst = { residual: 0, weight: 0, pose: 0, point: 0, intrinsics: 0, unused: 0 };
  const c2 = PARITY_OPTIONS.lossScalePx ** 2;
  layout.observationOrder.forEach((o, k) => {
    const i = problem.obsImage[o];
    const camera = problem.cameras[problem.imageCamera[i]];
    const refined = layout.reduced.refined[problem.imageCamera[i]];
    linearizeObservation(camera.model, generalIntrinsics(camera.model, camera.params), refined, problem.rotations, 9 * i, problem.translations, 3 * i, problem.points, 3 * problem.obsPoint[o], problem.obsXY[2 * o], problem.obsXY[2 * o + 1], out);
    const rec = lin.subarray(LIN_STRIDE * k, LIN_STRIDE * (k + 1));
    worst.residual = Math.max(worst.residual, Math.abs(rec[0] - out.residual[0]), Math.abs(rec[1] - out.residual[1]));
    worst.weight = Math.max(worst.weight, Math.abs(rec[2] - 1 / (1 + (out.residual[0] ** 2 + out.residual[1] ** 2) / c2)));
    worst.pose = Math.max(worst.pose, relativeDifference(rec.subarray(4, 16), out.jPose));
    worst.point = Math.max(worst.point, relativeDifference(rec.subarray(32, 38), out.jPoint));
    const n = refined.length;
    worst.intrinsics = Math.max(worst.intrinsics, relativeDifference([...rec.subarray(16, 16 + n), ...rec.subarray(24, 24 + n)], out.jIntrinsics.subarray(0, 2 * n)));
    for (let a = n; a < 8; a++) worst.unused = Math.max(worst.unused, Math.abs(rec[16 + a]), Math.abs(rec[24 + a]), Number.isNaN(rec[16 + a]) ? Infinity : 0);
  });
  c.stages.destroy();
  return [
    result('linearise: residuals, px', variant, seed, worst.residual, 2e-3),
    result('linearise: Cauchy weights', variant, seed, worst.weight, 1e-4),
    result('linearise: pose Jacobians', variant, seed, worst.pose, 1e-4),
    result('linearise: point Jacobians', variant, seed, worst.point, 1e-4),
    result('linearise: intrinsic Jacobians', variant, seed, worst.intrinsics, 1e-4),
    result('linearise: unused intrinsic columns zero', variant, seed, worst.unused, 1e-30),
  ];
}

export async function bundlePointBlocksParity(ctx: GpuContext, variant: KernelVariant, seed: number): Promise<ParityResult[]> {
  const c = await linearisedCase(ctx, variant, seed, 1e-2);
  const got = await c.stages.readPointBlocks();
  const ref = c.system.points;
  const at = (j: number) => got.subarray(POINT_STRIDE * j, POINT_STRIDE * (j + 1));
  const n = c.layout.points;
  c.stages.destroy();
  return [
    result('point blocks: V', variant, seed, blockwiseDifference(n, (j) => [full3(at(j)), ref.v.subarray(9 * j, 9 * j + 9)]), WEIGHTED_BLOCKS),
    result('point blocks: (V + lambda D)^-1', variant, seed, blockwiseDifference(n, (j) => [full3(at(j).subarray(6)), ref.vDampedInverse.subarray(9 * j, 9 * j + 9)]), 1e-3),
    result('point blocks: g_p', variant, seed, blockwiseDifference(n, (j) => [at(j).subarray(12, 15), ref.gradient.subarray(3 * j, 3 * j + 3)]), GRADIENT),
  ];
}

export async function bundleCameraBlocksParity(ctx: GpuContext, variant: KernelVariant, seed: number, shape: (typeof BUNDLE_SHAPES)[number]): Promise<ParityResult[]> {
  const c = await linearisedCase(ctx, variant, seed, 1e-2, PARITY_OPTIONS, shape.shape);
  const got = await c.stages.readCameraBlocks();
  const ref = c.system.cameras;
  const { reduced, segments, segmentKind, segmentOwner } = c.layout;
  const worst = { a: 0, inverse: 0, d: 0, g: 0 };
  for (let s = 0; s < segments; s++) {
    const block = got.subarray(SEG_STRIDE * s, SEG_STRIDE * (s + 1));
    const owner = segmentOwner[s];
    const pose = segmentKind[s] === 0;
    const n = pose ? 6 : reduced.refined[owner].length;
    const variable = pose ? reduced.poseOffset[owner] : reduced.intrinsicOffset[owner];
    const at = pose ? 6 * variable : ref.intrinsicBlockOffset[owner];
    const a = pose ? ref.poseBlocks : ref.intrinsicBlocks;
    const inverse = pose ? ref.posePreconditionerInverse : ref.intrinsicPreconditionerInverse;
    worst.a = Math.max(worst.a, relativeDifference(leading(block.subarray(80), n), a.subarray(at, at + n * n)));
    worst.inverse = Math.max(worst.inverse, relativeDifference(leading(block, n), inverse.subarray(at, at + n * n)));
    worst.d = Math.max(worst.d, relativeDifference(block.subarray(64, 64 + n), ref.diagonal.subarray(variable, variable + n)));
    worst.g = Math.max(worst.g, relativeDifference(block.subarray(72, 72 + n), ref.gradient.subarray(variable, variable + n)));
  }
  const slot = relativeDifference(await c.stages.readVector(VEC.g), ref.gradient);
  const chunked = c.layout.chunks > c.layout.segments;
  c.stages.destroy();
  const name = `camera blocks (${shape.name})`;
  return [
    result(`${name}: U blocks`, variant, seed, worst.a, WEIGHTED_BLOCKS),
    result(`${name}: D`, variant, seed, worst.d, 1e-4),
    result(`${name}: g_c`, variant, seed, Math.max(worst.g, slot), GRADIENT),
    result(`${name}: preconditioner inverse`, variant, seed, worst.inverse, 2e-3),
    ...(shape.shape.models.length === 1 ? [result(`${name}: a segment over several chunks of ${CHUNK_OBS}`, variant, seed, chunked ? 0 : 1, 0.5)] : []),
  ];
}

export async function bundleSchurParity(ctx: GpuContext, variant: KernelVariant, seed: number, shape: (typeof BUNDLE_SHAPES)[number]): Promise<ParityResult[]> {
  const c = await linearisedCase(ctx, variant, seed, 1e-2, PARITY_OPTIONS, shape.shape);
  const random = rng(seed ^ 0x5eed);
  const x = Float64Array.from({ length: c.layout.variables }, () => random() - 0.5);
  c.stages.writeVector(VEC.t, x);
  const commands = ctx.commands('parity.schur');
  c.stages.schur(commands, 0, VEC.t, VEC.q);
  c.stages.schur(commands, 1);
  await commands.submit();
  const sx = relativeDifference(await c.stages.readVector(VEC.q), schurMatVec(c.system, x));
  const b = relativeDifference(await c.stages.readVector(VEC.b), reducedRightHandSide(c.system));
  c.stages.destroy();
  return [result(`S x (${shape.name})`, variant, seed, sx, 1e-3), result(`b (${shape.name})`, variant, seed, b, 1e-3)];
}

export async function bundlePcgParity(ctx: GpuContext, variant: KernelVariant, seed: number): Promise<ParityResult[]> {
  const c = await linearisedCase(ctx, variant, seed, 1e-2, { ...PARITY_OPTIONS, pcgTolerance: 0 });
  const commands = ctx.commands('parity.pcg');
  c.stages.schur(commands, 1);
  c.stages.pcg(commands, PCG_STEPS);
  c.stages.backSubstitute(commands);
  await commands.submit();
  const ref = pcg(c.system, reducedRightHandSide(c.system), PCG_STEPS, 0);
  const scalars = await c.stages.readScalars();
  const dc = await c.stages.readVector(VEC.x);
  const dp = relativeDifference(await c.stages.readPointStep(), backSubstitute(c.system, Float64Array.from(dc)));
  c.stages.destroy();
  return [
    result(`PCG: ${PCG_STEPS} steps taken`, variant, seed, Math.abs(scalars[3] - PCG_STEPS) + Math.abs(ref.iterations - PCG_STEPS), 0.5, `GPU ${scalars[3]}, reference ${ref.iterations}`),
    result(`PCG: dc after ${PCG_STEPS} steps`, variant, seed, relativeDifference(dc, ref.x), 1e-2),
    result(`PCG: |r| / |b| after ${PCG_STEPS} steps`, variant, seed, Math.abs(Math.sqrt(scalars[4] / scalars[1]) - ref.relativeResidual) / ref.relativeResidual, 2e-2),
    result('back-substitution: dp of the GPU dc', variant, seed, dp, 1e-3),
  ];
}

export async function bundlePcgStopParity(ctx: GpuContext, variant: KernelVariant, seed: number): Promise<ParityResult[]> {
  const c = await linearisedCase(ctx, variant, seed, 1e-2, { ...PARITY_OPTIONS, pcgTolerance: 1e-2 });
  const commands = ctx.commands('parity.pcg-stop');
  c.stages.schur(commands, 1);
  c.stages.pcg(commands, 200);
  await commands.submit();
  const ref = pcg(c.system, reducedRightHandSide(c.system), 200, 1e-2);
  const scalars = await c.stages.readScalars();
  const dc = relativeDifference(await c.stages.readVector(VEC.x), ref.x);
  c.stages.destroy();
  return [
    result('PCG to 1e-2: converged, |r| <= 1e-2 |b|', variant, seed, scalars[2] === 1 ? Math.sqrt(scalars[4] / scalars[1]) : Infinity, 1e-2 * (1 + 1e-6)),
    result('PCG to 1e-2: steps against the reference', variant, seed, Math.abs(scalars[3] - ref.iterations), 1.5, `GPU ${scalars[3]}, reference ${ref.iterations}`),
    result('PCG to 1e-2: dc', variant, seed, dc, 2e-2),
  ];
}
