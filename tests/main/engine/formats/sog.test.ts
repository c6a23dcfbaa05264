/**
 * SOG bundles: the textures hold what the format says (decoded here with sharp, checked against
 * the spec's formulas written out in the test), codebooks hold at most 256 values, and our reader
 * gives back the splats within what the format keeps.
 */
import { unzipSync } from 'fflate';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { parseSog, serializeSog, textureSize } from '../../../../main/engine/formats/sog.js';
import { mortonOrder, scalarCodebook, shPalette } from '../../../../main/engine/formats/sog-quantize.js';
import { shCoefficientCount } from '../../../../shared/scene/splats.js';
import { randomSplats, rotationAgreement, sigmoid } from '../../../helpers/splat-sets.js';

async function rgba(webp: Uint8Array) {
  const { data, info } = await sharp(webp).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data), width: info.width, height: info.height };
}

describe('SOG (PlayCanvas, version 2)', () => {
  it('bundles meta.json and lossless WebP textures of W x H texels that hold 16-bit log positions, smallest-three rotations, codebook indices and opacity', async () => {
    const s = randomSplats(50, 1, 4);
    const files = unzipSync(await serializeSog(s, { antialiased: true }));
    const meta = JSON.parse(new TextDecoder().decode(files['meta.json']));
    expect(meta).toMatchObject({ version: 2, count: 50, model: 'antialiased', shN: { count: 50, bands: 1 } });
    expect(Object.keys(files).sort()).toEqual(['means_l.webp', 'means_u.webp', 'meta.json', 'quats.webp', 'scales.webp', 'sh0.webp', 'shN_centroids.webp', 'shN_labels.webp']);
    const { width, height } = textureSize(50);
    expect([width, height]).toEqual([8, 8]);
    const [low, high, quats, sh0] = await Promise.all(['means_l.webp', 'means_u.webp', 'quats.webp', 'sh0.webp'].map((f) => rgba(files[f])));
    expect([low.width, low.height]).toEqual([8, 8]);
    const order = mortonOrder(s.means, 50);
    const lt = (x: number) => Math.sign(x) * Math.log(Math.abs(x) + 1);
    for (let t = 0; t < 50; t++) {
      const i = order[t];
      for (let a = 0; a < 3; a++) {
        const v = low.data[4 * t + a] | (high.data[4 * t + a] << 8);
        expect(Math.abs(v - (65535 * (lt(s.means[3 * i + a]) - meta.means.mins[a])) / (meta.means.maxs[a] - meta.means.mins[a]))).toBeLessThanOrEqual(0.5 + 1e-6);
      }
      expect(quats.data[4 * t + 3]).toBeGreaterThanOrEqual(252);
      expect(Math.abs(sh0.data[4 * t + 3] - sigmoid(s.opacityLogits[i]) * 255)).toBeLessThanOrEqual(0.5 + 1e-6);
    }
    expect(meta.scales.codebook).toHaveLength(256);
  });

  it('round-trips within what the format keeps: positions to 1/65535 of the log range, codebook-rounded scales and colours, opacity and rotation to a byte, the flag', async () => {
    for (const degree of [0, 2]) {
      const s = randomSplats(300, degree, 20 + degree);
      const back = await parseSog(await serializeSog(s, { antialiased: degree === 0 }), 'x.sog');
      expect(back.count).toBe(300);
      expect(back.shDegree).toBe(degree);
      expect(back.antialiased).toBe(degree === 0);
      // Splats come back in Morton order.
      const order = mortonOrder(s.means, 300);
      const K = shCoefficientCount(degree);
      for (let t = 0; t < 300; t++) {
        const i = order[t];
        for (let a = 0; a < 3; a++) {
          const x = s.means[3 * i + a];
          // One 16-bit step of ln(|x| + 1) over a range of about 2 ln 51: |dx| <= (|x| + 1) * step.
          expect(Math.abs(back.means[3 * t + a] - x)).toBeLessThanOrEqual((Math.abs(x) + 1) * (8 / 65535) * 0.5 + 1e-5);
          expect(Math.abs(back.logScales[3 * t + a] - s.logScales[3 * i + a])).toBeLessThanOrEqual(0.05); // 256 entries over a range of 8
        }
        for (let c = 0; c < 3; c++) expect(Math.abs(back.sh[t * K * 3 + c] - s.sh[i * K * 3 + c])).toBeLessThanOrEqual(0.02);
        expect(Math.abs(sigmoid(back.opacityLogits[t]) - sigmoid(s.opacityLogits[i]))).toBeLessThanOrEqual(0.5 / 255 + 1e-6);
        expect(rotationAgreement(back.quats, t, s.quats, i)).toBeGreaterThan(0.995);
        for (let k = 1; k < K; k++) for (let c = 0; c < 3; c++) expect(Math.abs(back.sh[(t * K + k) * 3 + c] - s.sh[(i * K + k) * 3 + c])).toBeLessThanOrEqual(0.01); // one entry per splat: only the codebook rounds
      }
    }
  });

  it('codebooks: at most 256 ascending values, each value labelled with its nearest; palettes over 65,536 splats stay at 65,536 entries', () => {
    const values = Float32Array.from({ length: 5000 }, (_, i) => Math.sin(i) * 3);
    const { codebook, labels } = scalarCodebook([values]);
    expect(codebook).toHaveLength(256);
    for (let k = 1; k < 256; k++) expect(codebook[k]).toBeGreaterThanOrEqual(codebook[k - 1]);
    for (let i = 0; i < 5000; i += 37) {
      const chosen = Math.abs(values[i] - codebook[labels[0][i]]);
      for (const other of codebook) expect(chosen).toBeLessThanOrEqual(Math.abs(values[i] - other) + 1e-7);
    }
    const n = 70_000;
    const rest = Float32Array.from({ length: n * 3 }, (_, i) => Math.cos(i));
    const palette = shPalette(rest, n, 3, Uint32Array.from({ length: n }, (_, i) => i));
    expect(palette.entries).toBe(65_536);
    expect(Math.max(...palette.labels)).toBeLessThan(65_536);
  });

  it('refuses bundles it cannot read, naming the file and the problem', async () => {
    const good = await serializeSog(randomSplats(5, 1, 2));
    const files = unzipSync(good);
    const { zipSync } = await import('fflate');
    const withMeta = (edit: (m: Record<string, unknown>) => void) => {
      const meta = JSON.parse(new TextDecoder().decode(files['meta.json']));
      edit(meta);
      return zipSync({ ...files, 'meta.json': new TextEncoder().encode(JSON.stringify(meta)) });
    };
    const without = (name: string) => zipSync(Object.fromEntries(Object.entries(files).filter(([k]) => k !== name)));
    const cases: [Uint8Array, RegExp][] = [
      [new Uint8Array([1, 2, 3, 4]), /a\.sog: not a SOG bundle: not a zip \(wrong magic\)/],
      [good.subarray(0, good.length - 30), /a\.sog: not a SOG bundle: not a zip, or a damaged one/],
      [without('meta.json'), /a\.sog: not a SOG bundle: no meta\.json inside/],
      [withMeta((m) => { m.version = 7; }), /a\.sog: SOG version 7 is not supported/],
      [withMeta((m) => { m.count = 1e12; }), /a\.sog: meta\.json: count 1000000000000 is not a splat count we read/],
      [withMeta((m) => { m.count = 100; }), /a\.sog: means_l\.webp has 16 texels, 100 needed/],
      [withMeta((m) => { (m.means as { mins: unknown[] }).mins = [0, null, 0]; }), /a\.sog: meta\.json: means needs mins and maxs/],
      [without('quats.webp'), /a\.sog: quats\.webp, named by meta\.json, is not in the bundle/],
      [zipSync({ ...files, 'sh0.webp': new Uint8Array([1, 2, 3]) }), /a\.sog: sh0\.webp is not an image sharp decodes/],
      [withMeta((m) => { (m.shN as { count: number }).count = 2; }), /a\.sog: splat \d: SH palette entry \d is not below the palette's 2/],
    ];
    for (const [bytes, message] of cases) await expect(parseSog(bytes, 'a.sog')).rejects.toThrow(message);
  });
});
