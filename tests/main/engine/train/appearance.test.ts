import { describe, expect, it } from 'vitest';
import { createStorage, readBuffer, uploadStorage } from '../../../../main/engine/gpu/buffers.js';
import { Appearance, APPEARANCE_GRIDS, appearanceLearningRate, appearanceModelFor, gradTiles, gridFloats, identityGrids, neighbourBlend, tvCoefficients, type GridShape } from '../../../../main/engine/train/appearance.js';
import { APPEARANCE_BENCH_IMAGES, APPEARANCE_BENCH_SLOT, appearanceBenchLoad } from '../../../../main/engine/train/bench-appearance.js';
import { testGpu, variantsOf } from '../../../helpers/gpu.js';
import { freshSeed, rng } from '../../../helpers/random.js';
import { APPEARANCE_CASES, appearanceParity, randomGrids } from '../../../parity/appearance.parity.js';
import { appearanceBackwardReference, appearanceForwardReference, tvReference } from '../../../reference/appearance.js';

const LUMA = [0.299, 0.587, 0.114];

/** A random problem: rendered colours (luminance kept off the clamp and node kinks by the caller's probes). */
function problem(seed: number, shape: GridShape, width: number, height: number, images: number) {
  const random = rng(seed);
  const grids = Float64Array.from(randomGrids(random, gridFloats(shape, images), 0.3));
  const image = Float64Array.from({ length: width * height * 3 }, () => random() * 1.2 - 0.1);
  const vOut = Float64Array.from({ length: width * height * 3 }, () => random() - 0.5);
  return { random, grids, image, vOut, slot: Math.floor(random() * images) };
}

const dot = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
};

/** Whether a pixel's luminance sits within `margin` of 0, 1 or a luminance node (a kink of the slice). */
function nearKink(image: ArrayLike<number>, q: number, shape: GridShape, margin: number): boolean {
  const lum = LUMA[0] * image[3 * q] + LUMA[1] * image[3 * q + 1] + LUMA[2] * image[3 * q + 2];
  const z = Math.min(1, Math.max(0, lum)) * (shape.l - 1);
  return Math.abs(lum) < margin || Math.abs(lum - 1) < margin || Math.abs(z - Math.round(z)) < margin * (shape.l - 1);
}

