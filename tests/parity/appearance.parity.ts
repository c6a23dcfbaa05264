import { createStorage, poisonBuffer, readBuffer, uploadStorage } from '../../main/engine/gpu/buffers.js';
import type { GpuContext } from '../../main/engine/gpu/context.js';
import type { KernelVariant } from '../../main/engine/gpu/kernels.js';
import { Appearance, tvCoefficients, type AppearanceModelName } from '../../main/engine/train/appearance.js';
import { rng } from '../helpers/random.js';
import { appearanceBackwardReference, appearanceForwardReference, luminance, tvReference } from '../reference/appearance.js';
import { relativeL2 } from './loss.parity.js';
import type { ParityResult } from './types.js';

export interface AppearanceCase {
  model: AppearanceModelName;
  width: number;
  height: number;
  images: number;
  /** The frame is drawn in a smaller region of the buffers (a smaller training image). */
  frame?: { width: number; height: number };
}

export const APPEARANCE_CASES: readonly AppearanceCase[] = [
  { model: 'affine', width: 37, height: 29, images: 3 },
  { model: 'bilagrid', width: 37, height: 29, images: 3 },
  { model: 'bilagrid', width: 96, height: 70, images: 2 },
  { model: 'bilagrid', width: 200, height: 150, images: 2, frame: { width: 171, height: 133 } },
  { model: 'affine', width: 200, height: 150, images: 2 },
];

/** Random grids: identity plus noise, so the luminance slice coordinate matters. */
export function randomGrids(random: () => number, floats: number, noise: number): Float32Array {
  const grids = new Float32Array(floats);
  for (let o = 0; o < floats; o++) grids[o] = ((o % 12) % 5 === 0 ? 1 : 0) + (random() - 0.5) * 2 * noise;
  return grids;
}

/**
 * The GPU colour model against the float64 reference on random inputs (rendered colours partly
 * outside [0, 1], random grids and dL/d out), every output poisoned first: the corrected image,
 * dL/d image, and the grids' gradient (TV of every grid plus the frame image's photometric term).
 */
