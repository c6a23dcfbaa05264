import { describe, expect, it } from 'vitest';
import { lookAt, type PinholeCamera } from '../../../../shared/scene/camera.js';
import { emptySplats, type SplatSet } from '../../../../shared/scene/splats.js';
import { cleanSelectionAt, computeCleanScores, computeCleanSelection, neighbourCounts, resolveCleanParams, robustSceneScale } from '../../../../main/engine/edit/clean.js';
import { maskFromIndices } from '../../../../shared/edits/selection-mask.js';
import { freshSeed, rng } from '../../../helpers/random.js';

const logit = (p: number) => Math.log(p / (1 - p));

/** 12 cameras on a ring of radius 4 around the origin, 60 degrees vertical field of view. */
function ringCameras(): PinholeCamera[] {
  return Array.from({ length: 12 }, (_, k) => {
    const a = (2 * Math.PI * k) / 12;
    const f = 100 / Math.tan(Math.PI / 6);
    return { width: 200, height: 200, fx: f, fy: f, cx: 100, cy: 100, worldToCamera: lookAt([4 * Math.cos(a), 0, 4 * Math.sin(a)], [0, 0, 0]) };
  });
}

interface PlantedScene {
  splats: SplatSet;
  object: number[];
  specks: number[];
  huge: number[];
  unseen: number[];
}

/**
 * A dense object (splats on the unit sphere, opaque, small) and three kinds of floater: isolated
 * specks in a shell at 2..3, huge faint splats inside the sphere, and a tight cluster above every
 * camera's view (not isolated: only the view test can find it).
 *
 * The object's splats are a jittered Fibonacci lattice (random phase, each point moved by up to a
 * quarter of the spacing along each axis), not independent uniform draws: dense everywhere by
 * construction. 30,000 uniform draws average 19 neighbours within the cleanup radius, but one in
 * about 150 scenes left some splat with fewer than 2, which strength 0.5 rightly calls isolated
 * (seed 1175). The lattice spacing is 0.02, so every splat has a dozen or more within 0.05 (13 at
 * least over 20 scenes).
 */
function plantedScene(seed: number): PlantedScene {
  const random = rng(seed);
  const [objectCount, speckCount, hugeCount, unseenCount] = [30_000, 30, 20, 10];
  const splats = emptySplats(objectCount + speckCount + hugeCount + unseenCount, 0);
  const groups: PlantedScene = { splats, object: [], specks: [], huge: [], unseen: [] };
  const direction = () => {
    const z = random() * 2 - 1;
    const phi = random() * 2 * Math.PI;
    const s = Math.sqrt(1 - z * z);
    return [s * Math.cos(phi), z, s * Math.sin(phi)];
  };
  const put = (i: number, p: number[], logScale: number, opacity: number) => {
    splats.means.set(p, 3 * i);
    splats.logScales.set([logScale, logScale - 0.3 * random(), logScale - 0.3 * random()], 3 * i);
    splats.quats.set([1, 0, 0, 0], 4 * i);
    splats.opacityLogits[i] = logit(opacity);
  };
  const spacing = Math.sqrt((4 * Math.PI) / objectCount);
  const phase = 2 * Math.PI * random();
  const latticePoint = (k: number) => {
    const y = 1 - (2 * k + 1) / objectCount;
    const phi = phase + k * Math.PI * (3 - Math.sqrt(5));
    const s = Math.sqrt(1 - y * y);
    const p = [s * Math.cos(phi), y, s * Math.sin(phi)].map((x) => x + (random() - 0.5) * 0.5 * spacing);
    const length = Math.hypot(p[0], p[1], p[2]);
    return p.map((x) => x / length);
  };
  let i = 0;
  for (let k = 0; k < objectCount; k++, i++) {
    put(i, latticePoint(k), Math.log(0.01), 0.6 + 0.39 * random());
    groups.object.push(i);
  }
  for (let k = 0; k < speckCount; k++, i++) {
    const r = 2 + random();
    put(i, direction().map((x) => x * r), Math.log(0.01), 0.9);
    groups.specks.push(i);
  }
  for (let k = 0; k < hugeCount; k++, i++) {
    put(i, direction().map((x) => x * 0.5 * random()), Math.log(0.5), 0.03);
    groups.huge.push(i);
  }
  for (let k = 0; k < unseenCount; k++, i++) {
    put(i, [0.01 * random(), 6 + 0.01 * random(), 0.01 * random()], Math.log(0.005), 0.9);
    groups.unseen.push(i);
  }
  return groups;
}