describe('appearance reference (float64)', () => {
  it.each(['affine', 'bilagrid'] as const)('%s: identity grids leave the image and its gradient unchanged', (model) => {
    const shape = APPEARANCE_GRIDS[model];
    const { image, vOut } = problem(freshSeed(), shape, 13, 9, 2);
    const grids = identityGrids(shape, 2);
    const out = appearanceForwardReference(image, 13, 9, grids, shape, 1);
    for (let i = 0; i < image.length; i++) expect(out[i]).toBeCloseTo(image[i], 12);
    const back = appearanceBackwardReference(image, vOut, 13, 9, grids, shape, 1);
    for (let i = 0; i < image.length; i++) expect(back.vImage[i]).toBeCloseTo(vOut[i], 12);
    expect(tvReference(grids, shape, 2, 10).value).toBe(0);
  });

  it.each([
    ['affine', APPEARANCE_GRIDS.affine],
    ['bilagrid', APPEARANCE_GRIDS.bilagrid],
    ['a 4x3x5 grid', { x: 4, y: 3, l: 5 }],
  ] as const)('%s: dL/d image (through the matrix and the luminance coordinate) is what finite differences give', (_name, shape) => {
    const seed = freshSeed();
    const W = 11;
    const H = 7;
    const { random, grids, image, vOut, slot } = problem(seed, shape, W, H, 2);
    const back = appearanceBackwardReference(image, vOut, W, H, grids, shape, slot);
    const objective = (img: Float64Array) => dot(vOut, appearanceForwardReference(img, W, H, grids, shape, slot));
    const eps = 1e-6;
    let num = 0;
    let den = 0;
    let probes = 0;
    let throughLuminance = 0;
    while (probes < 40) {
      const i = Math.floor(random() * image.length);
      if (nearKink(image, Math.floor(i / 3), shape, 1e-4)) continue;
      probes++;
      const plus = Float64Array.from(image);
      const minus = Float64Array.from(image);
      plus[i] += eps;
      minus[i] -= eps;
      const fd = (objective(plus) - objective(minus)) / (2 * eps);
      num += (fd - back.vImage[i]) ** 2;
      den += fd * fd;
      // the luminance path's share: what the gradient through the sliced matrix alone misses
      if (Math.abs(back.vImage[i] - back.vImageThroughMatrix[i]) > 1e-9) throughLuminance++;
    }
    expect(Math.sqrt(num / den), `seed ${seed}`).toBeLessThan(1e-7);
    if (shape.l > 1) expect(throughLuminance, `seed ${seed}: probes where the luminance path contributes`).toBeGreaterThan(10);
  });

  it.each([
    ['affine', APPEARANCE_GRIDS.affine],
    ['bilagrid', APPEARANCE_GRIDS.bilagrid],
    ['a 4x3x5 grid', { x: 4, y: 3, l: 5 }],
  ] as const)('%s: dL/d grid (photometric + TV) is what finite differences give', (_name, shape) => {
    const seed = freshSeed();
    const W = 23;
    const H = 17;
    const images = 3;
    const { random, grids, image, vOut, slot } = problem(seed, shape, W, H, images);
    const weight = 10;
    const objective = (g: Float64Array) => dot(vOut, appearanceForwardReference(image, W, H, g, shape, slot)) + tvReference(g, shape, images, weight).value;
    const back = appearanceBackwardReference(image, vOut, W, H, grids, shape, slot);
    const tv = tvReference(grids, shape, images, weight);
    const eps = 1e-6;
    let num = 0;
    let den = 0;
    const perGrid = grids.length / images;
    for (let probe = 0; probe < 60; probe++) {
      // half the probes in the frame's grid, the rest anywhere (TV only)
      const i = probe % 2 ? slot * perGrid + Math.floor(random() * perGrid) : Math.floor(random() * grids.length);
      const plus = Float64Array.from(grids);
      const minus = Float64Array.from(grids);
      plus[i] += eps;
      minus[i] -= eps;
      const fd = (objective(plus) - objective(minus)) / (2 * eps);
      const analytic = back.vGrids[i] + tv.grad[i];
      num += (fd - analytic) ** 2;
      den += fd * fd;
    }
    expect(Math.sqrt(num / Math.max(den, 1e-300)), `seed ${seed}`).toBeLessThan(1e-6);
    // grids of other images get no photometric gradient
    for (let i = 0; i < grids.length; i++) if (Math.floor(i / perGrid) !== slot) expect(back.vGrids[i]).toBe(0);
  });

  it('the TV term is the gsplat definition: one differing node of a 2x1x1 grid', () => {
    const shape = { x: 2, y: 1, l: 1 };
    const grids = identityGrids(shape, 1);
    grids[12] += 0.5; // the second node's first coefficient
    // one pair per coefficient along x: count 12, (0.5)^2 / 12, one image, weight 10
    expect(tvReference(grids, shape, 1, 10).value).toBeCloseTo((10 * 0.25) / 12, 14);
    expect(tvCoefficients(shape, 1, 10).x).toBeCloseTo((2 * 10) / 12, 14);
  });
});

