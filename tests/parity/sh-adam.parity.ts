/**
 * The fused SH Adam (kernels/sh-adam.wgsl, train/sh-adam.ts) against the separate path it
 * replaces (project_backward storing the SH gradient, then kernels/adam.wgsl on the SH group) and
 * against the float64 Adam reference fed that stored gradient (tests/reference/adam.ts; the stored
 * gradient itself is the rasterizer parity's, rasterize.parity.ts). Two identical models render
 * the same random scene with the same dL/d(image) for a few steps; only the SH group steps, so the
 * two stay on the same forward. Shared by vitest and the GPU runner.
 */
import { readBuffer, writeRange } from '../../main/engine/gpu/buffers.js';
import type { GpuContext } from '../../main/engine/gpu/context.js';
import type { KernelVariant } from '../../main/engine/gpu/kernels.js';
import { GpuSplats } from '../../main/engine/render/gpu-splats.js';
import { Rasterizer } from '../../main/engine/render/rasterizer.js';
import { Adam, type AdamGroup, type MomentsPrecision } from '../../main/engine/train/adam.js';
import { unpackBf16Planar } from '../../main/engine/train/bf16-moments.js';
import { Model } from '../../main/engine/train/model.js';
import { ShAdam } from '../../main/engine/train/sh-adam.js';
import type { SplatSet } from '../../shared/scene/splats.js';
import { rng } from '../helpers/random.js';
import { adamBf16Reference } from '../reference/adam.js';
import { randomScene } from '../reference/scenes.js';
import { relativeL2 } from './loss.parity.js';
import type { ParityResult } from './types.js';

export interface ShAdamCase {
  count: number;
  width: number;
  height: number;
  /** The active SH degree (the set's is 3): coefficients above it get zero gradients. */
  shDegree: number;
  precision: MomentsPrecision;
  /** Sparse steps: splats not visible in the view are left as they were. */
  sparse: boolean;
  /** Steps whose update reaches only the DC (train.shRestEvery's steps between), by 0-based step. */
  dcOnly?: readonly number[];
}

export const SH_ADAM_CASES: readonly ShAdamCase[] = [
  { count: 300, width: 96, height: 64, shDegree: 3, precision: 'f32', sparse: false },
  { count: 300, width: 96, height: 64, shDegree: 2, precision: 'bf16', sparse: false },
  { count: 400, width: 96, height: 64, shDegree: 3, precision: 'f32', sparse: true, dcOnly: [1] },
  { count: 400, width: 96, height: 64, shDegree: 3, precision: 'bf16', sparse: true, dcOnly: [1] },
];

const STEPS = 3;
const [LR_DC, LR_REST] = [0.0025, 0.000125];

