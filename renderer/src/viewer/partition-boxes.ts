/**
 * A partition's blocks as boxes in the viewer (docs/scale.md): each block's core (solid, in its
 * state's colour) and its bounds (the core grown by the overlap, dimmer), from its lowest to its
 * highest point along the ground frame's up. Drawn under the viewer's engine-frame node, like the
 * frustums and the SfM points.
 */
import { Color4 } from '@babylonjs/core/Maths/math.color.js';
import type { LinesMesh } from '@babylonjs/core/Meshes/linesMesh.js';
import { Vector3 } from '@babylonjs/core/Maths/math.vector.js';
import { CreateLineSystem } from '@babylonjs/core/Meshes/Builders/linesBuilder.js';
import type { GroundFrame, GroundRect, Partition } from '../../../shared/project/partition.js';
import type { SplatViewer } from './splat-viewer.js';

export type BlockState = 'none' | 'queued' | 'running' | 'finished' | 'failed';
export type Rgba = [number, number, number, number];

/** Core colours by block state; bounds are the same at a third of the opacity. */
export const BLOCK_COLOURS: Record<BlockState, Rgba> = {
  none: [0.45, 0.75, 1, 1],
  queued: [0.7, 0.7, 0.75, 1],
  running: [1, 0.78, 0.25, 1],
  finished: [0.35, 0.9, 0.45, 1],
  failed: [1, 0.35, 0.35, 1],
};

type Vec3 = [number, number, number];

function worldAt(frame: GroundFrame, u: number, v: number, h: number): Vec3 {
  return [0, 1, 2].map((a) => frame.origin[a]! + u * frame.axisU[a]! + v * frame.axisV[a]! + h * frame.up[a]!) as Vec3;
}

/** The 12 edges of a rectangle's box between two heights, as polylines (bottom loop, top loop, 4 uprights). */
export function boxEdges(frame: GroundFrame, rect: GroundRect, low: number, high: number): Vec3[][] {
  const corners = (h: number) => [[rect.min[0], rect.min[1]], [rect.max[0], rect.min[1]], [rect.max[0], rect.max[1]], [rect.min[0], rect.max[1]]].map(([u, v]) => worldAt(frame, u!, v!, h));
  const bottom = corners(low);
  const top = corners(high);
  return [[...bottom, bottom[0]!], [...top, top[0]!], ...bottom.map((b, i) => [b, top[i]!])];
}

/** Every block's core and bounds boxes as polylines with a colour per line (engine frame). */
export function partitionBoxLines(partition: Partition, states: Readonly<Record<string, BlockState>> = {}, selected?: string): { lines: Vec3[][]; colours: Rgba[] } {
  const lines: Vec3[][] = [];
  const colours: Rgba[] = [];
  for (const block of partition.blocks) {
    const [low, high] = block.height[0] < block.height[1] ? block.height : [block.height[0] - 0.01, block.height[1] + 0.01];
    const colour = BLOCK_COLOURS[states[block.id] ?? 'none'];
    const core: Rgba = block.id === selected ? [1, 1, 1, 1] : colour;
    for (const edge of boxEdges(partition.ground, block.core, low, high)) {
      lines.push(edge);
      colours.push(core);
    }
    for (const edge of boxEdges(partition.ground, block.bounds, low, high)) {
      lines.push(edge);
      colours.push([colour[0], colour[1], colour[2], 0.35]);
    }
  }
  return { lines, colours };
}

/** The boxes of one partition in a viewer; `show` replaces them, `clear` removes them. */
export class PartitionBoxes {
  private mesh: LinesMesh | undefined;

  constructor(private readonly viewer: SplatViewer) {}

  show(partition: Partition, states: Readonly<Record<string, BlockState>> = {}, selected?: string): void {
    this.clear();
    const { lines, colours } = partitionBoxLines(partition, states, selected);
    const colors: Color4[][] = lines.map((line, i) => line.map(() => new Color4(...colours[i]!)));
    this.mesh = CreateLineSystem('partitionBoxes', { lines: lines.map((line) => line.map((p) => new Vector3(...p))), colors }, this.viewer.scene);
    this.mesh.parent = this.viewer.engineWorld;
    this.mesh.isPickable = false;
  }

  clear(): void {
    this.mesh?.dispose();
    this.mesh = undefined;
  }
}
