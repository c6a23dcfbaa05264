/**
 * Forward behaviour of the rasterizer reference, as specified: where a splat lands, what its
 * footprint and opacity are (classic and antialiased), the 1/255 cut, the 0.99 clamp, the T stop,
 * the near plane, tile borders, and the optional outputs. Gradients: rasterize-gradients.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { freshSeed, rng } from '../helpers/random.js';
import { ALPHA_MIN, compositeImage, TRANSMITTANCE_MIN } from './composite.js';
import { axisCamera, placeSplats, type PlacedSplat } from './fixtures.js';
import { rasterizeBackward, rasterizeForward, type RasterizeOptions, type RasterizeResult } from './rasterize.js';
import { cameraToWorld, randomCamera, randomScene, randomUnitQuat, quatToMatrix, uniform, type SplatKind } from './scenes.js';

const CLASSIC: RasterizeOptions = { antialiased: false };
const AA: RasterizeOptions = { antialiased: true };

function render(splats: readonly PlacedSplat[], camera = axisCamera(32, 24, 30, 30, 16.5, 12.5), options: RasterizeOptions = CLASSIC, background = [0.1, 0.2, 0.3]): RasterizeResult {
  return rasterizeForward({ splats: placeSplats(splats), shDegree: 0, camera, background, options });
}

function argmax(a: ArrayLike<number>): number {
  let best = 0;
  for (let k = 1; k < a.length; k++) if (a[k] > a[best]) best = k;
  return best;
}

describe('a single splat', () => {
  it('peaks at the pixel whose centre it projects to, under a random camera pose', () => {
    for (let trial = 0; trial < 20; trial++) {
      const seed = freshSeed();
      const rand = rng(seed);
      const camera = randomCamera(rand, 48, 36);
      const u = Math.floor(rand() * 48);
      const v = Math.floor(rand() * 36);
      const z = uniform(rand, 1, 5);
      const p = [((u + 0.5 - camera.cx) / camera.fx) * z, ((v + 0.5 - camera.cy) / camera.fy) * z, z];
      const opacity = uniform(rand, 0.2, 0.95);
      const rgb = [rand(), rand(), rand()];
      const bg = [rand(), rand(), rand()];
      const splats = placeSplats([{ at: cameraToWorld(camera, p), scale: [0.05, 0.08, 0.06], quat: randomUnitQuat(rand), opacity, rgb }]);
      const r = rasterizeForward({ splats, shDegree: 0, camera, background: bg, options: CLASSIC });
      const at = v * 48 + u;
      expect(argmax(r.alpha), `seed ${seed}`).toBe(at);
      expect(r.alpha[at], `seed ${seed}`).toBeCloseTo(opacity, 10);
      for (let c = 0; c < 3; c++) expect(r.rgb[3 * at + c], `seed ${seed}`).toBeCloseTo(opacity * rgb[c] + (1 - opacity) * bg[c], 10);
      expect(r.depth[at], `seed ${seed}`).toBeCloseTo(opacity * z, 10);
    }
  });

  it('has the closed-form footprint on the optical axis, with the 1/255 cut, in both modes', () => {
    const seed = freshSeed();
    const rand = rng(seed);
    for (const s of [0.002, 0.03, 0.2, 2]) {
      const [W, H] = [41, 33];
      const [fx, fy] = [uniform(rand, 30, 50), uniform(rand, 30, 50)];
      const z = uniform(rand, 1, 3);
      const opacity = uniform(rand, 0.3, 0.98);
      // Centre on pixel (20, 16): J = diag(f/z) there, so cov2d = diag((f s / z)^2).
      const camera = axisCamera(W, H, fx, fy, 20.5, 16.5);
      const vx = ((fx * s) / z) ** 2;
      const vy = ((fy * s) / z) ** 2;
      for (const options of [CLASSIC, AA]) {
        const r = render([{ at: [0, 0, z], scale: s, opacity }], camera, options);
        const comp = options.antialiased ? Math.sqrt((vx * vy) / ((vx + 0.3) * (vy + 0.3))) : 1;
        let reached = 0;
        for (let v = 0; v < H; v++) {
          for (let u = 0; u < W; u++) {
            const [du, dv] = [u - 20, v - 16];
            const raw = opacity * comp * Math.exp(-0.5 * ((du * du) / (vx + 0.3) + (dv * dv) / (vy + 0.3)));
            const expected = raw < ALPHA_MIN ? 0 : Math.min(0.99, raw);
            if (expected > 0) reached++;
            expect(r.alpha[v * W + u], `seed ${seed} s=${s} aa=${options.antialiased} pixel ${u},${v}`).toBeCloseTo(expected, 12);
          }
        }
        if (!options.antialiased) expect(reached, `seed ${seed} s=${s}`).toBeGreaterThan(0);
        expect(r.projected.compensation[0], `seed ${seed} s=${s}`).toBeCloseTo(comp, 12);
      }
    }
  });

  it('is fainter in antialiased mode by exactly the compensation, much fainter when tiny', () => {
    const camera = axisCamera(16, 16, 40, 40, 8.5, 8.5);
    const centre = 8 * 16 + 8;
    for (const [scale, low, high] of [
      [0.004, 0.01, 0.05], // sigma 0.08 px: var / (var + 0.3) ~ 0.02
      [0.1, 0.9, 0.95], // sigma 2 px: 4 / 4.3
      [1, 0.999, 1], // sigma 20 px
    ]) {
      const splat = { at: [0, 0, 2], scale, opacity: 0.8 };
      const classic = render([splat], camera, CLASSIC).alpha[centre];
      const aa = render([splat], camera, AA).alpha[centre];
      const variance = ((40 * scale) / 2) ** 2;
      expect(classic, `scale ${scale}`).toBeCloseTo(0.8, 12);
      expect(aa / classic, `scale ${scale}`).toBeCloseTo(variance / (variance + 0.3), 12);
      expect(aa / classic, `scale ${scale}`).toBeGreaterThan(low);
      expect(aa / classic, `scale ${scale}`).toBeLessThan(high);
    }
  });

  it('opacity ~0 leaves exactly the background; a colour below 0 is clamped to black', () => {
    const bg = [0.25, 0.5, 0.75];
    const r = render([{ at: [0, 0, 2], scale: 0.3, opacity: 1e-22 }], undefined, CLASSIC, bg);
    for (let p = 0; p < 32 * 24; p++) {
      expect([r.rgb[3 * p], r.rgb[3 * p + 1], r.rgb[3 * p + 2]]).toEqual(bg);
      expect(r.alpha[p]).toBe(0);
      expect(r.depth[p]).toBe(0);
    }
    const black = render([{ at: [0, 0, 2], scale: 0.3, opacity: 0.6, rgb: [-3, 0.5, -1] }], undefined, CLASSIC, bg);
    const centre = 12 * 32 + 16;
    expect(black.rgb[3 * centre]).toBeCloseTo(0.4 * bg[0], 12);
    expect(black.rgb[3 * centre + 1]).toBeCloseTo(0.6 * 0.5 + 0.4 * bg[1], 12);
  });

  it('a huge splat covers every pixel with nearly its opacity; it is never clamped beyond 0.99', () => {
    const r = render([{ at: [0, 0, 2], scale: 40, opacity: 0.999 }]);
    for (let p = 0; p < 32 * 24; p++) {
      expect(r.alpha[p]).toBe(0.99);
      expect(r.compositedCount[p]).toBe(1);
    }
  });
});

describe('projection', () => {
  it('clamps x/z and y/z to the widened frustum in the Jacobian, not in mean2d', () => {
    const seed = freshSeed();
    const rand = rng(seed);
    const [W, H, fx, fy, cx, cy] = [40, 30, uniform(rand, 30, 50), uniform(rand, 30, 50), uniform(rand, 15, 25), uniform(rand, 10, 20)];
    const camera = axisCamera(W, H, fx, fy, cx, cy);
    const limXPos = (W - cx) / fx + 0.3 * ((0.5 * W) / fx);
    const limXNeg = cx / fx + 0.3 * ((0.5 * W) / fx);
    const limYPos = (H - cy) / fy + 0.3 * ((0.5 * H) / fy);
    const limYNeg = cy / fy + 0.3 * ((0.5 * H) / fy);
    const s = 0.5;
    const z = 2;
    for (const [rx, ry, ex, ey] of [
      [0.9 * limXPos, -0.9 * limYNeg, 0.9 * limXPos, -0.9 * limYNeg],
      [1.5 * limXPos, 0, limXPos, 0],
      [-2 * limXNeg, 3 * limYPos, -limXNeg, limYPos],
      [0, -1.2 * limYNeg, 0, -limYNeg],
    ]) {
      const r = render([{ at: [rx * z, ry * z, z], scale: s, opacity: 0.5 }], camera);
      const pr = r.projected;
      // Isotropic Sigma = s^2 I, J = [[fx/z, 0, -fx ex/z], [0, fy/z, -fy ey/z]].
      const f2 = (s / z) ** 2;
      const context = `seed ${seed} x/z=${rx} y/z=${ry}`;
      expect(pr.cov2d[0] - 0.3, context).toBeCloseTo(fx * fx * f2 * (1 + ex * ex), 9);
      expect(pr.cov2d[1], context).toBeCloseTo(fx * fy * f2 * ex * ey, 9);
      expect(pr.cov2d[2] - 0.3, context).toBeCloseTo(fy * fy * f2 * (1 + ey * ey), 9);
      expect(pr.mean2d[0], context).toBeCloseTo(fx * rx + cx, 9);
      expect(pr.mean2d[1], context).toBeCloseTo(fy * ry + cy, 9);
    }
  });
});

describe('culling', () => {
  it('splats in front of the near plane render, behind it (or behind the camera) contribute nothing', () => {
    const splat = (z: number): PlacedSplat => ({ at: [0, 0, z], scale: 0.01, opacity: 0.9 });
    for (const [z, near, visible] of [
      [0.0101, undefined, 1],
      [0.0099, undefined, 0],
      [-1, undefined, 0],
      [0.6, 0.5, 1],
      [0.4, 0.5, 0],
    ] as const) {
      const r = render([splat(z), { ...splat(z), scale: 5 }], undefined, { antialiased: false, near });
      expect(r.projected.visible[0], `z=${z} near=${near}`).toBe(visible);
      expect(r.projected.visible[1], `z=${z} near=${near}`).toBe(visible);
      const any = r.alpha.some((a) => a > 0);
      expect(any, `z=${z} near=${near}`).toBe(visible === 1);
    }
  });

  it('culled splats get zero gradients', () => {
    const splats = placeSplats([
      { at: [0, 0, 0.005], scale: 0.3, opacity: 0.9 },
      { at: [0, 0, -2], scale: 0.3, opacity: 0.9 },
      { at: [0.1, 0, 2], scale: 0.3, opacity: 0.5 },
    ]);
    const camera = axisCamera(32, 24, 30, 30, 16.5, 12.5);
    const n = 32 * 24;
    const g = rasterizeBackward({ splats, shDegree: 0, camera, background: [0, 0, 0], options: AA }, { rgb: new Float64Array(3 * n).fill(1), alpha: new Float64Array(n).fill(1), depth: new Float64Array(n).fill(1) });
    for (const i of [0, 1]) {
      expect([...g.means.slice(3 * i, 3 * i + 3), ...g.quats.slice(4 * i, 4 * i + 4), g.opacityLogits[i]].every((x) => x === 0)).toBe(true);
    }
    expect(g.opacityLogits[2]).not.toBe(0);
  });
});

describe('compositing order, cut, clamp and stop', () => {
  const camera = axisCamera(9, 9, 20, 20, 4.5, 4.5);
  const centre = 4 * 9 + 4;
  const stack = (ops: readonly number[], rgbs?: readonly (readonly number[])[]): PlacedSplat[] =>
    ops.map((opacity, k) => ({ at: [0, 0, 1 + k], scale: 0.2 * (1 + k), opacity, rgb: rgbs?.[k] }));

  it('composites front to back by depth whatever the input order; ties by index', () => {
    const front = { at: [0, 0, 1], scale: 0.2, opacity: 0.7, rgb: [1, 0, 0] };
    const back = { at: [0, 0, 2], scale: 0.4, opacity: 0.7, rgb: [0, 0, 1] };
    const a = render([front, back], camera, CLASSIC, [0, 0, 0]);
    const b = render([back, front], camera, CLASSIC, [0, 0, 0]);
    expect(a.rgb[3 * centre]).toBeCloseTo(0.7, 12);
    expect(b.rgb[3 * centre]).toBeCloseTo(0.7, 12);
    expect(b.rgb[3 * centre + 2]).toBeCloseTo(0.3 * 0.7, 12);
    const tie = render([{ ...front, rgb: [0, 1, 0] }, front], camera, CLASSIC, [0, 0, 0]);
    expect(tie.rgb[3 * centre + 1]).toBeCloseTo(0.7, 12);
  });

  it('stops before the splat that would bring T to 1e-4 or below, and composites nothing after it', () => {
    const rgbs = [[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1]];
    // alpha 0.99 (clamped), 0.98 -> T = 2e-4; 0.6 would give 8e-5 <= 1e-4: stop; 0.05 alone would not.
    const r = render(stack([0.9999, 0.98, 0.6, 0.05], rgbs), camera, CLASSIC, [0, 0, 0]);
    expect(r.compositedCount[centre]).toBe(2);
    expect(1 - r.alpha[centre]).toBeCloseTo(0.01 * 0.02, 14);
    expect(r.rgb[3 * centre]).toBeCloseTo(0.99, 12);
    expect(r.rgb[3 * centre + 1]).toBeCloseTo(0.01 * 0.98, 12);
    expect(r.rgb[3 * centre + 2]).toBeCloseTo(0, 14);
    expect(r.depth[centre]).toBeCloseTo(0.99 * 1 + 0.0098 * 2, 12);
    // Without the third splat the fourth is composited: T = 2e-4 * 0.95 > 1e-4.
    const withoutThird = render(stack([0.9999, 0.98, 0.05], rgbs), camera, CLASSIC, [0, 0, 0]);
    expect(withoutThird.compositedCount[centre]).toBe(3);
    expect(1 - withoutThird.alpha[centre]).toBeGreaterThan(TRANSMITTANCE_MIN);
  });

  it('says how close the stop test came to 1e-4: two clamped splats (0.01 x 0.01) are a tie no opacity nudge moves', () => {
    const tie = render(stack([0.9999, 0.9999, 0.5]), camera, CLASSIC, [0, 0, 0]);
    expect(tie.stopMargin[centre]).toBeLessThan(1e-12);
    const clear = render(stack([0.9999, 0.98, 0.05]), camera, CLASSIC, [0, 0, 0]);
    // tests 0.01 x 0.02 = 2e-4 and 2e-4 x 0.95 = 1.9e-4: margin 0.9
    expect(clear.stopMargin[centre]).toBeCloseTo(0.9, 9);
  });

  it('skips (without stopping) a splat whose alpha is below 1/255, keeps one just above', () => {
    const below = render(stack([ALPHA_MIN * (1 - 1e-7), 0.5]), camera);
    expect(below.compositedCount[centre]).toBe(1);
    expect(below.alpha[centre]).toBeCloseTo(0.5, 14);
    const above = render(stack([ALPHA_MIN * (1 + 1e-7), 0.5]), camera);
    expect(above.compositedCount[centre]).toBe(2);
    expect(above.alpha[centre]).toBeCloseTo(1 - (1 - ALPHA_MIN) * 0.5, 9);
  });

  it('stops when T (1 - alpha) is exactly 1e-4 (the test is <=)', () => {
    // Thirteen alphas of 0.5 leave T = 2^-13 exactly; then 1 - alpha = 8192e-4 (exact: a power-of-two
    // multiple of the double 1e-4) makes T (1 - alpha) == 1e-4 to the bit. All at the centre (power 0).
    const last = 1 - 1e-4 * 8192;
    expect(2 ** -13 * (1 - last)).toBe(1e-4);
    const n = 14;
    const stage = (lastOpacity: number) => ({
      width: 1,
      height: 1,
      count: n,
      visible: new Array(n).fill(1),
      depth: Array.from({ length: n }, (_, k) => 1 + k),
      mean2d: new Array(2 * n).fill(0.5),
      conic: Array.from({ length: 3 * n }, (_, k) => (k % 3 === 1 ? 0 : 1)),
      opacity: Array.from({ length: n }, (_, k) => (k < n - 1 ? 0.5 : lastOpacity)),
      colour: new Array(3 * n).fill(1),
      normal: new Array(3 * n).fill(0),
      background: [0, 0, 0],
    });
    expect(compositeImage(stage(last)).compositedCount[0]).toBe(13);
    // A hair more transmittance and the last splat is composited.
    expect(compositeImage(stage(last - 1e-12)).compositedCount[0]).toBe(14);
  });

  it('clamps alpha at 0.99', () => {
    const r = render(stack([0.9999999]), camera);
    expect(r.alpha[centre]).toBe(0.99);
  });
});

describe('optional outputs', () => {
  const camera = axisCamera(9, 9, 20, 20, 4.5, 4.5);
  const centre = 4 * 9 + 4;
  const all: RasterizeOptions = { antialiased: false, medianDepth: true, normals: true, distortion: true, splatWeights: true };

  it('median depth: the depth of the first splat after which T <= 0.5; 0 where T stays above', () => {
    const r = render([0.3, 0.3, 0.5].map((opacity, k) => ({ at: [0, 0, 1 + k], scale: 0.5, opacity })), camera, all);
    expect(r.medianDepth![centre]).toBe(2); // T: 0.7, 0.49
    const faint = render([{ at: [0, 0, 1], scale: 0.5, opacity: 0.4 }], camera, all);
    expect(faint.medianDepth!.every((d) => d === 0)).toBe(true);
    const exactlyHalf = render([{ at: [0, 0, 1.5], scale: 0.5, opacity: 0.5 }], camera, all);
    expect(exactlyHalf.medianDepth![centre]).toBeCloseTo(1.5, 12);
  });

  it('depth distortion equals sum_ij w_i w_j |z_i - z_j| over the composited splats', () => {
    const seed = freshSeed();
    const rand = rng(seed);
    const ops = [uniform(rand, 0.1, 0.6), uniform(rand, 0.1, 0.6), uniform(rand, 0.1, 0.6)];
    const zs = [1, uniform(rand, 1.5, 2.5), uniform(rand, 3, 4)];
    const r = render(ops.map((opacity, k) => ({ at: [0, 0, zs[k]], scale: 0.5, opacity })), camera, all);
    const w = [ops[0], ops[1] * (1 - ops[0]), ops[2] * (1 - ops[0]) * (1 - ops[1])];
    let expected = 0;
    for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) expected += w[i] * w[j] * Math.abs(zs[i] - zs[j]);
    expect(r.distortion![centre], `seed ${seed}`).toBeCloseTo(expected, 12);
    const single = render([{ at: [0, 0, 2], scale: 0.5, opacity: 0.9 }], camera, all);
    expect(single.distortion!.every((d) => d === 0)).toBe(true);
  });

  it('normals: the smallest-scale axis in camera space, turned towards the camera, times the weight', () => {
    const seed = freshSeed();
    const rand = rng(seed);
    const cam = randomCamera(rand, 9, 9);
    const z = uniform(rand, 1, 3);
    const world = cameraToWorld(cam, [((4.5 - cam.cx) / cam.fx) * z, ((4.5 - cam.cy) / cam.fy) * z, z]);
    const q = randomUnitQuat(rand);
    const axis = Math.floor(rand() * 3);
    const scale = [0.3, 0.25, 0.2].map((s, k) => (k === axis ? 0.01 : s));
    const r = rasterizeForward({ splats: placeSplats([{ at: world, scale, quat: q, opacity: 0.7 }]), shDegree: 0, camera: cam, background: [0, 0, 0], options: all });
    const Rq = quatToMatrix(q);
    const m = cam.worldToCamera;
    const n = [0, 1, 2].map((row) => m[4 * row] * Rq[axis] + m[4 * row + 1] * Rq[3 + axis] + m[4 * row + 2] * Rq[6 + axis]);
    const p = r.projected.camPoints.slice(0, 3);
    const sign = n[0] * p[0] + n[1] * p[1] + n[2] * p[2] > 0 ? -1 : 1;
    for (let d = 0; d < 3; d++) expect(r.normals![3 * centre + d], `seed ${seed}`).toBeCloseTo(0.7 * sign * n[d], 10);
    const facing = r.normals![3 * centre] * p[0] + r.normals![3 * centre + 1] * p[1] + r.normals![3 * centre + 2] * p[2];
    expect(facing, `seed ${seed}`).toBeLessThanOrEqual(0);
  });

  it('per-splat weights: the sums over splats add up to the rendered alpha; max <= sum', () => {
    const seed = freshSeed();
    const rand = rng(seed);
    const input = randomScene(rand, { count: 60, width: 40, height: 30, setDegree: 0, options: all, kinds: ['ordinary', 'huge', 'tiny', 'opaque'] });
    const r = rasterizeForward(input);
    const total = r.alpha.reduce((s, a) => s + a, 0);
    const sum = r.splatWeightSum!.reduce((s, a) => s + a, 0);
    expect(sum, `seed ${seed}`).toBeCloseTo(total, 9);
    for (let i = 0; i < 60; i++) {
      expect(r.splatWeightMax![i], `seed ${seed}`).toBeLessThanOrEqual(r.splatWeightSum![i]);
      expect(r.splatWeightMax![i], `seed ${seed}`).toBeLessThanOrEqual(0.99);
    }
    const one = render([{ at: [0, 0, 2], scale: 0.2, opacity: 0.6 }], camera, all);
    expect(one.splatWeightMax![0]).toBeCloseTo(0.6, 12);
  });
});

/** The per-pixel rule of the brief, literally: every visible splat, no tiles, no boxes. */
function naiveComposite(r: RasterizeResult, width: number, height: number, bg: readonly number[]): { rgb: Float64Array; count: Uint32Array } {
  const pr = r.projected;
  const order = [...Array(pr.count).keys()].filter((i) => pr.visible[i]).sort((a, b) => pr.depth[a] - pr.depth[b] || a - b);
  const rgb = new Float64Array(3 * width * height);
  const count = new Uint32Array(width * height);
  for (let v = 0; v < height; v++) {
    for (let u = 0; u < width; u++) {
      let T = 1;
      const c = [0, 0, 0];
      for (const i of order) {
        const dx = pr.mean2d[2 * i] - (u + 0.5);
        const dy = pr.mean2d[2 * i + 1] - (v + 0.5);
        const power = 0.5 * (pr.conic[3 * i] * dx * dx + pr.conic[3 * i + 2] * dy * dy) + pr.conic[3 * i + 1] * dx * dy;
        if (power < 0) continue;
        const alpha = Math.min(0.99, pr.opacity[i] * Math.exp(-power));
        if (alpha < 1 / 255) continue;
        const next = T * (1 - alpha);
        if (next <= 1e-4) break;
        for (let k = 0; k < 3; k++) c[k] += alpha * T * pr.colour[3 * i + k];
        count[v * width + u]++;
        T = next;
      }
      for (let k = 0; k < 3; k++) rgb[3 * (v * width + u) + k] = c[k] + T * bg[k];
    }
  }
  return { rgb, count };
}

