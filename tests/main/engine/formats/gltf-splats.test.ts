/**
 * glTF splats (KHR_gaussian_splatting): gltf-transform, an independent glTF reader, reads what we
 * write (every attribute, the extension, the bounds), and our reader gives back our splats up to
 * float rounding of exp/log and sigmoid/logit; the axis turn to glTF's frame is exact.
 */
import { NodeIO } from '@gltf-transform/core';
import { describe, expect, it } from 'vitest';
import { parseGlb, serializeGlb } from '../../../../main/engine/formats/gltf-splats.js';
import { emptySplats, shCoefficientCount } from '../../../../shared/scene/splats.js';
import { randomSplats, rotationAgreement, sigmoid } from '../../../helpers/splat-sets.js';

const EXT = 'KHR_gaussian_splatting';

describe('glTF binary with KHR_gaussian_splatting', () => {
  it('gltf-transform reads every attribute we write, in glTF axes (x and y negated), with POSITION bounds, points mode and the extension', async () => {
    const s = randomSplats(40, 2, 5);
    const bytes = serializeGlb(s, { antialiased: true });
    const document = await new NodeIO().readBinary(bytes);
    const primitive = document.getRoot().listMeshes()[0].listPrimitives()[0];
    expect(primitive.getMode()).toBe(0);
    expect(document.getRoot().listExtensionsUsed().map((e) => e.extensionName).concat(JSON.parse(new TextDecoder().decode(bytes.subarray(20, 20 + new DataView(bytes.buffer).getUint32(12, true)))).extensionsUsed)).toContain(EXT);
    expect(primitive.getExtras()).toEqual({ antialiased: true });
    const position = primitive.getAttribute('POSITION')!;
    const values = position.getArray()!;
    for (let i = 0; i < 40; i++) expect([values[3 * i], values[3 * i + 1], values[3 * i + 2]]).toEqual([-s.means[3 * i], -s.means[3 * i + 1], s.means[3 * i + 2]].map(Math.fround));
    expect(position.getMin([])).toEqual([0, 1, 2].map((a) => Math.min(...Array.from({ length: 40 }, (_, i) => values[3 * i + a]))));
    const scale = primitive.getAttribute(`${EXT}:SCALE`)!.getArray()!;
    const opacity = primitive.getAttribute(`${EXT}:OPACITY`)!.getArray()!;
    for (let i = 0; i < 40; i++) {
      expect(scale[3 * i]).toBeCloseTo(Math.exp(s.logScales[3 * i]), 6);
      expect(opacity[i]).toBeCloseTo(sigmoid(s.opacityLogits[i]), 6);
    }
    expect(primitive.listSemantics().filter((n) => n.includes('SH_DEGREE')).length).toBe(shCoefficientCount(2));
    expect(primitive.getAttribute('COLOR_0')!.getNormalized()).toBe(true);
  });

  it('round-trips: positions and SH exactly, scales, opacities and rotations to float rounding, the antialiased flag', () => {
    for (const degree of [0, 1, 3]) {
      const s = randomSplats(60, degree, 11 + degree);
      const back = parseGlb(serializeGlb(s, { antialiased: degree === 3 }), 'x.glb');
      expect(back.shDegree).toBe(degree);
      expect(back.antialiased).toBe(degree === 3);
      expect(back.means).toEqual(s.means);
      expect(back.sh).toEqual(s.sh);
      for (let i = 0; i < 60; i++) {
        for (let a = 0; a < 3; a++) expect(back.logScales[3 * i + a]).toBeCloseTo(s.logScales[3 * i + a], 5);
        expect(back.opacityLogits[i]).toBeCloseTo(s.opacityLogits[i], 4);
        expect(rotationAgreement(back.quats, i, s.quats)).toBeGreaterThan(1 - 1e-6);
      }
    }
  });

  it('turns the frame by 180 degrees about z: the rotation is the turn times ours, SH odd in x or y flip sign', async () => {
    const s = emptySplats(1, 1);
    s.quats.set([Math.SQRT1_2, Math.SQRT1_2, 0, 0]); // 90 degrees about x
    s.sh.set([0, 0, 0, 0.1, 0, 0, 0.2, 0, 0, 0.3, 0, 0]); // SH1 ~ (y, z, x)
    const primitive = (await new NodeIO().readBinary(serializeGlb(s))).getRoot().listMeshes()[0].listPrimitives()[0];
    // (0, 0, 0, 1) * (w, x, y, z) = (-z, -y, x, w) as (w, x, y, z); stored x, y, z, w.
    expect([...primitive.getAttribute(`${EXT}:ROTATION`)!.getArray()!].map((v) => v + 0)).toEqual([0, Math.SQRT1_2, Math.SQRT1_2, 0].map(Math.fround)); // + 0: -0 is 0 here
    const sh1 = [0, 1, 2].map((n) => primitive.getAttribute(`${EXT}:SH_DEGREE_1_COEF_${n}`)!.getArray()![0]);
    expect(sh1).toEqual([-0.1, 0.2, -0.3].map(Math.fround)); // y and x are odd, z is not
  });

  it('refuses what it cannot read, naming the file and the problem', () => {
    const good = serializeGlb(randomSplats(3, 1));
    const jsonLength = new DataView(good.buffer).getUint32(12, true);
    /** The same GLB with its JSON edited (re-padded; the binary chunk as it was). */
    const withJson = (edit: (json: Record<string, unknown>) => void) => {
      const json = JSON.parse(new TextDecoder().decode(good.subarray(20, 20 + jsonLength)));
      edit(json);
      const text = new TextEncoder().encode(JSON.stringify(json));
      const padded = (text.length + 3) & ~3;
      const bin = good.subarray(20 + jsonLength);
      const out = new Uint8Array(20 + padded + bin.length).fill(0x20, 20, 20 + padded);
      out.set(good.subarray(0, 20));
      out.set(text, 20);
      out.set(bin, 20 + padded);
      new DataView(out.buffer).setUint32(8, out.length, true);
      new DataView(out.buffer).setUint32(12, padded, true);
      return out;
    };
    const nan = new Uint8Array(good);
    new DataView(nan.buffer).setFloat32(28 + jsonLength, Number.NaN, true); // the first POSITION value
    const cases: [Uint8Array, RegExp][] = [
      [good.subarray(0, 10), /a\.glb: 10 bytes is too short for a GLB header/],
      [new Uint8Array(40), /a\.glb: not a GLB file \(wrong magic/],
      [good.subarray(0, good.length - 8), /a\.glb: the header says \d+ bytes, the file has \d+: truncated\?/],
      [withJson((j) => { (j.accessors as { count: number }[])[0].count = 2e9; }), /a\.glb: POSITION: 2000000000 splats is not a count we read/],
      [withJson((j) => { (j.accessors as { count: number }[])[2].count = 2; }), /a\.glb: KHR_gaussian_splatting:ROTATION has 2 values, POSITION 3/],
      [withJson((j) => { j.extensionsRequired = ['KHR_gaussian_splatting_compression_spz']; }), /a\.glb: needs KHR_gaussian_splatting_compression_spz, which is not supported/],
      [withJson((j) => { j.meshes = []; }), /a\.glb: 0 primitives with KHR_gaussian_splatting; one is read/],
      [nan, /a\.glb: POSITION: value 0 is NaN/],
    ];
    for (const [bytes, message] of cases) expect(() => parseGlb(bytes, 'a.glb')).toThrow(message);
  });
});