describe('appearance host rules', () => {
  it("a held-out view borrows its neighbours' colour models in the capture's order, nearer weighing more", () => {
    // views 0..9, every 4th held out: training views 1 2 3 5 6 7 9 (slots 0..6)
    const train = [1, 2, 3, 5, 6, 7, 9];
    expect(neighbourBlend(4, train)).toEqual([{ slot: 2, weight: 0.5 }, { slot: 3, weight: 0.5 }]);
    expect(neighbourBlend(0, train)).toEqual([{ slot: 0, weight: 1 }]); // before the first: one side
    expect(neighbourBlend(10, train)).toEqual([{ slot: 6, weight: 1 }]); // after the last
    expect(neighbourBlend(6, train)).toEqual([{ slot: 4, weight: 1 }]); // a training view: its own
    const uneven = neighbourBlend(4, [3, 7]); // 1 before, 3 after
    expect(uneven).toEqual([{ slot: 0, weight: 0.75 }, { slot: 1, weight: 0.25 }]);
  });

  it("'auto' trains the bilateral grid on photographs and nothing on synthetic renders", () => {
    expect(appearanceModelFor('auto', true)).toBe('bilagrid');
    expect(appearanceModelFor('auto', false)).toBe('off');
    expect(appearanceModelFor('affine', false)).toBe('affine');
    expect(appearanceModelFor('off', true)).toBe('off');
  });

  it('the learning rate warms up over 1000 steps from 1% and decays to 1% at the end', () => {
    expect(appearanceLearningRate(2e-3, 0, 30_000)).toBeCloseTo(2e-5, 12);
    expect(appearanceLearningRate(2e-3, 1000, 1000)).toBeCloseTo(2e-5, 12);
    expect(appearanceLearningRate(2e-3, 1000, 30_000)).toBeCloseTo(2e-3 * 0.01 ** (1 / 30), 12);
    expect(appearanceLearningRate(2e-3, 500, 30_000)).toBeLessThan(appearanceLearningRate(2e-3, 1000, 30_000));
  });

  it.each([
    [1920, 1440],
    [2000, 1324],
    [37, 29],
    [800, 800],
    [5, 3],
  ])('grid_grad_partials tiles cover every cell of %ix%i, and every pixel is in exactly one cell', (width, height) => {
    for (const shape of Object.values(APPEARANCE_GRIDS)) {
      const tiles = gradTiles(shape, width, height);
      for (const [nodes, pixels, perCell] of [[shape.x, width, tiles.x], [shape.y, height, tiles.y]]) {
        if (nodes === 1) {
          expect(perCell * 16).toBeGreaterThanOrEqual(pixels);
          continue;
        }
        // the kernel's cell_span: [floor(c per - 0.5) - 1, ceil((c + 1) per - 0.5) + 1], the last cell to the last pixel
        const per = pixels / (nodes - 1);
        const cellOf = new Int32Array(pixels).fill(-1);
        for (let c = 0; c < nodes - 1; c++) {
          const first = Math.max(0, Math.floor(c * per - 0.5) - 1);
          const last = c === nodes - 2 ? pixels - 1 : Math.min(pixels - 1, Math.ceil((c + 1) * per - 0.5) + 1);
          expect(perCell * 16, `cell ${c}`).toBeGreaterThanOrEqual(last - first + 1);
          // axis_of's cell of each pixel lies inside the span of that cell
          for (let p = first; p <= last; p++) {
            const i0 = Math.min(Math.floor(Math.min(nodes - 1, ((p + 0.5) / pixels) * (nodes - 1))), nodes - 2);
            if (i0 === c) cellOf[p] = c;
          }
        }
        expect(cellOf.every((c) => c >= 0)).toBe(true);
      }
    }
  });
});

describe('appearance kernels match the reference', async () => {
  const ctx = await testGpu();
  for (const variant of variantsOf(ctx)) {
    for (const c of APPEARANCE_CASES) {
      it(`${variant}: ${c.model} ${c.width}x${c.height}${c.frame ? ` (frame ${c.frame.width}x${c.frame.height})` : ''}`, async () => {
        const seed = freshSeed();
        const r = await appearanceParity(ctx, variant, seed, c);
        expect(r.ok, `seed ${seed}: ${r.detail}`).toBe(true);
      });
    }
  }

  it('the grid gradient is the same bits on every run and in every capability variant (fixed-order sums)', async () => {
    const [width, height] = [171, 133];
    const load = appearanceBenchLoad(width, height);
    const gradients: string[] = [];
    for (const variant of variantsOf(ctx))
      for (let run = 0; run < 2; run++) {
        const appearance = await Appearance.create(ctx, 'bilagrid', APPEARANCE_BENCH_IMAGES, 200, 150, { variant });
        ctx.device.queue.writeBuffer(appearance.grid, 0, load.grids);
        const pad = (v: Float32Array) => {
          const out = new Float32Array(200 * 150 * 4);
          out.set(v);
          return out;
        };
        const image = uploadStorage(ctx.device, 'appearance.test.image', pad(load.image));
        const vOut = uploadStorage(ctx.device, 'appearance.test.vOut', pad(load.vOut));
        const vImage = createStorage(ctx.device, 'appearance.test.vImage', 200 * 150 * 16);
        const commands = ctx.commands('appearance.test.bits');
        appearance.encodeForward(commands, APPEARANCE_BENCH_SLOT, image, vOut, width, height, vImage);
        appearance.encodeBackward(commands);
        await commands.submit();
        gradients.push(Buffer.from(await readBuffer(ctx.device, appearance.grad, appearance.floats * 4)).toString('base64'));
        for (const b of [image, vOut, vImage]) b.destroy();
        appearance.destroy();
      }
    expect(gradients.length).toBeGreaterThanOrEqual(2);
    for (const g of gradients) expect(g === gradients[0]).toBe(true);
  });
});
