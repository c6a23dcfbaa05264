import { createStorage, uploadStorage } from '../../main/engine/gpu/buffers.js';
import type { GpuContext } from '../../main/engine/gpu/context.js';
import { colourCorrectedPsnr, colourMoments, fitAffineColour, GpuColourCorrection } from '../../main/engine/train/colour-correct.js';
import { packRgba8 } from '../../main/engine/train/loss.js';
import { rng } from '../helpers/random.js';
import { randomMask, relativeL2 } from './loss.parity.js';
import type { ParityResult } from './types.js';

export interface ColourCorrectCase {
  width: number;
  height: number;
  masked?: boolean;
  randomBackground?: boolean;
}

/** Sizes that end inside a block and span several (16,384 pixels a block), with and without masks and random backgrounds. */
export const COLOUR_CORRECT_CASES: readonly ColourCorrectCase[] = [
  { width: 37, height: 29 },
  { width: 200, height: 150 },
  { width: 200, height: 150, masked: true },
  { width: 333, height: 211, masked: true },
  { width: 640, height: 480 },
  { width: 200, height: 150, randomBackground: true },
  { width: 200, height: 150, masked: true, randomBackground: true },
];

/**
 * The GPU's colour-corrected PSNR against the float64 reference (colour-correct.ts) on a random
 * render and 8-bit target: the render is the target under a random exposure and tint plus noise,
 * clamped to [0, 1] as evaluation clamps it; the corrected values clip in places. With a mask the
 * reference leaves the masked pixels out; with a random background it scores the target
 * composited in float64 as the loss composites it.
 */
export async function colourCorrectParity(ctx: GpuContext, seed: number, c: ColourCorrectCase): Promise<ParityResult> {
  const random = rng(seed);
  const { width, height } = c;
  const P = width * height;
  const mask = c.masked ? randomMask(width, height, random) : undefined;
  const stored = Float64Array.from({ length: P * 3 }, () => Math.round(random() * 255) / 255);
  const background: [number, number, number] = [random(), random(), random()];
  const coverageBytes = Uint8Array.from({ length: P }, (_, p) => (mask && mask[p] === 0 ? 0 : random() < 0.3 ? 1 + Math.floor(random() * 255) : 255));
  const words = packRgba8(stored, P, undefined, 0, mask);
  const packed = c.randomBackground ? words.map((w, p) => ((w & 0xffffff) | (coverageBytes[p] << 24)) >>> 0) : words;
  // what the loss scores: premultiplied rgb + background (1 - a), a = (byte - 1) / 254
  const target = c.randomBackground ? stored.map((v, i) => v + background[i % 3] * (1 - Math.max(coverageBytes[Math.floor(i / 3)] - 1, 0) / 254)) : stored;
  const gain = [0, 1, 2].map(() => 0.5 + 0.6 * random());
  const lift = [0, 1, 2].map(() => (random() - 0.5) * 0.3);
  const render = new Float32Array(P * 4);
  for (let p = 0; p < P; p++) {
    for (let k = 0; k < 3; k++) render[4 * p + k] = Math.min(1, Math.max(0, gain[k] * target[3 * p + k] + lift[k] + 0.1 * target[3 * p + ((k + 1) % 3)] + (random() - 0.5) * 0.2));
    render[4 * p + 3] = 1;
  }
  const { device } = ctx;
  const renderBuf = uploadStorage(device, 'cc.parity.render', render);
  // the target after 11 words of another image: exercises target_offset
  const targets = createStorage(device, 'cc.parity.targets', (P + 11) * 4);
  device.queue.writeBuffer(targets, 44, packed);
  const cc = await GpuColourCorrection.create(ctx, P + 5000, { randomBackground: c.randomBackground });
  // poisoned first: a NaN render leaves NaN in every partial and total the real pass must overwrite
  const poison = uploadStorage(device, 'cc.parity.poison', new Float32Array(P * 4).fill(Number.NaN));
  const measure = async (image: GPUBuffer) => {
    const commands = ctx.commands('cc.parity');
    cc.encodeMoments(commands, image, targets, 11, P, background);
    await commands.submit();
    return cc.psnr();
  };
  const poisoned = await measure(poison);
  const got = await measure(renderBuf);
  poison.destroy();
  cc.destroy();
  renderBuf.destroy();
  targets.destroy();
  const want = colourCorrectedPsnr(render, 4, target, 3, P, mask);
  const wantAffine = fitAffineColour(render, 4, target, 3, P, mask);
  const kept = colourMoments(render, 4, target, 3, P, mask)[0];
  const psnrError = Math.abs(got.psnr - want);
  const affineError = relativeL2(got.affine, wantAffine);
  const name = `colour-corrected PSNR ${width}x${height}${c.masked ? ' (masked)' : ''}${c.randomBackground ? ' (random background)' : ''}`;
  return {
    name,
    variant: ctx.info.variant,
    seed,
    ok: poisoned.affine.every(Number.isNaN) && psnrError < 1e-4 && affineError < 1e-4 && got.pixels === kept && Number.isFinite(got.psnr),
    error: psnrError,
    tolerance: 1e-4,
    detail: `PSNR gpu ${got.psnr} ref ${want} (dB); affine rel L2 ${affineError.toExponential(2)}; pixels gpu ${got.pixels} ref ${kept}`,
  };
}
