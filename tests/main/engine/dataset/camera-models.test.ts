import { describe, expect, it } from 'vitest';
import {
  checkLens,
  distortNormalized,
  lensOf,
  MAX_FISHEYE_HALF_FOV_DEGREES,
  undistortedPinhole,
  undistortNormalized,
  type Lens,
} from '../../../../main/engine/dataset/distortion.js';
import { validAngle, validRadius } from '../../../../main/engine/dataset/lens.js';
import { freshSeed, rng } from '../../../helpers/random.js';
import { undistortImage } from '../../../helpers/undistort.js';

const W = 160;
const H = 120;

/** One lens of each model, with coefficients of real lenses' size. */
const LENSES: Record<string, number[]> = {
  SIMPLE_RADIAL: [100, 80.5, 60.5, -0.12],
  RADIAL: [100, 80.5, 60.5, -0.12, 0.03],
  OPENCV: [100, 98, 80.5, 60.5, -0.2, 0.05, 0.01, -0.005],
  FULL_OPENCV: [100, 98, 80.5, 60.5, -0.25, 0.08, 0.002, -0.003, -0.01, 0.05, 0.01, 0.002],
  OPENCV_FISHEYE: [70, 71, 80.5, 60.5, 0.05, -0.01, 0.002, -0.0004],
  SIMPLE_RADIAL_FISHEYE: [70, 80.5, 60.5, -0.03],
  RADIAL_FISHEYE: [70, 80.5, 60.5, -0.03, 0.004],
};

describe('camera models: distortion and undistortion are inverse in float64', () => {
  const seed = freshSeed();
  for (const [model, params] of Object.entries(LENSES)) {
    it(`${model} (seed ${seed})`, () => {
      const lens = lensOf({ model, params });
      checkLens(lens, W, H, 'cameras.bin', model);
      const random = rng(seed);
      const limit = Math.min(validRadius(lens), 3);
      let checked = 0;
      for (let i = 0; i < 2000; i++) {
        // random pinhole rays inside the model's valid field (and the lens's image, roughly)
        const r = Math.sqrt(random()) * 0.95 * limit;
        const a = random() * 2 * Math.PI;
        const [x, y] = [r * Math.cos(a), r * Math.sin(a)];
        const [xd, yd] = distortNormalized(lens, x, y);
        if (Math.hypot(xd * lens.fx, yd * lens.fy) > 2 * Math.hypot(W, H)) continue;
        const [xu, yu] = undistortNormalized(lens, xd, yd);
        expect(Math.hypot(xu - x, yu - y) / Math.max(1, r), `${model} at (${x}, ${y})`).toBeLessThan(1e-10);
        checked++;
      }
      expect(checked).toBeGreaterThan(1000);
    });
  }

  it('follows COLMAP\'s fisheye definition at a hand-computed point', () => {
    const lens = lensOf({ model: 'OPENCV_FISHEYE', params: LENSES.OPENCV_FISHEYE });
    const [x, y] = [0.6, -0.3];
    const theta = Math.atan(Math.hypot(x, y));
    const t2 = theta * theta;
    const thetaD = theta * (1 + 0.05 * t2 - 0.01 * t2 ** 2 + 0.002 * t2 ** 3 - 0.0004 * t2 ** 4);
    const [xd, yd] = distortNormalized(lens, x, y);
    expect(xd).toBeCloseTo((x * thetaD) / Math.hypot(x, y), 15);
    expect(yd).toBeCloseTo((y * thetaD) / Math.hypot(x, y), 15);
  });

  it('follows the FULL_OPENCV rational model at a hand-computed point', () => {
    const lens = lensOf({ model: 'FULL_OPENCV', params: LENSES.FULL_OPENCV });
    const [x, y] = [0.4, 0.25];
    const r2 = x * x + y * y;
    const radial = (1 - 0.25 * r2 + 0.08 * r2 ** 2 - 0.01 * r2 ** 3) / (1 + 0.05 * r2 + 0.01 * r2 ** 2 + 0.002 * r2 ** 3);
    const [xd, yd] = distortNormalized(lens, x, y);
    expect(xd).toBeCloseTo(x * radial + 2 * 0.002 * x * y - 0.003 * (r2 + 2 * x * x), 15);
    expect(yd).toBeCloseTo(y * radial + 0.002 * (r2 + 2 * y * y) + 2 * -0.003 * x * y, 15);
  });
});

