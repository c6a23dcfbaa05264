import { describe, expect, it } from 'vitest';
import { applyEdits } from '../../../../main/engine/edit/apply-edits.js';
import type { EditList, EditOperation } from '../../../../shared/edits/edit-list.js';
import { shCoefficientCount } from '../../../../shared/scene/splats.js';
import { freshSeed, rng } from '../../../helpers/random.js';
import { randomSplats, rotationAgreement } from '../../../helpers/splat-sets.js';
import { shBasis } from '../../../reference/sh.js';
import { referenceEdits, rotateVector } from './edit-reference.js';

const KINDS = ['delete', 'hide', 'unhide', 'unhide-all', 'crop', 'separate', 'transform', 'clean'] as const;

function randomUnitXyzw(random: () => number): [number, number, number, number] {
  const q = [random() - 0.5, random() - 0.5, random() - 0.5, random() - 0.5];
  const n = Math.hypot(...q);
  return q.map((v) => v / n) as [number, number, number, number];
}

/** A random list over `count` base splats; selections are random base indices (deleted ones included). */
function randomList(random: () => number, count: number, length: number, only?: (typeof KINDS)[number]): { list: EditList; selections: Map<string, Uint32Array> } {
  const selections = new Map<string, Uint32Array>();
  const operations: EditOperation[] = [];
  const pick = (id: string) => {
    const fraction = 0.05 + 0.3 * random();
    const indices = Uint32Array.from(Array.from({ length: count }, (_, i) => i).filter(() => random() < fraction));
    const file = `edits/${id}.sel`;
    selections.set(file, indices);
    return { file, count: indices.length };
  };
  for (let n = 0; n < length; n++) {
    const id = `e-${n + 1}`;
    const at = new Date(0).toISOString();
    const kind = only ?? KINDS[Math.floor(random() * KINDS.length)];
    if (kind === 'delete' || kind === 'hide') operations.push({ op: kind, id, at, selection: pick(id) });
    else if (kind === 'unhide') operations.push({ op: 'unhide', id, at, selection: pick(id) });
    else if (kind === 'unhide-all') operations.push({ op: 'unhide', id, at });
    else if (kind === 'clean') operations.push({ op: 'clean', id, at, selection: pick(id), params: { 'edit.cleanStrength': 0.5 } });
    else if (kind === 'separate') operations.push({ op: 'separate', id, at, selection: pick(id), layer: random() < 0.5 ? 'props' : 'floor' });
    else if (kind === 'crop') {
      operations.push({ op: 'crop', id, at, box: { centre: [20 * random() - 10, 20 * random() - 10, 20 * random() - 10], halfSize: [25 + 40 * random(), 25 + 40 * random(), 25 + 40 * random()], rotation: randomUnitXyzw(random) } });
    } else {
      operations.push({ op: 'transform', id, at, transform: { translation: [4 * random() - 2, 4 * random() - 2, 4 * random() - 2], rotation: randomUnitXyzw(random), scale: 0.5 + random() } });
    }
  }
  return { list: { base: { run: 'run-001', step: 100, splats: count }, operations, undone: [] }, selections };
}

function colour(sh: ArrayLike<number>, offset: number, degree: number, channel: number, d: number[]): number {
  const K = shCoefficientCount(degree);
  const basis = new Float64Array(K);
  shBasis(degree, d[0], d[1], d[2], basis);
  let s = 0;
  for (let k = 0; k < K; k++) s += basis[k] * sh[offset + k * 3 + channel];
  return s;
}

