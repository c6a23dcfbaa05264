/**
 * The simulated aerial capture of docs/scale.md: a square area flown in a regular grid of images,
 * split into an n x n grid of blocks, planned with plan.ts. A block's cameras are the images whose
 * ground footprint overlaps its bounds (an upper bound of what visibility picks), its splats the
 * scene's in proportion to its bounds' area. The block grid is the smallest with at least as
 * many blocks as workers whose every block fits the GPU. tests/main/engine/partition/plan.test.ts
 * checks the table in docs/scale.md against these numbers.
 */
import { planPartition, type Plan, type PlanBlock, type StepCosts, H200_STEP_COSTS } from './plan.js';

export interface AerialCapture {
  /** Side of the square area, metres. */
  sideM: number;
  images: number;
  /** Splats of the trained scene. */
  splats: number;
  /** Training image size (after downscale). */
  width: number;
  height: number;
  /** Ground footprint of one image (its longer side), metres. */
  footprintM: number;
  overlap: number;
}

export const AERIAL_1KM2: AerialCapture = { sideM: 1000, images: 5000, splats: 50_000_000, width: 1600, height: 1200, footprintM: 120, overlap: 0.15 };

export interface SimulationOptions {
  workers: number;
  gpuBytes: number;
  storageBytesPerS: number;
  iterations: number;
  checkpointEvery: number;
  fineTuneSteps: number;
}

export function aerialBlocks(capture: AerialCapture, grid: number): PlanBlock[] {
  const core = capture.sideM / grid;
  const bounds = core * (1 + 2 * capture.overlap);
  const seenSide = bounds + capture.footprintM;
  const cameras = Math.min(capture.images, Math.ceil((capture.images * seenSide * seenSide) / (capture.sideM * capture.sideM)));
  const splats = Math.ceil((capture.splats * bounds * bounds) / (capture.sideM * capture.sideM));
  return Array.from({ length: grid * grid }, (_, i) => ({ id: `block-${String(i + 1).padStart(2, '0')}`, cameras, splats, pixels: capture.width * capture.height }));
}

/** The plan for the smallest block grid that gives every worker a block and fits every block on its GPU. */
export function simulateAerial(capture: AerialCapture, options: SimulationOptions, costs: StepCosts = H200_STEP_COSTS): { grid: number; plan: Plan } {
  for (let grid = Math.max(1, Math.ceil(Math.sqrt(options.workers))); ; grid++) {
    const blocks = aerialBlocks(capture, grid);
    const plan = planPartition(blocks, { ...options, mergedSplats: capture.splats, pixels: capture.width * capture.height, cameras: capture.images }, costs);
    if (plan.blocks.every((b) => b.fits) || grid >= 64) return { grid, plan };
  }
}
