import { gunzipSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { checkSplatFile, serializeSplat } from '../../../../main/engine/formats/splat.js';
import { parseSpz, serializeSpz } from '../../../../main/engine/formats/spz.js';
import { readSplat, viewSplatBuffer } from '../../../../shared/scene/splat-layout.js';
import { emptySplats, SH_C0, shCoefficientCount, type SplatSet } from '../../../../shared/scene/splats.js';
import { rng } from '../../../helpers/random.js';

function randomSplats(count: number, degree: number, seed = 1): SplatSet {
  const random = rng(seed);
  const s = emptySplats(count, degree);
  const u = (a: number, b: number) => a + (b - a) * random();
  for (let i = 0; i < count * 3; i++) s.means[i] = u(-50, 50);
  for (let i = 0; i < count * 3; i++) s.logScales[i] = u(-7, 1);
  for (let i = 0; i < count * 4; i++) s.quats[i] = u(-1, 1);
  for (let i = 0; i < count; i++) s.opacityLogits[i] = u(-5, 5);
  const K = shCoefficientCount(degree);
  for (let i = 0; i < count; i++) for (let k = 0; k < K; k++) for (let c = 0; c < 3; c++) s.sh[(i * K + k) * 3 + c] = k === 0 ? u(-1.5, 1.5) : u(-0.9, 0.9);
  return s;
}

const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

describe('.splat export (antimatter15 layout)', () => {
  it('writes 32 bytes per splat, most important first (volume x opacity), with exponentiated scales, DC colour, sigmoid alpha and the unit quaternion', () => {
    const s = randomSplats(200, 1);
    const bytes = serializeSplat(s);
    expect(bytes.byteLength).toBe(200 * 32);
    expect(checkSplatFile(bytes, 'x.splat')).toBe(200);
    const views = viewSplatBuffer(bytes.buffer as ArrayBuffer, 200);
    const importance = (i: number) => Math.exp(s.logScales[3 * i] + s.logScales[3 * i + 1] + s.logScales[3 * i + 2]) * sigmoid(s.opacityLogits[i]);
    const order = Array.from({ length: 200 }, (_, i) => i).sort((a, b) => importance(b) - importance(a));
    const K = shCoefficientCount(1);
    for (const [out, i] of order.entries()) {
      const r = readSplat(views, out);
      expect(r.position).toEqual([Math.fround(s.means[3 * i]), Math.fround(s.means[3 * i + 1]), Math.fround(s.means[3 * i + 2])]);
      for (let a = 0; a < 3; a++) expect(r.scale[a]).toBeCloseTo(Math.exp(s.logScales[3 * i + a]), 5);
      for (let c = 0; c < 3; c++) expect(r.rgba[c]).toBe(Math.min(255, Math.max(0, Math.round((0.5 + SH_C0 * s.sh[i * K * 3 + c]) * 255))));
      expect(r.rgba[3]).toBe(Math.round(sigmoid(s.opacityLogits[i]) * 255));
      const q = [0, 1, 2, 3].map((c) => s.quats[4 * i + c]);
      const n = Math.hypot(...q);
      for (let c = 0; c < 4; c++) expect(Math.abs(r.quaternion[c] - q[c] / n)).toBeLessThanOrEqual(0.5 / 128 + 1e-9);
    }
  });

  it('refuses a truncated .splat and NaN positions, naming the file', () => {
    const bytes = serializeSplat(randomSplats(2, 0));
    expect(() => checkSplatFile(bytes.subarray(0, 50), 'cut.splat')).toThrow(/cut\.splat: 50 bytes is not a whole number of 32-byte splats/);
    const nan = new Uint8Array(bytes);
    new DataView(nan.buffer).setFloat32(32 + 4, Number.NaN, true);
    expect(() => checkSplatFile(nan, 'nan.splat')).toThrow(/nan\.splat: splat 1: position is NaN/);
  });
});

describe('SPZ v2 export (Niantic)', () => {
  it('writes the 16-byte header and the attributes in the reference order, gzipped', () => {
    const s = randomSplats(5, 2);
    const { bytes } = serializeSpz(s, { antialiased: true });
    expect([bytes[0], bytes[1]]).toEqual([0x1f, 0x8b]); // gzip
    const raw = gunzipSync(bytes);
    const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
    expect(view.getUint32(0, true)).toBe(0x5053474e);
    expect(view.getUint32(4, true)).toBe(2);
    expect(view.getUint32(8, true)).toBe(5);
    expect([raw[12], raw[13], raw[14], raw[15]]).toEqual([2, 12, 1, 0]);
    expect(raw.length).toBe(16 + 5 * (9 + 1 + 3 + 3 + 3 + 8 * 3));
  });

  it('stores RUB axes: y and z of positions, quaternions and the odd SH coefficients flip; w >= 0', () => {
    const s = emptySplats(1, 1);
    s.means.set([1, 2, -3]);
    s.logScales.set([-10, -9, -10 + 255 / 16]);
    s.quats.set([-0.5, 0.5, 0.5, 0.5]); // w < 0: stored as -q
    s.opacityLogits[0] = 0;
    // DC 0, then SH degree 1 (k = 1, 2, 3 ~ y, z, x): +0.5 in red each.
    s.sh.set([0, 0, 0, 0.5, 0, 0, 0.5, 0, 0, 0.5, 0, 0]);
    const raw = gunzipSync(serializeSpz(s).bytes);
    const fixed = (o: number) => ((raw[o] | (raw[o + 1] << 8) | (raw[o + 2] << 16)) << 8) >> 8;
    expect([fixed(16), fixed(19), fixed(22)]).toEqual([4096, -8192, 12288]);
    expect(raw[25]).toBe(128); // alpha sigmoid(0) * 255 = 127.5 -> 128
    expect([raw[26], raw[27], raw[28]]).toEqual([128, 128, 128]); // colour: DC 0 -> 127.5 -> 128
    expect([raw[29], raw[30], raw[31]]).toEqual([0, 16, 255]); // (log scale + 10) * 16
    // -q = (0.5, -0.5, -0.5, -0.5) (w, x, y, z); RUB flips y, z: x = -0.5, y = 0.5, z = 0.5.
    expect([raw[32], raw[33], raw[34]]).toEqual([64, 191, 191]);
    // SH: y and z flip (-0.5 -> 64), x stays (+0.5 -> 192); buckets of 8.
    expect([raw[35], raw[38], raw[41]]).toEqual([64, 64, 192]);
  });

  it('round-trips within the format\'s quantization: positions 1/8192, log scales 1/32, colours, alpha, rotations, SH buckets', () => {
    for (const degree of [0, 1, 3]) {
      const s = randomSplats(300, degree, 7 + degree);
      const back = parseSpz(serializeSpz(s).bytes, 'x.spz');
      expect(back.count).toBe(300);
      expect(back.shDegree).toBe(degree);
      const K = shCoefficientCount(degree);
      for (let i = 0; i < 300; i++) {
        for (let a = 0; a < 3; a++) {
          expect(Math.abs(back.means[3 * i + a] - s.means[3 * i + a])).toBeLessThanOrEqual(0.5 / 4096 + 1e-5);
          expect(Math.abs(back.logScales[3 * i + a] - s.logScales[3 * i + a])).toBeLessThanOrEqual(0.5 / 16 + 1e-6);
        }
        expect(Math.abs(sigmoid(back.opacityLogits[i]) - sigmoid(s.opacityLogits[i]))).toBeLessThanOrEqual(0.5 / 255 + 1e-6);
        for (let c = 0; c < 3; c++) expect(Math.abs(back.sh[i * K * 3 + c] - s.sh[i * K * 3 + c])).toBeLessThanOrEqual(0.5 / (0.15 * 255) + 1e-6);
        const q = [0, 1, 2, 3].map((c) => s.quats[4 * i + c]);
        const n = Math.hypot(...q);
        const dot = Math.abs([0, 1, 2, 3].reduce((sum, c) => sum + back.quats[4 * i + c] * (q[c] / n), 0));
        expect(dot).toBeGreaterThan(0.995); // the same rotation (q and -q)
        for (let k = 1; k < K; k++) {
          const bucket = k <= 3 ? 8 : 16;
          for (let c = 0; c < 3; c++) expect(Math.abs(back.sh[(i * K + k) * 3 + c] - s.sh[(i * K + k) * 3 + c])).toBeLessThanOrEqual((bucket / 2 + 0.5) / 128 + 1e-6);
        }
      }
    }
  });

  it('clamps positions outside the 24-bit range and says how many', () => {
    const s = randomSplats(3, 0);
    s.means.set([5000, 0, 0, 0, -3000, 0], 0);
    const { bytes, clamped } = serializeSpz(s);
    expect(clamped).toBe(2);
    const back = parseSpz(bytes, 'x.spz');
    expect(back.means[0]).toBeCloseTo(2048, 2);
    expect(back.means[4]).toBeCloseTo(-2048, 2); // y: -3000 is +3000 in RUB, clamped, flipped back
  });

  it('reads version 3 (smallest-three rotations) as the reference library writes it', () => {
    // One splat, degree 0, rotation (x, y, z, w) = (0, 0, 0.6, 0.8) in RUB; largest is w (index 3).
    const raw = new Uint8Array(16 + 9 + 1 + 3 + 3 + 4);
    const view = new DataView(raw.buffer);
    view.setUint32(0, 0x5053474e, true);
    view.setUint32(4, 3, true);
    view.setUint32(8, 1, true);
    raw[13] = 12;
    let comp = 3;
    for (const value of [0, 0, 0.6]) comp = (comp << 10) | ((value < 0 ? 1 : 0) << 9) | Math.round(511 * (Math.abs(value) / Math.SQRT1_2));
    view.setUint32(16 + 9 + 1 + 3 + 3, comp >>> 0, true);
    const back = parseSpz(gzipSync(raw), 'v3.spz');
    // RUB (x, y, z, w) = (0, 0, 0.6, 0.8) -> RDF (w, x, -y, -z)
    expect(back.quats[0]).toBeCloseTo(0.8, 2);
    expect(back.quats[3]).toBeCloseTo(-0.6, 2);
  });

  it('refuses streams that are not SPZ, naming the file and the problem', () => {
    const good = gunzipSync(serializeSpz(randomSplats(2, 1)).bytes);
    const wrongMagic = new Uint8Array(good);
    wrongMagic[0] = 0;
    const v9 = new Uint8Array(good);
    v9[4] = 9;
    const cases: [Uint8Array, RegExp][] = [
      [new Uint8Array([1, 2, 3]), /a\.spz: not a gzip stream/],
      [gzipSync(good.subarray(0, 10)), /a\.spz: header truncated/],
      [gzipSync(wrongMagic), /a\.spz: not an SPZ file \(wrong magic\)/],
      [gzipSync(v9), /a\.spz: SPZ version 9 is not supported/],
      [gzipSync(good.subarray(0, good.length - 1)), /a\.spz: 2 points of SH degree 1 need \d+ bytes, the stream has \d+/],
    ];
    for (const [bytes, message] of cases) expect(() => parseSpz(bytes, 'a.spz')).toThrow(message);
  });
});