export async function appearanceParity(ctx: GpuContext, variant: KernelVariant, seed: number, c: AppearanceCase): Promise<ParityResult> {
  const random = rng(seed);
  const { device } = ctx;
  const width = c.frame?.width ?? c.width;
  const height = c.frame?.height ?? c.height;
  const P = width * height;
  const appearance = await Appearance.create(ctx, c.model, c.images, c.width, c.height, { variant });
  const grids = randomGrids(random, appearance.floats, 0.15);
  device.queue.writeBuffer(appearance.grid, 0, grids);
  const slot = Math.floor(random() * c.images);
  const rgb = Float32Array.from({ length: P * 3 }, () => random() * 1.2 - 0.1);
  const alpha = Float32Array.from({ length: P }, () => random());
  const vOut = Float32Array.from({ length: P * 3 }, () => (random() - 0.5) * 1e-3);
  const vAlpha = Float32Array.from({ length: P }, () => random() - 0.5);
  const vec4 = (values: Float32Array, w: Float32Array) => {
    const out = new Float32Array(c.width * c.height * 4);
    for (let i = 0; i < P; i++) out.set([values[3 * i], values[3 * i + 1], values[3 * i + 2], w[i]], 4 * i);
    return out;
  };
  const rendered = uploadStorage(device, 'appearance.test.rendered', vec4(rgb, alpha));
  const vOutBuffer = uploadStorage(device, 'appearance.test.vOut', vec4(vOut, vAlpha));
  const vRendered = createStorage(device, 'appearance.test.vRendered', c.width * c.height * 16);
  for (const b of [appearance.image, vRendered, appearance.grad]) poisonBuffer(device, b);
  const commands = ctx.commands('appearance.test');
  const out = appearance.encodeForward(commands, slot, rendered, vOutBuffer, width, height, vRendered);
  appearance.encodeBackward(commands);
  await commands.submit();
  const gotOut = new Float32Array(await readBuffer(device, out, P * 16));
  const gotV = new Float32Array(await readBuffer(device, vRendered, P * 16));
  const gotGrad = new Float32Array(await readBuffer(device, appearance.grad, appearance.floats * 4));
  // the gauge (grid_gauge) on the same random grids: the images' mean model becomes the identity
  const gaugeCommands = ctx.commands('appearance.test.gauge');
  appearance.encodeGauge(gaugeCommands);
  await gaugeCommands.submit();
  const gotGauge = new Float32Array(await readBuffer(device, appearance.grid, appearance.floats * 4));
  const wantGauge = gaugeReference(grids, c.images);

  const wantOut = appearanceForwardReference(rgb, width, height, grids, appearance.shape, slot);
  const back = appearanceBackwardReference(rgb, vOut, width, height, grids, appearance.shape, slot);
  const tv = tvReference(grids, appearance.shape, c.images, appearance.tvWeight);
  const wantGrad = back.vGrids.map((g, i) => g + tv.grad[i]);
  // dL/d image has a kink where the luminance slice coordinate crosses a node or the border clamp
  // (the trilinear weights' slopes jump there): a pixel within float32 reach of one may take either
  // side, so it is left out of the dL/d image comparison (both sides zeroed) and counted
  const L = appearance.shape.l;
  const nearKink = (p: number) => {
    if (L < 2) return false;
    const z = luminance(rgb, p) * (L - 1);
    return Math.abs(z - Math.round(z)) < 1e-5 * (L - 1) && z > -1e-5 && z < L - 1 + 1e-5;
  };
  let kinks = 0;
  const wantV = Float64Array.from(back.vImage);
  for (let p = 0; p < P; p++) {
    if (!nearKink(p)) continue;
    kinks++;
    for (let ch = 0; ch < 3; ch++) {
      wantV[3 * p + ch] = 0;
      gotV[4 * p + ch] = 0;
    }
  }
  const rgbOf = (v: Float32Array) => Float64Array.from({ length: P * 3 }, (_, i) => v[4 * Math.floor(i / 3) + (i % 3)]);
  const alphaOf = (v: Float32Array) => Float64Array.from({ length: P }, (_, i) => v[4 * i + 3]);
  const errors = {
    out: relativeL2(rgbOf(gotOut), wantOut),
    alpha: relativeL2(alphaOf(gotOut), alpha),
    vImage: relativeL2(rgbOf(gotV), wantV),
    vAlpha: relativeL2(alphaOf(gotV), vAlpha),
    grad: relativeL2(gotGrad, wantGrad),
    gauge: relativeL2(gotGauge, wantGauge),
  };
  // the TV coefficients the host packs are the reference's (2 w / count / images)
  const tvx = tvCoefficients(appearance.shape, c.images, appearance.tvWeight).x;
  appearance.destroy();
  rendered.destroy();
  vOutBuffer.destroy();
  vRendered.destroy();
  const error = Math.max(...Object.values(errors));
  const tolerance = 1e-4;
  return {
    name: `appearance ${c.model} ${width}x${height}${c.frame ? ` in ${c.width}x${c.height}` : ''}, ${c.images} images`,
    variant,
    seed,
    ok: Number.isFinite(error) && error < tolerance,
    error,
    tolerance,
    detail: `${Object.entries(errors).map(([k, e]) => `${k} ${e.toExponential(2)}`).join(', ')}; slot ${slot}, tv_x ${tvx.toExponential(3)}; ${kinks} pixels at a luminance kink left out of dL/d image`,
  };
}

/** Float64: every grid float moved by (identity - its mean over the images). */
export function gaugeReference(grids: Float32Array, images: number): Float64Array {
  const perImage = grids.length / images;
  const out = Float64Array.from(grids);
  for (let i = 0; i < perImage; i++) {
    let sum = 0;
    for (let im = 0; im < images; im++) sum += grids[im * perImage + i];
    const k = i % 12;
    const shift = (k === 0 || k === 5 || k === 10 ? 1 : 0) - sum / images;
    for (let im = 0; im < images; im++) out[im * perImage + i] += shift;
  }
  return out;
}
