import { availableParallelism } from 'node:os';
import vue from '@vitejs/plugin-vue';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { defineConfig } from 'vitest/config';
// @ts-expect-error plain ESM helper without types
import { SECOND_ADAPTER_PASSES, THIS_ADAPTER } from './scripts/test-passes.mjs';
// @ts-expect-error plain ESM helper without types
import { wgslVite } from './scripts/wgsl-plugin.mjs';

/**
 * The files that take longest on llvmpipe (a minute or more on the 2-core CI machine), started
 * first. vitest orders by the durations it cached from the last run, but a fresh clone (CI) has
 * none and would start them wherever they fall in the list: the run then ends one long file after
 * everything else. A prefix of the path is enough; the order here is the order they start in.
 * A file of npm test's passes on other adapters (scripts/test-passes.mjs) is named
 * `<project>:<path>`: SwiftShader compiles each pipeline for many seconds, so its rasterizer and
 * radix sort are among the long ones.
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
  'swiftshader:tests/main/engine/render/rasterizer.test.ts',
  'tests/main/engine/train/appearance-training.test.ts',
  'tests/main/engine/train/geometry.test.ts',
  'tests/main/engine/mesh/thin-parts.test.ts',
  'tests/main/engine/mesh/bunny.test.ts',
  'tests/main/engine/sfm/global/statue.test.ts',
  'swiftshader:tests/main/engine/gpu/radix-sort.test.ts',
  'swiftshader:tests/main/engine/gpu/scan.test.ts',
];

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification) => {
      const relative = file.moduleId.slice(file.project.config.root.length + 1);
      const name = file.project.name && file.project.name !== THIS_ADAPTER ? `${file.project.name}:${relative}` : relative;
      const index = LONGEST_FIRST.findIndex((prefix) => name.startsWith(prefix));
      return index < 0 ? LONGEST_FIRST.length : index;
    };
    return sorted.map((file, order) => ({ file, order, rank: rank(file) })).sort((a, b) => a.rank - b.rank || a.order - b.order).map((entry) => entry.file);
  }
}

/** What every project of the run shares (the root and, when npm test runs them, the passes on other adapters). */
const projectTest = {
  // Dawn is a native addon: one process per test file, no worker threads.
  pool: 'forks',
  testTimeout: 60_000,
  hookTimeout: 60_000,
} as const;

export default defineConfig({
  plugins: [wgslVite(), vue()],
  test: {
    include: ['tests/**/*.test.ts'],
    ...projectTest,
    // At least two files at once. vitest's default (cores - 1) runs the suite one file at a time
    // on a 2-core CI machine, where many files mostly wait: on child processes (the CLI, the
    // engine host, COLMAP, ffmpeg, Chromium) or on one llvmpipe thread of small frames.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    sequence: { sequencer: LongestFirst },
    reporters: ['default'],
    // npm test (scripts/test.mjs) runs the passes on the other adapters in the same pool of
    // workers: one project each, with its own environment in its forks (not `extends`: its
    // include would be added to the root's, not replace it). Without ARGONAUT_TEST_PASSES=all
    // there are no projects and a file runs once.
    projects:
      process.env.ARGONAUT_TEST_PASSES === 'all'
        ? [
            { extends: true, test: { name: THIS_ADAPTER } },
            ...(SECOND_ADAPTER_PASSES as { name: string; env: Record<string, string>; files: string[] }[]).map((pass) => ({
              plugins: [wgslVite(), vue()],
              test: { ...projectTest, name: pass.name, include: pass.files, env: pass.env },
            })),
          ]
        : undefined,
  },
});
