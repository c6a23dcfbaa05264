/**
 * SPZ: we write version 4 through the reference library (@adobe/spz) and read versions 2 to 4
 * ourselves; each side is checked against the other (the library reading what it wrote must
 * agree with our reader, and our reader must get back what we gave the library, within the
 * format's quantization), and the legacy versions are the library's own output.
 */
import createSpzModule from '@adobe/spz';
import { gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseSpz, serializeSpz } from '../../../../main/engine/formats/spz.js';
import { shCoefficientCount, type SplatSet } from '../../../../shared/scene/splats.js';
import { randomSplats, rotationAgreement, sigmoid } from '../../../helpers/splat-sets.js';

type Library = Awaited<ReturnType<typeof createSpzModule>>;
let library: Library;
beforeAll(async () => {
  library = await createSpzModule();
});


/** The library's own decode of SPZ bytes, in our layout (RDF, w x y z quaternions, SH with DC). */
function libraryRead(bytes: Uint8Array): SplatSet & { antialiased: boolean } {
  const cloud = library.loadSpzFromBuffer(bytes, { to: library.CoordinateSystem.RDF });
  const n = cloud.numPoints;
  const K = shCoefficientCount(cloud.shDegree);
  const quats = new Float32Array(n * 4);
  const sh = new Float32Array(n * K * 3);
  for (let i = 0; i < n; i++) {
    quats.set([cloud.rotations[4 * i + 3], cloud.rotations[4 * i], cloud.rotations[4 * i + 1], cloud.rotations[4 * i + 2]], 4 * i);
    sh.set(cloud.colors.subarray(3 * i, 3 * i + 3), i * K * 3);
    sh.set(cloud.sh.subarray(i * (K - 1) * 3, (i + 1) * (K - 1) * 3), (i * K + 1) * 3);
  }
  return { count: n, shDegree: cloud.shDegree, antialiased: cloud.antialiased, means: cloud.positions, logScales: cloud.scales, quats, opacityLogits: cloud.alphas, sh };
}

/** Legacy versions as the library writes them (gzip). */
function libraryWrite(s: SplatSet, version: number): Uint8Array {
  const K = shCoefficientCount(s.shDegree);
  const rotations = new Float32Array(s.count * 4);
  const colors = new Float32Array(s.count * 3);
  const sh = new Float32Array(s.count * (K - 1) * 3);
  for (let i = 0; i < s.count; i++) {
    const norm = Math.hypot(...s.quats.subarray(4 * i, 4 * i + 4));
    rotations.set([s.quats[4 * i + 1] / norm, s.quats[4 * i + 2] / norm, s.quats[4 * i + 3] / norm, s.quats[4 * i] / norm], 4 * i);
    colors.set(s.sh.subarray(i * K * 3, i * K * 3 + 3), 3 * i);
    sh.set(s.sh.subarray((i * K + 1) * 3, (i + 1) * K * 3), i * (K - 1) * 3);
  }
  return library.saveSpzToBuffer({ numPoints: s.count, shDegree: s.shDegree, antialiased: false, extensions: [], positions: s.means, scales: s.logScales, rotations, alphas: s.opacityLogits, colors, sh }, { version, from: library.CoordinateSystem.RDF, sh1Bits: 8, shRestBits: 8 });
}

/** Our reading of `back` is `s` within SPZ's quantization. */
function expectWithinQuantization(back: SplatSet, s: SplatSet, shTolerance: (k: number) => number): void {
  expect(back.count).toBe(s.count);
  expect(back.shDegree).toBe(s.shDegree);
  const K = shCoefficientCount(s.shDegree);
  for (let i = 0; i < s.count; i++) {
    for (let a = 0; a < 3; a++) {
      expect(Math.abs(back.means[3 * i + a] - s.means[3 * i + a])).toBeLessThanOrEqual(0.5 / 4096 + 1e-5);
      expect(Math.abs(back.logScales[3 * i + a] - s.logScales[3 * i + a])).toBeLessThanOrEqual(0.5 / 16 + 1e-6);
    }
    expect(Math.abs(sigmoid(back.opacityLogits[i]) - sigmoid(s.opacityLogits[i]))).toBeLessThanOrEqual(0.5 / 255 + 1e-6);
    for (let c = 0; c < 3; c++) expect(Math.abs(back.sh[i * K * 3 + c] - s.sh[i * K * 3 + c])).toBeLessThanOrEqual(0.5 / (0.15 * 255) + 1e-6);
    expect(rotationAgreement(back.quats, i, s.quats)).toBeGreaterThan(0.995);
    for (let k = 1; k < K; k++) for (let c = 0; c < 3; c++) expect(Math.abs(back.sh[(i * K + k) * 3 + c] - s.sh[(i * K + k) * 3 + c])).toBeLessThanOrEqual(shTolerance(k));
  }
}