describe('the pinhole a fisheye is undistorted to', () => {
  it('keeps the size and centre and fits the field of view along the axes', () => {
    const lens = lensOf({ model: 'OPENCV_FISHEYE', params: LENSES.OPENCV_FISHEYE });
    const pinhole = undistortedPinhole(lens, W, H);
    expect(pinhole.cx).toBe(lens.cx);
    expect(pinhole.cy).toBe(lens.cy);
    expect(pinhole.fx / pinhole.fy).toBeCloseTo(lens.fx / lens.fy, 12);
    // the left edge (80.5 px at fx = 70) sees atan of its undistorted radius; the pinhole's left edge sees the same or wider
    const [xLeft] = undistortNormalized(lens, 80.5 / 70, 0);
    const widest = Math.min(Math.atan(xLeft), (MAX_FISHEYE_HALF_FOV_DEGREES * Math.PI) / 180);
    expect(Math.atan(80.5 / pinhole.fx)).toBeGreaterThanOrEqual(widest - 1e-12);
    // and one of the four edges fits exactly (the focal is as long as it can be)
    const fits = [[80.5, lens.fx, pinhole.fx], [160 - 80.5, lens.fx, pinhole.fx], [60.5, lens.fy, pinhole.fy], [120 - 60.5, lens.fy, pinhole.fy]].map(([px, f, pf]) => {
      const [x] = undistortNormalized(lens, px / f, 0);
      return Math.abs(Math.atan(px / pf) - Math.min(Math.atan(x), (MAX_FISHEYE_HALF_FOV_DEGREES * Math.PI) / 180));
    });
    expect(Math.min(...fits)).toBeLessThan(1e-12);
  });

  it(`stops at ${MAX_FISHEYE_HALF_FOV_DEGREES} degrees for a lens that sees 90`, () => {
    // equidistant, no k: at f = 50 the 160x120 image's edges are 1.6 and 1.2 rad from the axis
    const lens = lensOf({ model: 'SIMPLE_RADIAL_FISHEYE', params: [50, 80, 60, 0] });
    expect(validAngle(lens)).toBeCloseTo(Math.PI / 2, 12);
    const pinhole = undistortedPinhole(lens, W, H);
    // both are capped; the shorter side (60 px) then sets the focal, and the longer sees wider than the cap
    expect(Math.atan(60 / pinhole.fy)).toBeCloseTo((MAX_FISHEYE_HALF_FOV_DEGREES * Math.PI) / 180, 12);
    expect(Math.atan(80 / pinhole.fx)).toBeGreaterThan((MAX_FISHEYE_HALF_FOV_DEGREES * Math.PI) / 180);
  });
});

/** Bilinear sample of a function's pinhole picture: pattern(x, y) on normalized pinhole coordinates. */
const pattern = (x: number, y: number): number => 0.5 + 0.35 * Math.sin(5 * x + 1) * Math.cos(4 * y - 0.5);

function photograph(lens: Lens): Float32Array {
  // distorted pixel (u, v) sees the ray undistort(u, v); NaN rays (outside the valid field) see 0
  const out = new Float32Array(W * H);
  for (let v = 0; v < H; v++)
    for (let u = 0; u < W; u++) {
      const [x, y] = undistortNormalized(lens, (u + 0.5 - lens.cx) / lens.fx, (v + 0.5 - lens.cy) / lens.fy);
      out[v * W + u] = Number.isFinite(x) ? pattern(x, y) : 0;
    }
  return out;
}

describe('a picture taken through each model, undistorted, is the pinhole picture', () => {
  for (const [model, params] of Object.entries(LENSES)) {
    it(model, () => {
      const lens = lensOf({ model, params });
      const pinhole = undistortedPinhole(lens, W, H);
      const { image, valid, invalidPixels } = undistortImage({ width: W, height: H, channels: 1, data: photograph(lens) }, lens, pinhole);
      let worst = 0;
      let inside = 0;
      for (let v = 0; v < H; v++)
        for (let u = 0; u < W; u++) {
          const x = (u + 0.5 - pinhole.cx) / pinhole.fx;
          const y = (v + 0.5 - pinhole.cy) / pinhole.fy;
          const [xd, yd] = distortNormalized(lens, x, y);
          const [ud, vd] = [xd * lens.fx + lens.cx, yd * lens.fy + lens.cy];
          const landsInside = ud >= 0 && ud <= W && vd >= 0 && vd <= H;
          expect(valid[v * W + u], `pixel (${u}, ${v})`).toBe(landsInside ? 1 : 0);
          if (!landsInside) {
            expect(image.data[v * W + u]).toBe(0);
            continue;
          }
          inside++;
          // away from the photo's last pixel, where bilinear sampling clamps
          if (ud < 1 || ud > W - 1 || vd < 1 || vd > H - 1) continue;
          worst = Math.max(worst, Math.abs(image.data[v * W + u] - pattern(x, y)));
        }
      expect(inside).toBe(W * H - invalidPixels);
      expect(inside).toBeGreaterThan(0.6 * W * H);
      expect(worst, model).toBeLessThan(0.01); // bilinear interpolation error only
    });
  }

  it('a fisheye keeps its widest axis (left and right edges valid) and marks the strips past its narrower one', () => {
    // limiting axis: horizontal (80.5 px at fx 70 sees past 60 degrees); vertically the pinhole sees past the photo's edge
    const lens = lensOf({ model: 'OPENCV_FISHEYE', params: LENSES.OPENCV_FISHEYE });
    const { valid, invalidPixels } = undistortImage({ width: W, height: H, channels: 1, data: photograph(lens) }, lens, undistortedPinhole(lens, W, H));
    expect(invalidPixels).toBeGreaterThan(0);
    expect(valid[60 * W]).toBe(1); // left edge, on the axis
    expect(valid[60 * W + W - 1]).toBe(1); // right edge
    expect(valid[80]).toBe(0); // top edge: past the photo
    expect(valid[(H - 1) * W + 80]).toBe(0);
  });
});
