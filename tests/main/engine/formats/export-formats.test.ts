import { describe, expect, it } from 'vitest';
import { checkSplatFile, parseSplat, serializeSplat } from '../../../../main/engine/formats/splat.js';
import { readSplat, viewSplatBuffer } from '../../../../shared/scene/splat-layout.js';
import { SH_C0, shCoefficientCount } from '../../../../shared/scene/splats.js';
import { randomSplats, rotationAgreement, sigmoid } from '../../../helpers/splat-sets.js';

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

  it('reads back what it wrote: positions exactly, scales, DC colour and alpha to their bytes, the rotation', () => {
    const s = randomSplats(50, 1, 3);
    const back = parseSplat(serializeSplat(s), 'x.splat');
    expect(back.shDegree).toBe(0);
    const order = Array.from({ length: 50 }, (_, i) => i).sort((a, b) => Math.exp(s.logScales[3 * b] + s.logScales[3 * b + 1] + s.logScales[3 * b + 2]) * sigmoid(s.opacityLogits[b]) - Math.exp(s.logScales[3 * a] + s.logScales[3 * a + 1] + s.logScales[3 * a + 2]) * sigmoid(s.opacityLogits[a]));
    const K = shCoefficientCount(1);
    for (const [out, i] of order.entries()) {
      for (let a = 0; a < 3; a++) expect(back.means[3 * out + a]).toBe(Math.fround(s.means[3 * i + a]));
      for (let a = 0; a < 3; a++) expect(back.logScales[3 * out + a]).toBeCloseTo(s.logScales[3 * i + a], 5);
      for (let c = 0; c < 3; c++) expect(Math.abs(0.5 + SH_C0 * back.sh[3 * out + c] - Math.min(1, Math.max(0, 0.5 + SH_C0 * s.sh[i * K * 3 + c])))).toBeLessThanOrEqual(0.5 / 255 + 1e-6);
      expect(Math.abs(sigmoid(back.opacityLogits[out]) - sigmoid(s.opacityLogits[i]))).toBeLessThanOrEqual(0.5 / 255 + 1e-6);
      expect(rotationAgreement(s.quats, i, back.quats, out)).toBeGreaterThan(0.98);
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
