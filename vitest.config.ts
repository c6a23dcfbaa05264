import { availableParallelism } from 'node:os';
import vue from '@vitejs/plugin-vue';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { defineConfig } from 'vitest/config';
// @ts-expect-error plain ESM helper without types
import { wgslVite } from './scripts/wgsl-plugin.mjs';

/**
 * The files that take longest on llvmpipe (a minute or more on the 2-core CI machine), started
 * first. vitest orders by the durations it cached from the last run, but a fresh clone (CI) has
 * none and would start them wherever they fall in the list: the run then ends one long file after
 * everything else. A prefix of the path is enough; the order here is the order they start in.
 */
const LONGEST_FIRST = [
  'tests/main/engine/capture/capture.test.ts',
  'tests/main/engine/train/train-quality.test.ts',
  'tests/main/engine/train/camera-refine-training.test.ts',
  'tests/main/engine/mesh/bunny-trained.test.ts',
  'tests/e2e/',
  'tests/main/cli/crash.test.ts',
  'tests/main/engine/partition/queue.test.ts',
  'tests/main/engine/partition/queue-psnr.test.ts',
  'tests/main/cli/bench-mesh.test.ts',
  'tests/main/engine/train/appearance-training.test.ts',
  'tests/main/engine/train/geometry.test.ts',
  'tests/main/engine/mesh/thin-parts.test.ts',
  'tests/main/engine/mesh/bunny.test.ts',
  'tests/main/engine/sfm/global/statue.test.ts',
];

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification) => {
      const relative = file.moduleId.slice(file.project.config.root.length + 1);
      const index = LONGEST_FIRST.findIndex((prefix) => relative.startsWith(prefix));
      return index < 0 ? LONGEST_FIRST.length : index;
    };
    return sorted.map((file, order) => ({ file, order, rank: rank(file) })).sort((a, b) => a.rank - b.rank || a.order - b.order).map((entry) => entry.file);
  }
}

export default defineConfig({
  plugins: [wgslVite(), vue()],
  test: {
    include: ['tests/**/*.test.ts'],
    // Dawn is a native addon: one process per test file, no worker threads.
    pool: 'forks',
    // At least two files at once. vitest's default (cores - 1) runs the suite one file at a time
    // on a 2-core CI machine, where many files mostly wait: on child processes (the CLI, the
    // engine host, COLMAP, ffmpeg, Chromium) or on one llvmpipe thread of small frames.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    sequence: { sequencer: LongestFirst },
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ['default'],
  },
});
