import { describe, expect, it } from 'vitest';
import { BLOCK_COLOURS, boxEdges, partitionBoxLines } from '../../../renderer/src/viewer/partition-boxes.js';
import type { Partition } from '../../../shared/project/partition.js';

const s = Math.SQRT1_2;
// a tilted frame: u along (1, 1, 0)/sqrt2, v along z, up = u x v = (1, -1, 0)/sqrt2
const ground = { origin: [1, 2, 3] as [number, number, number], axisU: [s, s, 0] as [number, number, number], axisV: [0, 0, 1] as [number, number, number], up: [s, -s, 0] as [number, number, number] };

describe('partition boxes', () => {
  it('draws a rectangle between two heights as 12 edges at the ground frame\'s corners', () => {
    const edges = boxEdges(ground, { min: [0, 0], max: [2, 1] }, 0, 3);
    expect(edges).toHaveLength(6); // two closed loops and four uprights: 4 + 4 + 4 edges
    expect(edges[0]).toHaveLength(5);
    const [a, b] = [edges[0]![0]!, edges[0]![1]!];
    expect(a).toEqual([1, 2, 3]);
    b.forEach((x, i) => expect(x).toBeCloseTo([1 + 2 * s, 2 + 2 * s, 3][i]!, 12));
    const top = edges[1]![0]!;
    top.forEach((x, i) => expect(x).toBeCloseTo([1 + 3 * s, 2 - 3 * s, 3][i]!, 12));
  });

  it('colours each block by its state: core solid, bounds faint', () => {
    const block = (id: string) => ({ id, core: { min: [0, 0] as [number, number], max: [1, 1] as [number, number] }, bounds: { min: [-1, -1] as [number, number], max: [2, 2] as [number, number] }, height: [0, 1] as [number, number], cameras: ['a'], points: 3 });
    const partition: Partition = { id: 'partition-001', createdAt: '2026-12-02T00:00:00.000Z', method: 'grid', target: { blocks: 2 }, overlap: 1, ground, blocks: [block('block-01'), block('block-02')] };
    const { lines, colours } = partitionBoxLines(partition, { 'block-02': 'running' });
    expect(lines).toHaveLength(24);
    expect(colours[0]).toEqual(BLOCK_COLOURS.none);
    expect(colours[12]).toEqual(BLOCK_COLOURS.running);
    expect(colours[18]![3]).toBeLessThan(1);
  });
});