describe('floater cleanup', () => {
  const cameras = ringCameras();

  it('finds every planted floater at a moderate strength and keeps the dense object', () => {
    const seed = freshSeed();
    const scene = plantedScene(seed);
    const { selection, reasons } = computeCleanSelection(scene.splats, { cameras, params: resolveCleanParams({ 'edit.cleanStrength': 0.5 }) });
    const chosen = new Set(selection);
    const missed = (ids: number[]) => ids.filter((i) => !chosen.has(i)).length;
    expect({ specks: missed(scene.specks), huge: missed(scene.huge), unseen: missed(scene.unseen) }, `seed ${seed}`).toEqual({ specks: 0, huge: 0, unseen: 0 });
    expect(scene.object.filter((i) => chosen.has(i)).length, `seed ${seed}: object splats removed`).toBe(0);
    expect(selection.length).toBe(scene.specks.length + scene.huge.length + scene.unseen.length);
    expect(reasons.opacity).toBe(scene.huge.length);
    expect(reasons.size).toBe(scene.huge.length);
    // specks high in the shell lie above every camera's view too
    expect(reasons.unseen).toBeGreaterThanOrEqual(scene.unseen.length);
    expect(reasons.unseen).toBeLessThanOrEqual(scene.unseen.length + scene.specks.length);
    expect(reasons.isolated).toBeGreaterThanOrEqual(scene.specks.length); // the huge ones sit alone inside the sphere too
    expect(Array.from(selection)).toEqual([...selection].sort((a, b) => a - b));
  });

  it('finds the unseen cluster only through the views, and nothing of it without cameras', () => {
    const scene = plantedScene(freshSeed());
    const params = resolveCleanParams({ 'edit.cleanStrength': 0.5 });
    const without = new Set(computeCleanSelection(scene.splats, { params }).selection);
    expect(scene.unseen.filter((i) => without.has(i))).toEqual([]);
    const viewsOff = new Set(computeCleanSelection(scene.splats, { cameras, params: { ...params, 'edit.cleanByViews': false } }).selection);
    expect(scene.unseen.filter((i) => viewsOff.has(i))).toEqual([]);
  });

  it('removes nothing at strength 0 and more (a superset) as the strength grows', () => {
    const seed = freshSeed();
    const scene = plantedScene(seed);
    expect(computeCleanSelection(scene.splats, { cameras, params: resolveCleanParams({ 'edit.cleanStrength': 0 }) }).selection.length).toBe(0);
    let previous = new Set<number>();
    // scores once, a selection per strength (the preview slider's path), each equal to the whole computation
    const scores = computeCleanScores(scene.splats, { cameras, params: resolveCleanParams() });
    for (const strength of [0.05, 0.2, 0.4, 0.6, 0.8, 1]) {
      const params = resolveCleanParams({ 'edit.cleanStrength': strength });
      const at = cleanSelectionAt(scores, params);
      const whole = computeCleanSelection(scene.splats, { cameras, params });
      expect(Array.from(at.selection)).toEqual(Array.from(whole.selection));
      expect(at.reasons).toEqual(whole.reasons);
      const now = new Set(at.selection);
      expect([...previous].filter((i) => !now.has(i)), `seed ${seed}: strength ${strength} kept what a lower one removed`).toEqual([]);
      expect(now.size).toBeGreaterThanOrEqual(previous.size);
      previous = now;
    }
    expect(previous.size).toBeGreaterThan(scene.specks.length);
  });

  it('leaves excluded splats alone and does not count them as neighbours', () => {
    const scene = plantedScene(freshSeed());
    const params = resolveCleanParams({ 'edit.cleanStrength': 0.5 });
    const exclude = maskFromIndices(scene.specks, scene.splats.count);
    const got = new Set(computeCleanSelection(scene.splats, { cameras, params, exclude }).selection);
    expect(scene.specks.filter((i) => got.has(i))).toEqual([]);
    // the unseen cluster with all but one excluded: the one left is isolated
    const lonely = maskFromIndices(scene.unseen.slice(1), scene.splats.count);
    const alone = new Set(computeCleanSelection(scene.splats, { params, exclude: lonely }).selection);
    expect(alone.has(scene.unseen[0])).toBe(true);
  });

  it('counts neighbours exactly (capped) against brute force', () => {
    const seed = freshSeed();
    const random = rng(seed);
    const splats = emptySplats(1500, 0);
    for (let i = 0; i < splats.means.length; i++) splats.means[i] = (random() * 2 - 1) * (random() < 0.1 ? 5 : 1);
    const radius = 0.15;
    const cap = 7;
    const got = neighbourCounts(splats, radius, cap);
    for (let i = 0; i < splats.count; i++) {
      let want = 0;
      for (let j = 0; j < splats.count; j++) {
        if (j === i) continue;
        const d = Math.hypot(splats.means[3 * i] - splats.means[3 * j], splats.means[3 * i + 1] - splats.means[3 * j + 1], splats.means[3 * i + 2] - splats.means[3 * j + 2]);
        if (d <= radius) want++;
      }
      if (got[i] !== Math.min(cap, want)) expect({ seed, i, got: got[i] }).toEqual({ seed, i, got: Math.min(cap, want) });
    }
  });

  it('takes the scene scale from the object, not from far floaters', () => {
    const scene = plantedScene(freshSeed());
    const scale = robustSceneScale(scene.splats);
    expect(scale).toBeGreaterThan(0.95);
    expect(scale).toBeLessThan(1.05); // the specks at 2..3 and the cluster at 6 do not stretch it
  });

  it('refuses bad parameters and cameras by name', () => {
    const scene = plantedScene(1);
    expect(() => resolveCleanParams({ 'edit.cleanStrength': 1.5 })).toThrow(/clean: edit.cleanStrength: .*1/);
    expect(() => resolveCleanParams({ 'edit.cleanStrenght': 0.5 })).toThrow(/unknown parameter edit.cleanStrenght/);
    const bad = { ...cameras[0], fx: NaN };
    expect(() => computeCleanSelection(scene.splats, { cameras: [cameras[1], bad], params: resolveCleanParams() })).toThrow(/camera 1 has a NaN/);
    expect(() => computeCleanSelection(scene.splats, { sceneScale: -1, params: resolveCleanParams() })).toThrow(/sceneScale must be a positive number/);
  });
});