describe('tiles', () => {
  it('splats crossing 16x16 tile borders render exactly as the loop over all splats', () => {
    const kinds: SplatKind[] = ['ordinary', 'tiny', 'huge', 'transparent', 'opaque', 'behind', 'offscreen'];
    for (const antialiased of [false, true]) {
      const seed = freshSeed();
      const rand = rng(seed);
      const input = randomScene(rand, { count: 150, width: 70, height: 50, setDegree: 2, options: { antialiased }, kinds });
      // Move a third of the splats onto tile borders (in camera space, keeping their depth).
      const cam = input.camera;
      for (let i = 0; i < 50; i++) {
        const z = uniform(rand, 1, 4);
        const u = 16 * (1 + Math.floor(rand() * 4)) + uniform(rand, -2, 2);
        const v = 16 * (1 + Math.floor(rand() * 3)) + uniform(rand, -2, 2);
        input.splats.means.set(cameraToWorld(cam, [((u - cam.cx) / cam.fx) * z, ((v - cam.cy) / cam.fy) * z, z]), 3 * i);
      }
      const r = rasterizeForward(input);
      const naive = naiveComposite(r, 70, 50, input.background);
      expect([...r.compositedCount], `seed ${seed}`).toEqual([...naive.count]);
      let maxErr = 0;
      for (let k = 0; k < naive.rgb.length; k++) maxErr = Math.max(maxErr, Math.abs(naive.rgb[k] - r.rgb[k]));
      expect(maxErr, `seed ${seed}`).toBeLessThan(1e-12);
    }
  });
});

describe('inputs', () => {
  it('rejects an active SH degree above the set degree', () => {
    const splats = placeSplats([{ at: [0, 0, 2], scale: 0.1, opacity: 0.5 }]);
    expect(() => rasterizeForward({ splats, shDegree: 1, camera: axisCamera(8, 8, 8, 8, 4, 4), background: [0, 0, 0], options: CLASSIC })).toThrow(/SH degree/);
  });

  it('ignores SH coefficients above the active degree', () => {
    const seed = freshSeed();
    const rand = rng(seed);
    const input = randomScene(rand, { count: 30, width: 24, height: 20, setDegree: 3, shDegree: 1, options: CLASSIC });
    const a = rasterizeForward(input);
    for (let i = 0; i < 30; i++) for (let k = 4 * 3; k < 16 * 3; k++) input.splats.sh[i * 48 + k] = uniform(rand, -5, 5);
    const b = rasterizeForward(input);
    expect([...b.rgb], `seed ${seed}`).toEqual([...a.rgb]);
  });
});