export async function shAdamParity(ctx: GpuContext, variant: KernelVariant, seed: number, c: ShAdamCase): Promise<ParityResult[]> {
  const random = rng(seed);
  const scene = randomScene(random, { count: c.count, width: c.width, height: c.height, setDegree: 3, shDegree: c.shDegree, options: { antialiased: false } });
  const s = scene.splats;
  const f32: SplatSet = { count: c.count, shDegree: 3, means: Float32Array.from(s.means), logScales: Float32Array.from(s.logScales), quats: Float32Array.from(s.quats), opacityLogits: Float32Array.from(s.opacityLogits), sh: Float32Array.from(s.sh) };
  const camera = { ...scene.camera, worldToCamera: Array.from(Float32Array.from(scene.camera.worldToCamera)) };
  const settings = { background: Array.from(Float32Array.from(scene.background)) as [number, number, number], antialiased: false, shDegree: c.shDegree };
  const { device } = ctx;
  const adam = await Adam.create(ctx);
  const shAdam = await ShAdam.create(ctx);
  // capacity > count: the GPU count must rule
  const capacity = c.count + 9;
  const sides = await Promise.all((['separate', 'fused'] as const).map(async (shStep) => {
    const rasterizer = await Rasterizer.create(ctx, { variant, shGrads: shStep === 'separate' });
    const model = new Model(GpuSplats.fromHost(ctx, f32, capacity, 'model'), adam, ctx, c.precision, shStep);
    const frame = await rasterizer.createFrame(model.splats, c.width, c.height);
    rasterizer.bindBackward(frame, model.grads);
    return { rasterizer, model, frame, binding: shAdam.bind(frame, model.groups.sh, model.splats, adam) };
  }));
  const [separate, fused] = sides;
  const P = c.width * c.height;
  const lanesOf = (step: number) => (c.dcOnly?.includes(step) ? 3 : 48);
  const storedGrads: number[][] = [];
  const visible: Uint32Array[] = [];
  for (let step = 0; step < STEPS; step++) {
    const vImage = Float32Array.from({ length: P * 4 }, () => (random() - 0.5) * 0.02);
    const options = { ...(c.sparse ? { visible: separate.frame.internal.visible } : {}), lanes: lanesOf(step) };
    for (const side of sides) {
      writeRange(device, side.frame.pixelGrads!.image, vImage);
      writeRange(device, side.frame.pixelGrads!.aux, new Float32Array(P * 4));
      const commands = ctx.commands('parity.sh-adam');
      side.rasterizer.encodeForward(commands, side.frame, camera, settings);
      side.rasterizer.encodeBackward(commands, side.frame);
      const g = side.model.groups.sh;
      if (side === fused) shAdam.encode(commands, adam, g, side.binding, step + 1, LR_DC, LR_REST, { ...options, ...(c.sparse ? { visible: side.frame.internal.visible } : {}) });
      else adam.encode(commands, g, capacity, step + 1, LR_DC, LR_REST, 0, options);
      await commands.submit();
    }
    storedGrads.push(Array.from(new Float32Array(await readBuffer(device, separate.model.grads.sh, capacity * 48 * 4))));
    visible.push(new Uint32Array(await readBuffer(device, separate.frame.internal.visible, capacity * 4)));
  }
  const read = async (group: AdamGroup, part: 'param' | 'm' | 'v') => {
    const words = new Uint32Array(await readBuffer(device, group[part], part === 'param' ? capacity * 48 * 4 : group[part].size));
    return part === 'param' ? new Float32Array(words.buffer) : group.momentShift ? unpackBf16Planar(words, 48, capacity) : new Float32Array(words.buffer);
  };
  const p0 = Array.from({ length: capacity * 48 }, (_, i) => Math.fround(i % capacity < c.count ? f32.sh[(i % capacity) * 48 + Math.floor(i / capacity)] : 0));
  const updates = (step: number, lane: number, splat: number) => lane < lanesOf(step) && (!c.sparse || visible[step][splat] !== 0);
  const want = adamBf16Reference(p0, storedGrads, LR_DC, LR_REST, 48, 3, c.count, capacity, updates, c.precision === 'bf16');
  const name = `sh-adam ${c.precision}${c.sparse ? ' sparse' : ''}${c.dcOnly ? ' dc-only steps' : ''} ${c.count} splats deg ${c.shDegree}/3`;
  const results: ParityResult[] = [];
  const flags = new Uint32Array(await readBuffer(device, adam.flags, 32));
  for (const part of ['param', 'm', 'v'] as const) {
    const a = await read(separate.model.groups.sh, part);
    const b = await read(fused.model.groups.sh, part);
    let mismatches = 0;
    for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) mismatches++;
    results.push({ name: `${name}: ${part} fused = separate (bits)`, variant, seed, ok: mismatches === 0, error: mismatches, tolerance: 0, detail: `${mismatches} of ${a.length} values differ` });
    // against the float64 Adam of the stored gradient: the parameters' change (bf16 moments round)
    const got = part === 'param' ? Array.from(b, (x, i) => x - p0[i]) : Array.from(b);
    const ref = part === 'param' ? want.param.map((x, i) => x - p0[i]) : want[part];
    const error = relativeL2(got, ref);
    const tolerance = part === 'param' ? (c.precision === 'bf16' ? 1e-3 : 1e-4) : c.precision === 'bf16' ? 1e-2 : 1e-4;
    const finite = got.every(Number.isFinite);
    results.push({ name: `${name}: ${part} vs float64 Adam`, variant, seed, ok: finite && error < tolerance && flags[0] === 0, error, tolerance, detail: `rel L2 ${error.toExponential(2)}${finite ? '' : ' (non-finite)'}; ${flags[0]} non-finite gradients` });
  }
  // a sparse case must have left some splats out, and a dc-only step some lanes
  const hidden = visible[0].subarray(0, c.count).filter((x) => x === 0).length;
  if (c.sparse) results.push({ name: `${name}: the view hides some splats`, variant, seed, ok: hidden > 0 && hidden < c.count, error: hidden, tolerance: c.count, detail: `${hidden} of ${c.count} not visible` });
  for (const side of sides) {
    side.frame.destroy();
    side.model.destroy();
  }
  adam.destroy();
  return results;
}
