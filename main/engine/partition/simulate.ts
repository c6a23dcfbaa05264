/**
 * The simulated aerial capture of docs/scale.md: a square area flown in a regular grid of images,
 * split into an n x n grid of blocks, planned with plan.ts. A block's cameras are the images whose
 * ground footprint overlaps its bounds (an upper bound of what visibility picks), its splats the
 * scene's in proportion to its bounds' area. The block grid: of those with at least as many blocks
 * as workers (up to 4 a worker) whose every block fits the GPU, the one that finishes first. tests/main/engine/partition/plan.test.ts
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

/** The plan of the block grid that finishes first among those that give every worker a block and fit every block on its GPU. */
export function simulateAerial(capture: AerialCapture, options: SimulationOptions, costs: StepCosts = H200_STEP_COSTS): { grid: number; plan: Plan } {
  let best: { grid: number; plan: Plan } | undefined;
  const smallest = Math.max(1, Math.ceil(Math.sqrt(options.workers)));
  for (let grid = smallest; grid <= Math.max(smallest, Math.ceil(Math.sqrt(4 * options.workers))); grid++) {
    const plan = planPartition(aerialBlocks(capture, grid), { ...options, mergedSplats: capture.splats, pixels: capture.width * capture.height, cameras: capture.images }, costs);
    const fits = plan.blocks.every((b) => b.fits);
    if (!best || (fits && (!best.plan.blocks.every((b) => b.fits) || plan.totalS < best.plan.totalS))) best = { grid, plan };
  }
  return best!;
}

/** The simulations docs/scale.md shows: 8 and 64 H200s, checkpoints every 1,000 and 10,000 steps, a 1,000-step fine-tune. */
export const SIMULATED_RUNS: readonly (SimulationOptions & { label: string })[] = [8, 64].flatMap((workers) =>
  [1000, 10_000].map((checkpointEvery) => ({ label: `${workers} GPUs, checkpoint every ${checkpointEvery.toLocaleString('en-US')}`, workers, checkpointEvery, gpuBytes: 139 * 2 ** 30, storageBytesPerS: 1e9, iterations: 30_000, fineTuneSteps: 1000 })),
);

/** The markdown table rows of docs/scale.md's simulation (a test checks the document has them). */
export function simulationTableRows(capture: AerialCapture = AERIAL_1KM2): string[] {
  const h = (s: number) => `${(s / 3600).toFixed(2)} h`;
  return SIMULATED_RUNS.map((run) => {
    const { grid, plan } = simulateAerial(capture, run);
    const b = plan.blocks[0]!;
    return `| ${run.label} | ${grid} x ${grid} | ${b.cameras.toLocaleString('en-US')} | ${(b.splats / 1e6).toFixed(2)}M | ${(b.memoryBytes / 2 ** 30).toFixed(1)} GiB | ${(b.stepS * 1000).toFixed(1)} ms | ${h(plan.computeS)} | ${h(plan.storageBoundS)} | ${h(plan.mergeS)} | ${h(plan.totalS)} | ${(plan.storageBytes / 1e12).toFixed(2)} TB | ${plan.bottleneck} |`;
  });
}
