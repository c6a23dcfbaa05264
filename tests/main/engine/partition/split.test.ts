import { describe, expect, it } from 'vitest';
import { toGround } from '../../../../main/engine/partition/ground.js';
import { coreIndexOf, outerRect, splitScene } from '../../../../main/engine/partition/split.js';
import { PartitionSchema, type Partition } from '../../../../shared/project/partition.js';
import { ArgonautError } from '../../../../shared/rpc/errors.js';
import { freshSeed, rng } from '../../../helpers/random.js';
import { rotationAbout, syntheticCity, type City } from './synthetic-city.js';

/** How many cores hold a ground point, by each core's own half-open test (not coreIndexOf's first match). */
function coresHolding(partition: Partition, u: number, v: number): number {
  const outer = outerRect(partition.blocks.map((b) => b.core));
  return partition.blocks.filter(({ core: c }) => {
    const uIn = (u >= c.min[0] || c.min[0] <= outer.min[0]) && (u < c.max[0] || c.max[0] >= outer.max[0]);
    const vIn = (v >= c.min[1] || c.min[1] <= outer.min[1]) && (v < c.max[1] || c.max[1] >= outer.max[1]);
    return uIn && vIn;
  }).length;
}

function checkPartition(city: City, partition: Partition, seed: number): number[] {
  expect(PartitionSchema.safeParse(partition).success, `seed ${seed}`).toBe(true);
  const counts = new Array<number>(partition.blocks.length).fill(0);
  for (let i = 0; i < city.points.length / 3; i++) {
    const [u, v] = toGround(partition.ground, [...city.points.subarray(3 * i, 3 * i + 3)]);
    expect(coresHolding(partition, u, v), `point ${i}, seed ${seed}`).toBe(1);
    counts[coreIndexOf(partition.blocks.map((b) => b.core), outerRect(partition.blocks.map((b) => b.core)), u, v)]!++;
  }
  for (const b of partition.blocks) {
    expect(b.bounds.min[0]).toBeLessThanOrEqual(b.core.min[0]);
    expect(b.bounds.min[1]).toBeLessThanOrEqual(b.core.min[1]);
    expect(b.bounds.max[0]).toBeGreaterThanOrEqual(b.core.max[0]);
    expect(b.bounds.max[1]).toBeGreaterThanOrEqual(b.core.max[1]);
    expect(b.points).toBeGreaterThanOrEqual(counts[partition.blocks.indexOf(b)]!);
  }
  // a camera that looks at an object well inside a block's core (not straddling a border) is one of its cameras
  city.cameras.forEach((camera, c) => {
    const [u, v] = toGround(partition.ground, city.objects[city.target[c]!]!);
    const owner = partition.blocks.find(({ core }) => u > core.min[0] + 1 && u < core.max[0] - 1 && v > core.min[1] + 1 && v < core.max[1] - 1);
    if (owner) expect(owner.cameras, `${camera.name} looks at an object of ${owner.id} (${partition.method}), seed ${seed}`).toContain(camera.name);
  });
  return counts;
}

