/**
 * Nothing lost: the CLI really killed (SIGKILL) mid-training and mid-save, then reopened and
 * resumed; Ctrl+C (SIGINT) exits 130 with a checkpoint. Mid-save kills are made certain with
 * ARGONAUT_TEST_SLOW_WRITE_MS (writeFileAtomic pauses halfway through the temporary file).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { importDataset } from '../../../main/engine/project/import.js';
import { Project } from '../../../main/engine/project/project.js';
import { checkpointProblem } from '../../../main/engine/train/checkpoint.js';
import { tempDir } from '../../helpers/datasets.js';
import { hashFile, hashTree, tinyDataset } from '../../helpers/projects.js';
import { spawnCli, type CliProcess } from '../../helpers/spawn-cli.js';
import { waitFor } from '../../helpers/wait.js';

const running: CliProcess[] = [];
afterEach(() => {
  for (const p of running.splice(0)) if (p.child.exitCode === null) p.child.kill('SIGKILL');
});

function start(args: string[], env: NodeJS.ProcessEnv = {}): CliProcess {
  const p = spawnCli(args, env);
  running.push(p);
  return p;
}

async function setup(iterations: number, every: number) {
  const ds = await tinyDataset();
  const dir = await tempDir('crash');
  const file = path.join(dir, 'crash test ü.argo'); // spaces and non-ASCII on purpose
  await importDataset(ds.root, file, { params: { 'train.iterations': iterations, 'train.checkpointEvery': every } });
  const checkpoints = path.join(dir, 'crash test ü.argo.data', 'runs', 'run-001', 'checkpoints');
  return { dir, file, checkpoints, env: { ARGONAUT_STATE_DIR: path.join(dir, 'state') } };
}

const stepOf = (name: string) => Number(/step-(\d+)\.ckpt$/.exec(name)![1]);
const complete = (dir: string) => (existsSync(dir) ? readdirSync(dir).filter((n) => /^step-\d+\.ckpt$/.test(n)).sort() : []);
const temps = (dir: string) => (existsSync(dir) ? readdirSync(dir).filter((n) => n.endsWith('.tmp')) : []);

describe('nothing lost when the CLI is killed', () => {
  it('SIGKILL mid-training: the manifest and newest checkpoint are intact, and train continues from it and finishes', async () => {
    // 200 steps: the kill lands after step 60 (progress goes out every 250 ms), well before the end
    const { file, checkpoints, env } = await setup(200, 25);
    const first = start(['train', file], env);
    await first.waitForLine((l) => l.type === 'log' && String(l.message).includes('checkpoint at step 50'));
    await first.waitForLine((l) => l.type === 'progress' && (l.step as number) > 60);
    first.child.kill('SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');

    const manifestBytes = readFileSync(file);
    const project = await Project.open(file); // valid JSON, valid schema
    const run = project.manifest.runs[0];
    expect(run.status).toBe('interrupted'); // it was running; its process is gone
    const names = complete(checkpoints);
    const newest = names.at(-1)!;
    expect(stepOf(newest)).toBeGreaterThanOrEqual(50);
    for (const name of names) expect(await checkpointProblem(path.join(checkpoints, name)), name).toBeUndefined();
    expect(run.latestCheckpoint!.step).toBe(stepOf(newest)); // the manifest was saved after the checkpoint
    expect(readFileSync(file)).toEqual(manifestBytes); // opening wrote nothing
    const newestHash = hashFile(path.join(checkpoints, newest));

    const second = start(['train', file], env);
    const result = await second.waitForLine((l) => l.type === 'result');
    expect((await second.exited).code).toBe(0);
    expect(result).toMatchObject({ resumed_from: stepOf(newest), steps: 200, status: 'finished', run: 'run-001' });
    expect(second.lines.find((l) => l.type === 'run')).toMatchObject({ resumed_from: stepOf(newest) });
    // The checkpoint it continued from was read, never rewritten.
    if (existsSync(path.join(checkpoints, newest))) expect(hashFile(path.join(checkpoints, newest))).toBe(newestHash);
  }, 240_000);

  it('SIGKILL while a checkpoint is being written: every complete file stays byte-identical, the partial write is cleaned up, and training resumes', async () => {
    // 120 steps: the kill comes in the second checkpoint's write (step 40); training waits for each write
    const { file, dir, checkpoints, env } = await setup(120, 20);
    const slow = { ...env, ARGONAUT_TEST_SLOW_WRITE_MS: '4000', ARGONAUT_TEST_SLOW_WRITE_MATCH: '\\.ckpt$' };
    const first = start(['train', file], slow);
    // Wait for the second checkpoint's write to be halfway (the first is complete by then).
    await waitFor(() => (complete(checkpoints).length >= 1 && temps(checkpoints).length === 1 ? true : undefined), { timeoutMs: 120_000, what: 'a checkpoint write in progress' });
    const before = hashTree(dir);
    const temp = temps(checkpoints)[0];
    first.child.kill('SIGKILL');
    await first.exited;
    const after = hashTree(dir);
    for (const [name, hash] of Object.entries(before)) {
      if (name.endsWith('.tmp')) continue;
      expect(after[name], name).toBe(hash); // nothing complete was touched
    }
    expect(after[path.relative(dir, path.join(checkpoints, temp))]).toBeDefined(); // the half-written temporary file is still there
    const target = temp.replace(/^\./, '').replace(/\.\d+\.[0-9a-f]{12}\.tmp$/, '');
    expect(existsSync(path.join(checkpoints, target))).toBe(false); // and never became the checkpoint
    const project = await Project.open(file);
    const newest = complete(checkpoints).at(-1)!;
    expect(project.manifest.runs[0].latestCheckpoint!.step).toBe(stepOf(newest));

    const second = start(['train', file], env);
    const result = await second.waitForLine((l) => l.type === 'result');
    expect((await second.exited).code).toBe(0);
    expect(result).toMatchObject({ resumed_from: stepOf(newest), steps: 120, status: 'finished' });
    expect(second.lines.some((l) => l.type === 'log' && String(l.message).includes(`removed ${path.join(checkpoints, temp)}`))).toBe(true);
    expect(temps(checkpoints)).toEqual([]);
  }, 240_000);

  it('SIGKILL while the manifest is being written: the old manifest stays whole and byte-identical, and training resumes', async () => {
    const { file, dir, checkpoints, env } = await setup(120, 20);
    const slow = { ...env, ARGONAUT_TEST_SLOW_WRITE_MS: '4000', ARGONAUT_TEST_SLOW_WRITE_MATCH: '\\.argo$' };
    const first = start(['train', file], slow);
    // The save after the first checkpoint (the run's start was saved before, slowly, too).
    await waitFor(() => (complete(checkpoints).length >= 1 && temps(dir).some((n) => n.includes('.argo.')) ? true : undefined), { timeoutMs: 120_000, what: 'a manifest write in progress' });
    const manifestBefore = hashFile(file);
    const checkpointHashes = Object.fromEntries(complete(checkpoints).map((n) => [n, hashFile(path.join(checkpoints, n))]));
    first.child.kill('SIGKILL');
    await first.exited;
    expect(hashFile(file)).toBe(manifestBefore);
    for (const [name, hash] of Object.entries(checkpointHashes)) expect(hashFile(path.join(checkpoints, name))).toBe(hash);
    const project = await Project.open(file);
    expect(project.manifest.runs[0].status).toBe('interrupted');
    const newest = stepOf(complete(checkpoints).at(-1)!);

    const second = start(['train', file], env);
    const result = await second.waitForLine((l) => l.type === 'result');
    expect((await second.exited).code).toBe(0);
    // It continues from the newest complete checkpoint, which the old manifest does not list yet.
    expect(project.manifest.runs[0].latestCheckpoint?.step ?? 0).toBeLessThan(newest);
    expect(result).toMatchObject({ resumed_from: newest, steps: 120 });
    expect(temps(dir)).toEqual([]);
  }, 240_000);

  it('SIGINT: exits 130 after saving a checkpoint, and the manifest says interrupted', async () => {
    const { file, checkpoints, env } = await setup(2000, 500);
    const p = start(['train', file], env);
    await p.waitForLine((l) => l.type === 'progress' && l.stage === 'train' && (l.step as number) >= 30);
    p.child.kill('SIGINT');
    const { code } = await p.exited;
    expect(code).toBe(130);
    const result = p.lines.find((l) => l.type === 'result')!;
    expect(result).toMatchObject({ cancelled: true, status: 'interrupted' });
    const step = result.checkpoint_step as number;
    expect(step).toBeGreaterThanOrEqual(30);
    expect(step).toBeLessThan(500); // not a periodic one: the interrupt's own
    const file2 = path.join(checkpoints, `step-${String(step).padStart(7, '0')}.ckpt`);
    expect(await checkpointProblem(file2)).toBeUndefined();
    expect(statSync(file2).size).toBeGreaterThan(0);
    const project = await Project.open(file);
    expect(project.manifest.runs[0]).toMatchObject({ status: 'interrupted', step, latestCheckpoint: { step } });
  }, 120_000);
});