describe('SPZ v4 (written by @adobe/spz, read here)', () => {
  it('writes the plain 32-byte version 4 header: magic, version, points, degree, 12 fractional bits, the antialiased flag, 6 streams, the TOC at 32', async () => {
    const { bytes } = await serializeSpz(randomSplats(5, 2), { antialiased: true });
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    expect([view.getUint32(0, true), view.getUint32(4, true), view.getUint32(8, true)]).toEqual([0x5053474e, 4, 5]);
    expect([bytes[12], bytes[13], bytes[14], bytes[15], view.getUint32(16, true)]).toEqual([2, 12, 1, 6, 32]);
    expect((await serializeSpz(randomSplats(5, 0))).bytes[14]).toBe(0);
  });

  it('our reader and the library agree on every value of the same file, and both give back the splats within quantization (SH: 5 bits for degree 1, 4 above)', async () => {
    for (const degree of [0, 1, 3]) {
      const s = randomSplats(100, degree, 7 + degree);
      const { bytes } = await serializeSpz(s, { antialiased: degree === 1 });
      const ours = parseSpz(bytes, 'x.spz');
      const theirs = libraryRead(bytes);
      expect(ours.antialiased).toBe(degree === 1);
      expect(theirs.antialiased).toBe(degree === 1);
      for (const key of ['means', 'logScales', 'sh'] as const) for (let i = 0; i < s[key].length; i++) expect(Math.abs(ours[key][i] - theirs[key][i]), `${key}[${i}], degree ${degree}`).toBeLessThanOrEqual(1e-5);
      for (let i = 0; i < s.count; i++) {
        expect(Math.abs(sigmoid(ours.opacityLogits[i]) - sigmoid(theirs.opacityLogits[i]))).toBeLessThanOrEqual(1e-3); // we keep alpha 0 and 255 finite
        expect(rotationAgreement(ours.quats, i, theirs.quats)).toBeGreaterThan(1 - 1e-5);
      }
      // 5 bits keep steps of 8/128 (half: 4/128); 4 bits steps of 16/128; plus the byte's own rounding.
      expectWithinQuantization(ours, s, (k) => ((k <= 3 ? 4 : 8) + 0.5) / 128 + 1e-6);
    }
  });

  it('clamps positions outside the 24-bit range (and NaN to 0) and says how many', async () => {
    const s = randomSplats(3, 0);
    s.means.set([5000, 0, 0, 0, -3000, Number.NaN], 0);
    const { bytes, clamped } = await serializeSpz(s);
    expect(clamped).toBe(3);
    const back = parseSpz(bytes, 'x.spz');
    expect(back.means[0]).toBeCloseTo(2048, 2);
    expect(back.means[4]).toBeCloseTo(-2048, 2);
    expect(Math.abs(back.means[5])).toBe(0); // NaN -> 0 (z flips: -0)
  });

  it('reads versions 2 and 3 as the library writes them (gzip; byte and smallest-three rotations)', () => {
    for (const version of [2, 3]) {
      const s = randomSplats(100, 2, version);
      const bytes = libraryWrite(s, version);
      expect([bytes[0], bytes[1]]).toEqual([0x1f, 0x8b]);
      expectWithinQuantization(parseSpz(bytes, `v${version}.spz`), s, () => 1 / 128 + 1e-6);
    }
  });

  it('refuses files that are not SPZ, naming the file and the problem', async () => {
    const good = (await serializeSpz(randomSplats(2, 1))).bytes;
    const edit = (at: number, value: number, bytes = good) => {
      const copy = new Uint8Array(bytes);
      new DataView(copy.buffer).setUint32(at, value, true);
      return copy;
    };
    const legacy = libraryWrite(randomSplats(2, 1), 2);
    const withCoordinates = new Uint8Array(good.length + 12);
    withCoordinates.set(good.subarray(0, 32));
    new DataView(withCoordinates.buffer).setUint32(16, 44, true);
    new DataView(withCoordinates.buffer).setUint32(32, 0xadbe0003, true);
    new DataView(withCoordinates.buffer).setUint32(36, 4, true);
    withCoordinates.set(good.subarray(32), 44);
    const cases: [Uint8Array, RegExp][] = [
      [new Uint8Array([1, 2, 3]), /a\.spz: header truncated: 3 bytes/],
      [edit(0, 0), /a\.spz: not an SPZ file \(wrong magic\)/],
      [edit(4, 9), /a\.spz: SPZ version 9 is not supported/],
      [edit(8, 4_000_000_000), /a\.spz: 4000000000 points is more than 10000000/],
      [edit(8, 3), /a\.spz: attribute stream 0 holds 18 bytes, 3 points need 27/],
      [edit(16, 1 << 30), /a\.spz: table of contents at byte \d+ lies outside the file/],
      [good.subarray(0, good.length - 5), /a\.spz: attribute stream \d runs past the end of the file: truncated\?/],
      [withCoordinates, /a\.spz: stores its splats in another coordinate system/],
      [legacy.subarray(0, 12), /a\.spz: not a gzip stream, or a damaged one/],
      [gzipSync(new Uint8Array(8)), /a\.spz: header truncated: 8 bytes/],
    ];
    for (const [bytes, message] of cases) expect(() => parseSpz(bytes, 'a.spz')).toThrow(message);
    const garbled = new Uint8Array(good);
    for (let i = 32 + 6 * 16; i < garbled.length; i++) garbled[i] ^= 0x5a;
    expect(() => parseSpz(garbled, 'a.spz')).toThrow(/a\.spz: attribute stream 0 (is not a valid zstd stream|inflates to)/);
  });
});