async function checkAgainstReference(seed: number, count: number, degree: number, length: number, only?: (typeof KINDS)[number]) {
  const random = rng(seed);
  const splats = randomSplats(count, degree, seed);
  const { list, selections } = randomList(random, count, length, only);
  const reference = referenceEdits(splats, list, selections);
  const result = await applyEdits(splats, list, (ref) => selections.get(ref.file)!);
  const out = result.splats;
  expect(out.count).toBe(reference.length);
  expect(Array.from(result.keptToBase)).toEqual(reference.map((s) => s.base));
  expect(Array.from(result.layers, (l) => result.layerNames[l])).toEqual(reference.map((s) => s.layer));
  const K = shCoefficientCount(degree);
  let worstMean = 0;
  for (let j = 0; j < out.count; j++) {
    const r = reference[j];
    for (let a = 0; a < 3; a++) {
      worstMean = Math.max(worstMean, Math.abs(out.means[3 * j + a] - r.mean[a]) / (1 + Math.abs(r.mean[a])));
      expect(Math.abs(out.logScales[3 * j + a] - r.logScale[a])).toBeLessThan(1e-5);
    }
    expect(rotationAgreement(out.quats, j, Float32Array.from(r.quat), 0)).toBeGreaterThan(1 - 1e-6);
    expect(out.opacityLogits[j]).toBe(r.opacity);
    // the colour this splat shows along R d is the base's along d
    const d = [random() - 0.5, random() - 0.5, random() - 0.5];
    const n = Math.hypot(...d);
    const unit = d.map((v) => v / n);
    const turned = rotateVector(r.rotation, unit);
    for (let c = 0; c < 3; c++) expect(Math.abs(colour(out.sh, j * K * 3, degree, c, turned) - colour(r.sh, 0, degree, c, unit))).toBeLessThan(2e-5);
  }
  expect(worstMean).toBeLessThan(1e-6);
  return { result, reference };
}

describe('applyEdits against the float64 reference (random scenes)', () => {
  const seed = freshSeed();
  for (const kind of KINDS) {
    it(`${kind}, three in a row (seed ${seed})`, async () => {
      await checkAgainstReference(seed + KINDS.indexOf(kind), 600, 3, 3, kind);
    });
  }
  for (const degree of [0, 1, 2, 3]) {
    it(`random lists of every operation, SH degree ${degree} (seed ${seed})`, async () => {
      for (let trial = 0; trial < 4; trial++) await checkAgainstReference(seed * 31 + degree * 7 + trial, 500, degree, 8);
    });
  }

  it('counts hidden splats, keeps deleted ones deleted whatever names them later, and an empty list changes nothing', async () => {
    const splats = randomSplats(10, 1, seed);
    const at = new Date(0).toISOString();
    const sel = new Map([['edits/a.sel', Uint32Array.of(1, 2, 3)], ['edits/b.sel', Uint32Array.of(2, 4)], ['edits/c.sel', Uint32Array.of(2, 4, 5)]]);
    const list: EditList = {
      base: { run: 'run-001', step: 1, splats: 10 },
      operations: [
        { op: 'delete', id: 'a', at, selection: { file: 'edits/a.sel', count: 3 } },
        { op: 'hide', id: 'b', at, selection: { file: 'edits/b.sel', count: 2 } },
        { op: 'separate', id: 'c', at, layer: 'x', selection: { file: 'edits/c.sel', count: 3 } },
      ],
      undone: [],
    };
    const result = await applyEdits(splats, list, (ref) => sel.get(ref.file)!);
    expect(Array.from(result.keptToBase)).toEqual([0, 5, 6, 7, 8, 9]);
    expect(result.hidden).toBe(1); // 4 (2 was deleted before it was hidden)
    expect(result.layerNames).toEqual(['main', 'x']);
    expect(Array.from(result.layers)).toEqual([0, 1, 0, 0, 0, 0]);
    const none = await applyEdits(splats, { ...list, operations: [] }, () => new Uint32Array());
    expect(Array.from(none.splats.means)).toEqual(Array.from(splats.means));
    expect(Array.from(none.splats.sh)).toEqual(Array.from(splats.sh));
    await expect(applyEdits(randomSplats(9, 1, seed), list, () => new Uint32Array())).rejects.toMatchObject({ message: expect.stringContaining('the edit list applies to 10 splats (run-001 step 1) but 9 were given') });
  });
});