describe('splitScene', () => {
  it.each(['grid', 'kd'] as const)('splits a tilted street of objects into blocks (%s): each point in one core, bounds around cores, cameras by what they see', (method) => {
    const seed = freshSeed();
    const city = syntheticCity(rng(seed), { cols: 6, rows: 2, rotation: rotationAbout([1, -1, 0.5], 0.5) });
    const partition = splitScene({ cameras: city.cameras, points: city.points }, { blocks: 3, method, overlap: 0.2 });
    expect(partition.blocks.map((b) => b.id)).toEqual(['block-01', 'block-02', 'block-03']);
    const counts = checkPartition(city, partition, seed);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(city.points.length / 3);
    // visibility, not everything: the cameras of the first two objects do not see the last block
    const last = partition.blocks.at(-1)!;
    const farCameras = city.cameras.filter((_, c) => city.target[c] === 0).map((c) => c.name);
    expect(farCameras.some((name) => last.cameras.includes(name)), `seed ${seed}`).toBe(false);
    if (method === 'kd') for (const n of counts) expect(Math.abs(n - city.points.length / 9), `kd balance, seed ${seed}`).toBeLessThan(city.points.length / 3 / 3 / 20);
  });

  it('splits by block size (grid and k-d): no core side longer than asked', () => {
    const seed = freshSeed();
    const city = syntheticCity(rng(seed), { cols: 5, rows: 3 });
    for (const method of ['grid', 'kd'] as const) {
      const partition = splitScene({ cameras: city.cameras, points: city.points }, { blockSize: 7, method, overlap: 0.1 });
      expect(partition.blocks.length, `${method}, seed ${seed}`).toBeGreaterThan(1);
      for (const b of partition.blocks) expect(Math.max(b.core.max[0] - b.core.min[0], b.core.max[1] - b.core.min[1])).toBeLessThanOrEqual(7 + 1e-9);
      checkPartition(city, partition, seed);
    }
  });

  it('keeps one block whole (every camera that sees it, every point)', () => {
    const city = syntheticCity(rng(freshSeed()), { cols: 2, rows: 1 });
    const partition = splitScene({ cameras: city.cameras, points: city.points }, { blocks: 1, method: 'grid', overlap: 0 });
    expect(partition.blocks).toHaveLength(1);
    expect(partition.blocks[0]!.points).toBe(city.points.length / 3);
    expect(partition.blocks[0]!.cameras).toEqual(city.cameras.map((c) => c.name));
  });

  const refused = (run: () => unknown, pattern: RegExp) => {
    let error: unknown;
    try {
      run();
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ArgonautError);
    expect((error as ArgonautError).code).toBe('bad_input');
    expect((error as Error).message).toMatch(pattern);
  };

  it('refuses by name: a block with no points, a block no camera sees, more blocks than points, bad numbers', () => {
    const seed = freshSeed();
    // two objects far apart, no ground between: the middle cell of three is empty
    const apart = syntheticCity(rng(seed), { cols: 2, rows: 1, spacing: 30, groundPoints: 0 });
    refused(() => splitScene({ cameras: apart.cameras, points: apart.points, source: 'city.argo' }, { blocks: 3, method: 'grid', overlap: 0.1 }), /^city\.argo: block-02 .*holds no SfM points: ask for fewer blocks \(--blocks 2\) or --method kd/);
    // no camera looks at the second object
    const blind = syntheticCity(rng(seed), { cols: 2, rows: 1, spacing: 30, groundPoints: 0, skipCamerasOf: [1] });
    refused(() => splitScene({ cameras: blind.cameras, points: blind.points }, { blocks: 2, method: 'kd', overlap: 0.1 }), /block-02 is seen by no camera/);
    const city = syntheticCity(rng(seed), { cols: 2, rows: 1, pointsPerObject: 2, groundPoints: 0 });
    refused(() => splitScene({ cameras: city.cameras, points: city.points }, { blocks: 5, method: 'kd', overlap: 0 }), /5 blocks for 4 SfM points/);
    refused(() => splitScene({ cameras: city.cameras, points: city.points }, { blocks: 0, method: 'kd', overlap: 0 }), /block count must be a whole number >= 1 \(got 0\)/);
    refused(() => splitScene({ cameras: city.cameras, points: city.points }, { blockSize: Number.NaN, method: 'grid', overlap: 0 }), /block size must be a positive number .*NaN/);
    refused(() => splitScene({ cameras: city.cameras, points: city.points }, { blocks: 2, method: 'grid', overlap: Number.NaN }), /overlap must be a fraction/);
    const nan = Float64Array.from(city.points);
    nan[4] = Number.NaN;
    refused(() => splitScene({ cameras: city.cameras, points: nan }, { blocks: 2, method: 'grid', overlap: 0 }), /SfM point 1 has a non-finite coordinate/);
    refused(() => splitScene({ cameras: city.cameras, points: new Float64Array(0) }, { blocks: 1, method: 'grid', overlap: 0 }), /no SfM points/);
  });
});
