import { describe, expect, it } from 'vitest';
import { poisonBuffer, readBuffer, writeRange } from '../../../../main/engine/gpu/buffers.js';
import type { GpuContext } from '../../../../main/engine/gpu/context.js';
import { CAMERA_GRAD_CHUNK, CameraGradSum } from '../../../../main/engine/render/camera-grads.js';
import { GpuSplatGrads, GpuSplats } from '../../../../main/engine/render/gpu-splats.js';
import { Rasterizer } from '../../../../main/engine/render/rasterizer.js';
import type { SplatSet } from '../../../../shared/scene/splats.js';
import { testGpu, variantsOf } from '../../../helpers/gpu.js';
import { freshSeed, rng } from '../../../helpers/random.js';
import { randomLossWeights, randomScene } from '../../../reference/scenes.js';

/** One forward + backward of a random scene; returns every gradient buffer's bytes, the camera shares and their sum. */
async function runOnce(ctx: GpuContext, variant: 'portable' | 'subgroup', seed: number, count: number, cameraGrads: boolean) {
  const rand = rng(seed);
  const [width, height] = [64, 48];
  const scene = randomScene(rand, { count, width, height, setDegree: 1, options: { antialiased: false }, kinds: ['ordinary', 'tiny', 'huge', 'behind', 'offscreen'] });
  const f32: SplatSet = { count, shDegree: 1, means: Float32Array.from(scene.splats.means), logScales: Float32Array.from(scene.splats.logScales), quats: Float32Array.from(scene.splats.quats), opacityLogits: Float32Array.from(scene.splats.opacityLogits), sh: Float32Array.from(scene.splats.sh) };
  const weights = randomLossWeights(rand, width * height, { antialiased: false });
  const rasterizer = await Rasterizer.create(ctx, { variant, cameraGrads });
  const splats = GpuSplats.fromHost(ctx, f32, count + 100);
  const frame = await rasterizer.createFrame(splats, width, height);
  const vImage = new Float32Array(width * height * 4);
  for (let p = 0; p < width * height; p++) vImage.set([weights.rgb[3 * p], weights.rgb[3 * p + 1], weights.rgb[3 * p + 2], weights.alpha[p]], 4 * p);
  writeRange(ctx.device, frame.pixelGrads!.image, vImage);
  const grads = new GpuSplatGrads(ctx, splats.capacity, splats.shCoeffs);
  for (const b of grads.all) poisonBuffer(ctx.device, b);
  rasterizer.bindBackward(frame, grads);
  const sum = cameraGrads ? await CameraGradSum.create(ctx, frame, variant) : undefined;
  if (sum) poisonBuffer(ctx.device, frame.cameraGradPartials);
  const commands = ctx.commands('test.cameraGrads');
  rasterizer.encodeForward(commands, frame, { ...scene.camera, worldToCamera: Array.from(Float32Array.from(scene.camera.worldToCamera)) }, { background: [0, 0, 0], antialiased: false, shDegree: 1 });
  rasterizer.encodeBackward(commands, frame);
  sum?.encode(commands);
  await commands.submit();
  const gradBytes = [];
  for (const b of grads.all) gradBytes.push(new Uint32Array(await readBuffer(ctx.device, b)));
  const partials = sum ? new Float32Array(await readBuffer(ctx.device, frame.cameraGradPartials, count * 48)) : undefined;
  const total = sum ? new Float32Array(await readBuffer(ctx.device, sum.result, 48)) : undefined;
  sum?.destroy();
  grads.destroy();
  frame.destroy();
  splats.destroy();
  return { gradBytes, partials, total };
}

describe('camera gradients on the GPU', async () => {
  const ctx = await testGpu();
  for (const variant of variantsOf(ctx)) {
    it(`${variant}: switching them on leaves every splat gradient bit-identical`, async () => {
      const seed = freshSeed();
      const off = await runOnce(ctx, variant, seed, 300, false);
      const on = await runOnce(ctx, variant, seed, 300, true);
      expect(on.gradBytes.length).toBe(off.gradBytes.length);
      for (let k = 0; k < off.gradBytes.length; k++) expect(Buffer.from(on.gradBytes[k].buffer).equals(Buffer.from(off.gradBytes[k].buffer)), `seed ${seed}: gradient buffer ${k}`).toBe(true);
    });

    it(`${variant}: the sum over several chunks is the float64 sum of the shares (and repeats bit for bit)`, async () => {
      const seed = freshSeed();
      const count = 2 * CAMERA_GRAD_CHUNK + 123; // three chunks, the last one partial; capacity past the count is poisoned
      const a = await runOnce(ctx, variant, seed, count, true);
      const b = await runOnce(ctx, variant, seed, count, true);
      const want = new Float64Array(12);
      for (let s = 0; s < count; s++) for (let i = 0; i < 12; i++) want[i] += a.partials![12 * s + i];
      let err2 = 0;
      let norm2 = 0;
      for (let i = 0; i < 12; i++) {
        err2 += (a.total![i] - want[i]) ** 2;
        norm2 += want[i] ** 2;
      }
      expect(norm2, `seed ${seed}: the camera gradient is zero; the check is vacuous`).toBeGreaterThan(0);
      expect(Math.sqrt(err2 / norm2), `seed ${seed}`).toBeLessThan(1e-5);
      expect(Array.from(b.total!), `seed ${seed}: a second run`).toEqual(Array.from(a.total!));
    });
  }
});
