import { createStorage, poisonBuffer, readBuffer, uploadStorage } from '../../main/engine/gpu/buffers.js';
import type { GpuContext } from '../../main/engine/gpu/context.js';
import { TrainingLoss, lossCounts, packRgba8, type SsimPadding } from '../../main/engine/train/loss.js';
import { rng } from '../helpers/random.js';
import { lossReference } from '../reference/loss.js';
import type { ParityResult } from './types.js';

export function relativeL2(got: ArrayLike<number>, want: ArrayLike<number>): number {
  let num = 0;
  let den = 0;
  for (let i = 0; i < want.length; i++) {
    const d = got[i] - want[i];
    num += d * d;
    den += want[i] * want[i];
  }
  return Math.sqrt(num / Math.max(den, 1e-300));
}

/**
 * A random mask (0 = ignored): a disc and a band, as an object's silhouette and an undistortion
 * border leave them, plus scattered single pixels.
 */
export function randomMask(width: number, height: number, random: () => number): Uint8Array {
  const mask = new Uint8Array(width * height).fill(255);
  const [cx, cy, r] = [random() * width, random() * height, (0.15 + 0.2 * random()) * Math.min(width, height)];
  const band = Math.floor(random() * 4);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      if (Math.hypot(x - cx, y - cy) < r || x < band || random() < 0.05) mask[i] = 0;
    }
  return mask;
}

/**
 * GPU loss value and dL/dI against the float64 reference on a random image pair (`masked`: with
 * randomMask; `randomBackground`: targets premultiplied with random coverage, composited by the
 * kernel over a random colour, by the test in float64 for the reference).
 */
export async function lossParity(ctx: GpuContext, seed: number, width: number, height: number, padding: SsimPadding = 'same', masked = false, randomBackground = false): Promise<ParityResult & { lossError: number }> {
  const random = rng(seed);
  const P = width * height;
  const mask = masked ? randomMask(width, height, random) : undefined;
  // targets are 8-bit: quantize first so both sides see the same values
  let targetRgb = Float64Array.from({ length: P * 3 }, () => Math.round(random() * 255) / 255);
  const background: [number, number, number] = [random(), random(), random()];
  const coverageBytes = Uint8Array.from({ length: P }, (_, p) => (mask && mask[p] === 0 ? 0 : random() < 0.3 ? 1 + Math.floor(random() * 255) : 255));
  const packed = randomBackground ? packRgba8(targetRgb, P, undefined, 0, mask).map((w, p) => ((w & 0xffffff) | (coverageBytes[p] << 24)) >>> 0) : undefined;
  if (randomBackground) {
    // the kernel's target: premultiplied rgb + background (1 - a), a = (byte - 1) / 254
    targetRgb = targetRgb.map((v, i) => v + background[i % 3] * (1 - Math.max(coverageBytes[Math.floor(i / 3)] - 1, 0) / 254));
  }
  // the image: the target plus smooth-ish noise, so SSIM is far from 0 and 1
  // A value within float32 reach of its target sits on L1's kink: the kernel's f32 difference may
  // round to 0 (sign 0) where the float64 one is not (sign +-1), one element off by 0.8 / n (seed
  // 3498411928 at 37x29, on every adapter). Such draws move 1e-4 away; exact ties (clamped to 0
  // or 1 on a target of 0 or 1) are ties in both and stay.
  const image = Float32Array.from(targetRgb, (t) => {
    const v = Math.min(1, Math.max(0, t + (random() - 0.5) * 0.4));
    return v !== t && Math.abs(v - t) < 1e-5 ? t + (v > t ? 1e-4 : -1e-4) : v;
  });
  const imageVec4 = new Float32Array(P * 4);
  for (let i = 0; i < P; i++) imageVec4.set([image[3 * i], image[3 * i + 1], image[3 * i + 2], 1], 4 * i);
  const targets = packed ?? packRgba8(targetRgb, P, undefined, 0, mask);
  const counts = lossCounts(width, height, padding, mask);
  const { device } = ctx;
  const loss = await TrainingLoss.create(ctx, padding, { randomBackground });
  const frame = loss.createFrame(width, height);
  const imageBuf = uploadStorage(device, 'loss.test.image', imageVec4);
  // the target sits after 7 words of another image: exercises target_offset
  const targetBuf = createStorage(device, 'loss.test.targets', (P + 7) * 4);
  device.queue.writeBuffer(targetBuf, 28, targets);
  poisonBuffer(device, frame.vImage);
  const commands = ctx.commands('loss.test');
  loss.encode(commands, frame, imageBuf, targetBuf, 7, width, height, counts, background);
  await commands.submit();
  const v = new Float32Array(await readBuffer(device, frame.vImage, P * 16));
  const sums = new Float32Array(await readBuffer(device, frame.sums, frame.sumsBytes));
  const ref = lossReference(image, targetRgb, width, height, padding, mask);
  const got = new Float64Array(P * 3);
  for (let i = 0; i < P; i++) for (let c = 0; c < 3; c++) got[3 * i + c] = v[4 * i + c];
  const error = relativeL2(got, ref.grad);
  const value = loss.value(sums, width, height, counts);
  const lossError = Math.abs(value.loss - ref.loss) / ref.loss;
  let sq = 0;
  for (let i = 0; i < P * 3; i++) if (!mask || mask[Math.floor(i / 3)] !== 0) sq += (image[i] - targetRgb[i]) ** 2;
  const psnrRef = -10 * Math.log10(sq / counts.l1Values);
  const psnrError = Math.abs(value.psnr - psnrRef);
  // where a gradient error sits (diagnostics for a failure): partly covered targets against the rest, and the worst value
  let where = '';
  if (randomBackground && !(error < 1e-4)) {
    const part = (keep: (p: number) => boolean) => {
      const idx = [...Array(P * 3).keys()].filter((i) => keep(Math.floor(i / 3)));
      return relativeL2(Float64Array.from(idx, (i) => got[i]), Float64Array.from(idx, (i) => ref.grad[i])).toExponential(2);
    };
    let worst = 0;
    for (let i = 1; i < P * 3; i++) if (Math.abs(got[i] - ref.grad[i]) > Math.abs(got[worst] - ref.grad[worst])) worst = i;
    const wp = Math.floor(worst / 3);
    where = `; partial coverage ${part((p) => coverageBytes[p] !== 255)}, full ${part((p) => coverageBytes[p] === 255)}; worst value ${worst} (pixel ${wp % width},${Math.floor(wp / width)}, coverage byte ${coverageBytes[wp]}, image ${image[worst]}, target ${targetRgb[worst]}): gpu ${got[worst]} ref ${ref.grad[worst]}`;
  }
  frame.destroy();
  imageBuf.destroy();
  targetBuf.destroy();
  return {
    name: `loss ${width}x${height}${padding === 'valid' ? ' (valid SSIM)' : ''}${masked ? ' (masked)' : ''}${randomBackground ? ' (random background)' : ''}`,
    variant: 'portable',
    seed,
    ok: error < 1e-4 && lossError < 1e-5 && psnrError < 1e-3 && Number.isFinite(error),
    error,
    tolerance: 1e-4,
    lossError,
    detail: `grad rel L2 ${error.toExponential(2)}, loss rel ${lossError.toExponential(2)} (gpu ${value.loss}, ref ${ref.loss}), PSNR gpu ${value.psnr} ref ${psnrRef}${where}`,
  };
}
