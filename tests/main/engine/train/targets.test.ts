import { describe, expect, it } from 'vitest';
import { readBuffer } from '../../../../main/engine/gpu/buffers.js';
import type { TrainingData } from '../../../../main/engine/train/data.js';
import { lossCounts, packRgba8 } from '../../../../main/engine/train/loss.js';
import { GpuTargets, packRgb8 } from '../../../../main/engine/train/targets.js';
import { testGpu } from '../../../helpers/gpu.js';
import { freshSeed, rng } from '../../../helpers/random.js';

function camera(width: number, height: number) {
  return { width, height, fx: 10, fy: 10, cx: width / 2, cy: height / 2, worldToCamera: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1] };
}

describe('training targets on the GPU', () => {
  it('packs 8-bit RGB exactly as the float path packs the same pixels', () => {
    const seed = freshSeed();
    const r = rng(seed);
    const bytes = Uint8Array.from({ length: 3 * 1000 }, () => Math.floor(r() * 256));
    expect(Array.from(packRgb8(bytes, 1000)), `seed ${seed}`).toEqual(Array.from(packRgba8(Float32Array.from(bytes, (b) => b / 255), 1000)));
  });

  it('uploads views of different sizes from 8-bit and float sources to the same words, in order', async () => {
    const ctx = await testGpu();
    const seed = freshSeed();
    const r = rng(seed);
    const sizes = [[7, 5], [16, 9], [3, 11]];
    const images = sizes.map(([w, h]) => Uint8Array.from({ length: w * h * 3 }, () => Math.floor(r() * 256)));
    const base = { name: 't', background: [0, 0, 0] as [number, number, number], sceneScale: 1, views: sizes.map(([w, h], i) => ({ name: `v${i}`, camera: camera(w, h), split: 'train' as const })) };
    const floats: TrainingData = { ...base, loadImage: async (i) => Float32Array.from(images[i], (b) => b / 255) };
    const bytes: TrainingData = { ...floats, loadImageRgb8: async (i) => images[i] };
    const read = async (data: TrainingData) => {
      const t = await GpuTargets.upload(ctx, data, [2, 0, 1]);
      const out: number[][] = [];
      for (const [v, [w, h]] of sizes.entries()) {
        const words = new Uint32Array(await readBuffer(ctx.device, t.buffer(v), t.buffer(v).size));
        out.push(Array.from(words.subarray(t.location[v].offset, t.location[v].offset + w * h)));
      }
      t.destroy();
      return out;
    };
    const a = await read(floats);
    const b = await read(bytes);
    expect(b, `seed ${seed}`).toEqual(a);
    for (const [v, img] of images.entries()) expect(b[v], `view ${v}`).toEqual(Array.from(packRgb8(img, img.length / 3)));
  });

  it('a view with a mask (RGB + mask bytes) keeps the mask in the alpha byte and its loss counts beside it', async () => {
    const ctx = await testGpu();
    const seed = freshSeed();
    const r = rng(seed);
    const [w, h] = [23, 17];
    const rgb = Uint8Array.from({ length: w * h * 3 }, () => Math.floor(r() * 256));
    const mask = Uint8Array.from({ length: w * h }, () => (r() < 0.3 ? 0 : 255));
    const rgba = new Uint8Array(w * h * 4);
    for (let p = 0; p < w * h; p++) rgba.set([rgb[3 * p], rgb[3 * p + 1], rgb[3 * p + 2], mask[p]], 4 * p);
    const data: TrainingData = {
      name: 't', background: [0, 0, 0], sceneScale: 1,
      views: [{ name: 'plain', camera: camera(w, h), split: 'train' }, { name: 'masked', camera: camera(w, h), split: 'train' }],
      loadImage: async () => new Float32Array(0),
      loadImageRgb8: async (i) => (i === 0 ? rgb : rgba),
    };
    const t = await GpuTargets.upload(ctx, data, [0, 1]);
    const words = new Uint32Array(await readBuffer(ctx.device, t.buffer(1), t.buffer(1).size));
    expect(Array.from(words.subarray(t.location[1].offset, t.location[1].offset + w * h)), `seed ${seed}`).toEqual(Array.from(packRgba8(Float32Array.from(rgb, (b) => b / 255), w * h, undefined, 0, mask)));
    expect(t.location[0].masked).toBeUndefined();
    expect(t.location[1].masked).toEqual({ same: lossCounts(w, h, 'same', mask), valid: lossCounts(w, h, 'valid', mask) });
    const kept = mask.filter((m) => m !== 0).length;
    expect(t.location[1].masked!.same).toEqual({ l1Values: 3 * kept, ssimValues: 3 * kept });
    expect(t.location[1].masked!.valid.ssimValues).toBeLessThan(3 * kept);
    t.destroy();
  });

  it('start places every view at once and loads behind it: a view asked for jumps the queue, its buffer is refused until it is on the GPU', async () => {
    const ctx = await testGpu();
    const seed = freshSeed();
    const r = rng(seed);
    const count = 40; // more than the loads in flight
    const [w, h] = [5, 4];
    const images = Array.from({ length: count }, () => Uint8Array.from({ length: w * h * 3 }, () => Math.floor(r() * 256)));
    const calls: number[] = [];
    const gates = new Map<number, () => void>();
    const data: TrainingData = {
      name: 't', background: [0, 0, 0], sceneScale: 1,
      views: images.map((_, i) => ({ name: `v${i}`, camera: camera(w, h), split: 'train' as const })),
      loadImage: async () => new Float32Array(0),
      loadImageRgb8: async (i) => {
        calls.push(i);
        await new Promise<void>((resolve) => gates.set(i, resolve));
        return images[i];
      },
    };
    const order = images.map((_, i) => i);
    const t = GpuTargets.start(ctx, data, order, { first: [7, 3] });
    expect(calls.slice(0, 2)).toEqual([7, 3]);
    expect(calls.length).toBeLessThan(count);
    expect(() => t.buffer(7)).toThrow('v7: its target is not on the GPU yet');
    const last = count - 1;
    expect(calls).not.toContain(last);
    const ready = t.whenReady(last);
    expect(calls.at(-1), 'asked for: loaded now').toBe(last);
    gates.get(last)!();
    await ready;
    expect(t.loaded).toBe(1);
    const words = new Uint32Array(await readBuffer(ctx.device, t.buffer(last), t.buffer(last).size));
    expect(Array.from(words.subarray(t.location[last].offset, t.location[last].offset + w * h)), `seed ${seed}`).toEqual(Array.from(packRgb8(images[last], w * h)));
    // the rest as their gates open, whatever the order
    const all = t.allReady();
    while (calls.length < count || gates.size < count) {
      for (const [v, open] of [...gates.entries()].reverse()) if (v !== last) open();
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    for (const open of gates.values()) open();
    await all;
    expect(t.loaded).toBe(count);
    expect(new Set(calls).size).toBe(count);
    t.destroy();
  });
});
