/**
 * The bad-input suite: every malformed input the product reads so far, each through the CLI.
 * Each must exit 3 with a message naming the file and the problem, create nothing it should not,
 * and leave every existing project, checkpoint and input byte-for-byte as it was.
 */
import { mkdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../main/cli/index.js';
import { tempDir } from '../helpers/datasets.js';
import { hashTree } from '../helpers/projects.js';
import { captureStreams } from '../helpers/streams.js';
import { CASES as BASE_CASES, trainedProject, type TrainedProject } from './cases.js';
import { SPLAT_FILE_CASES } from './splat-file-cases.js';

const CASES = [...BASE_CASES, ...SPLAT_FILE_CASES];

let root: string;
let trained: TrainedProject;

beforeAll(async () => {
  root = await tempDir('bad-inputs');
  trained = await trainedProject(root);
}, 120_000);

describe('bad inputs through the CLI: exit 3, the file and the problem named, nothing else touched', () => {
  it('has at least 30 cases', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(30);
  });

  for (const [index, testCase] of CASES.entries()) {
    it(testCase.name, async () => {
      const dir = path.join(root, `case ${index}`);
      await mkdir(dir, { recursive: true });
      const input = await testCase.build(dir, trained);
      const before = hashTree(root);
      const streams = captureStreams();
      const code = await runCli(['--no-gui', ...input.argv, '--json'], { streams, cwd: dir });
      const error = streams.jsonLines().find((l) => l.type === 'error');
      expect(code, `exit code; stderr: ${streams.err()}`).toBe(3);
      expect(error?.code).toMatch(/^(bad_input|not_found)$/);
      expect(error?.message).toContain(input.file);
      expect(error?.message).toMatch(input.problem);
      if (process.env.ARGONAUT_SHOW_MESSAGES) console.log(`${testCase.name}\n    -> ${String(error?.message)}`);
      expect(streams.err()).toContain(input.file); // people see it too
      expect(hashTree(root)).toEqual(before);
      for (const p of input.mustNotExist ?? []) expect(existsSync(p), p).toBe(false);
    }, 60_000);
  }
});
