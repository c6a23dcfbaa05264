import { describe, expect, it } from 'vitest';
import { coreSplatIndices, cropToCore, joinSplats } from '../../../../main/engine/partition/crop.js';
import { splitScene } from '../../../../main/engine/partition/split.js';
import { emptySplats } from '../../../../shared/scene/splats.js';
import { freshSeed, rng } from '../../../helpers/random.js';
import { rotationAbout, syntheticCity } from './synthetic-city.js';

describe('cropping blocks to their cores', () => {
  it.each(['grid', 'kd'] as const)('keeps every splat in exactly one core, also splats past the points and on the cut lines (%s)', (method) => {
    const seed = freshSeed();
    const random = rng(seed);
    const city = syntheticCity(random, { cols: 4, rows: 3, rotation: rotationAbout([0.2, 1, 0.1], 0.3) });
    const partition = splitScene({ cameras: city.cameras, points: city.points }, { blocks: 6, method, overlap: 0.25 });
    const splats = emptySplats(5000, 1);
    // splats over a box twice the scene's extent, some exactly on the points (the cut positions)
    for (let i = 0; i < splats.count; i++) {
      if (i % 5 === 0) splats.means.set(city.points.subarray((3 * i) % city.points.length, ((3 * i) % city.points.length) + 3), 3 * i);
      else splats.means.set([-10 + random() * 36, -10 + random() * 28, -2 + random() * 6], 3 * i);
      splats.opacityLogits[i] = i;
    }
    const owners = new Array<number>(splats.count).fill(0);
    partition.blocks.forEach((_, b) => {
      for (const i of coreSplatIndices(splats, partition, b)) owners[i]!++;
    });
    expect(owners.filter((n) => n !== 1).length, `seed ${seed}`).toBe(0);
    // each block trained all of them (as if): the crops join to every splat once
    const joined = joinSplats(partition.blocks.map((_, b) => cropToCore(splats, partition, b)));
    expect(joined.count).toBe(splats.count);
    expect([...joined.opacityLogits].sort((a, b) => a - b)).toEqual([...splats.opacityLogits].sort((a, b) => a - b));
  });

  it('joins sets of different SH degrees at the highest, keeping each splat whole', () => {
    const a = emptySplats(2, 0);
    const b = emptySplats(1, 2);
    a.sh.set([1, 2, 3, 4, 5, 6]);
    a.means.set([1, 1, 1, 2, 2, 2]);
    b.sh.set(Array.from({ length: 27 }, (_, i) => 10 + i));
    b.means.set([3, 3, 3]);
    b.quats.set([1, 0, 0, 0]);
    const joined = joinSplats([a, b]);
    expect(joined.shDegree).toBe(2);
    expect(joined.count).toBe(3);
    expect([...joined.sh.subarray(0, 6)]).toEqual([1, 2, 3, 0, 0, 0]);
    expect([...joined.sh.subarray(27, 30)]).toEqual([4, 5, 6]);
    expect([...joined.sh.subarray(54, 81)]).toEqual(Array.from({ length: 27 }, (_, i) => 10 + i));
    expect([...joined.means]).toEqual([1, 1, 1, 2, 2, 2, 3, 3, 3]);
    expect([...joined.quats.subarray(8, 12)]).toEqual([1, 0, 0, 0]);
  });
});
