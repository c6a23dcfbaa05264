import { stat } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { blockTrainingInput } from '../../../../main/engine/partition/block-input.js';
import { coreSplatIndices, pickSplats } from '../../../../main/engine/partition/crop.js';
import { toGround } from '../../../../main/engine/partition/ground.js';
import { finishedBlockSplats } from '../../../../main/engine/partition/finished-blocks.js';
import { mergeBlocks } from '../../../../main/engine/partition/merge.js';
import { addPartition } from '../../../../main/engine/partition/partitions.js';
import { loadDataset } from '../../../../main/engine/dataset/dataset.js';
import { makeFolder } from '../../../../main/engine/formats/atomic-file.js';
import { writePly } from '../../../../main/engine/formats/ply.js';
import { importDataset } from '../../../../main/engine/project/import.js';
import type { Project } from '../../../../main/engine/project/project.js';
import { initialSplats } from '../../../../main/engine/train/init.js';
import { resolveParams } from '../../../../shared/params/index.js';
import { projectParamDefs, type ProjectRun } from '../../../../shared/project/manifest.js';
import type { Partition } from '../../../../shared/project/partition.js';
import { Random } from '../../../../shared/random.js';
import type { SplatSet } from '../../../../shared/scene/splats.js';
import { cleanedTempDirs } from '../../../helpers/datasets.js';
import { testGpu } from '../../../helpers/gpu.js';
import { freshSeed, rng } from '../../../helpers/random.js';
import { writeRenderedCity } from './city-dataset.js';
import { syntheticCity } from './synthetic-city.js';

const temp = cleanedTempDirs(afterAll);

/** A run trained as `partition`'s blocks, each block's PLY given (as if trained). */
async function partitionedRun(project: Project, partition: Partition, blockSplats: SplatSet[]): Promise<ProjectRun> {
  const now = new Date().toISOString();
  const id = project.nextRunId();
  const blocks = [];
  for (const [i, block] of partition.blocks.entries()) {
    const file = path.join(project.runDir(id), 'blocks', block.id, 'splats.ply');
    await makeFolder(path.dirname(file));
    await writePly(file, blockSplats[i]!);
    blocks.push({ block: block.id, status: 'finished' as const, step: 10, total: 10, attempts: 1, checkpointsDir: project.relative(path.dirname(file)), splats: project.relative(file), splatCount: blockSplats[i]!.count });
  }
  const run: ProjectRun = {
    id, createdAt: now, updatedAt: now, params: resolveParams(projectParamDefs(), { 'train.iterations': 10 }), status: 'running', step: 10, total: 10, resumes: [],
    checkpointsDir: project.relative(path.join(project.runDir(id), 'checkpoints')), metrics: [], evaluations: [], outputs: {},
    partition: { partition: partition.id, queue: 'in-process', blocks, merge: { status: 'pending', fineTuneSteps: 0 } },
  };
  project.manifest.runs.push(run);
  await project.save();
  return run;
}

describe('block inputs and merging', async () => {
  const ctx = await testGpu();
  const seed = freshSeed();
  const random = rng(seed);
  const city = syntheticCity(random, { cols: 4, rows: 1, camerasPerObject: 6 });
  const dir = await temp('partition-merge');
  const scene = await writeRenderedCity(ctx, city, path.join(dir, 'city'), random);
  const { project } = await importDataset(path.join(dir, 'city'), path.join(dir, 'city.argo'), { params: { 'train.iterations': 10 } });
  const partition = await addPartition(project, { blocks: 2, method: 'kd', overlap: 0.2 });

  it("gives a block its cameras, the test views that see it and the trainer's initialisation of its points", async () => {
    const input = await blockTrainingInput(project, partition, 'block-01');
    const dataset = await loadDataset(path.join(dir, 'city'));
    const kept = dataset.views.filter((v, i) => input.viewFilter(v, i));
    expect(kept.filter((v) => v.split === 'train').map((v) => v.name).sort(), `seed ${seed}`).toEqual([...partition.blocks[0]!.cameras].sort());
    expect(kept.filter((v) => v.split === 'test').map((v) => v.name)).toEqual(input.testViews);
    expect(input.testViews.length, `seed ${seed}`).toBeGreaterThan(0);
    expect(input.initial.count).toBe(partition.blocks[0]!.points);
    for (let i = 0; i < input.initial.count; i++) {
      const [u, v] = toGround(partition.ground, [...input.initial.means.subarray(3 * i, 3 * i + 3)]);
      const b = partition.blocks[0]!.bounds;
      expect(u >= b.min[0] - 1e-4 && u <= b.max[0] + 1e-4 && v >= b.min[1] - 1e-4 && v <= b.max[1] + 1e-4).toBe(true);
    }
    // one block: the trainer's own initialisation of all the points (trainer.ts: Random(seed ^ 0x5eed))
    const whole = await addPartition(project, { blocks: 1, method: 'grid', overlap: 0 });
    const one = await blockTrainingInput(project, whole, 'block-01');
    const expected = initialSplats({ points: dataset.points!, sceneScale: dataset.sceneScale }, 3, 100_000, new Random(0 ^ 0x5eed));
    expect(one.initial.count).toBe(expected.count);
    expect([...one.initial.means]).toEqual([...expected.means]);
    expect([...one.initial.logScales]).toEqual([...expected.logScales]);
    expect([...one.initial.quats]).toEqual([...expected.quats]);
    expect([...one.initial.sh]).toEqual([...expected.sh]);
  });

  it('merges blocks trained on the whole scene back to it, measures no seam; a gap at the border shows as one', async () => {
    const run = await partitionedRun(project, partition, [scene, scene]);
    // before the merge: the finished blocks so far, cropped and joined (the live viewer's scene)
    run.partition!.blocks[1]!.status = 'running';
    const sofar = await finishedBlockSplats(project);
    expect(sofar.blocks).toEqual(['block-01']);
    expect(sofar.splats.count).toBe(coreSplatIndices(scene, partition, 0).length);
    run.partition!.blocks[1]!.status = 'finished';
    const merged = await mergeBlocks(ctx, project, run, { fineTuneSteps: 0 });
    expect(merged.splats.count, `seed ${seed}`).toBe(scene.count);
    expect(merged.blocks.map((b) => b.kept).reduce((a, b) => a + b, 0)).toBe(scene.count);
    expect((await stat(merged.splatsFile)).isFile()).toBe(true);
    expect(run.outputs).toEqual({ splats: project.relative(merged.splatsFile), splatCount: scene.count });
    expect(run.partition!.merge.status).toBe('finished');
    // scored without a fine-tune, by a whole run's evaluation, on the project's held-out views
    const evaluation = merged.evaluation!;
    expect(evaluation.views.length).toBeGreaterThan(0);
    expect(evaluation.psnr, `seed ${seed}`).toBeGreaterThan(30);
    expect(Number.isFinite(evaluation.ssim) && Number.isFinite(evaluation.ccPsnr)).toBe(true);
    expect(run.partition!.merge.evaluation).toEqual({ psnr: evaluation.psnr, ssim: evaluation.ssim, ccPsnr: evaluation.ccPsnr, views: evaluation.views.length });
    expect(run.evaluations.at(-1)).toMatchObject({ step: run.step, psnr: evaluation.psnr, ssim: evaluation.ssim });
    const clean = merged.seams!;
    expect(clean.nearPixels).toBeGreaterThan(0);
    expect(clean.nearPsnr, `seed ${seed}`).toBeGreaterThan(30);
    expect(Math.abs(clean.nearPsnr - clean.awayPsnr)).toBeLessThan(6);
    // the splats within 0.6 of the border left out of both blocks: a seam
    const border = partition.blocks[0]!.core.max[0];
    const far = [...Array(scene.count).keys()].filter((i) => Math.abs(toGround(partition.ground, [...scene.means.subarray(3 * i, 3 * i + 3)])[0] - border) > 0.6);
    const gapped = pickSplats(scene, far);
    const run2 = await partitionedRun(project, partition, [gapped, gapped]);
    const events: string[] = [];
    const seamed = await mergeBlocks(ctx, project, run2, { fineTuneSteps: 2, onEvent: (e) => void (e.type === 'merge' && events.push(e.status)) });
    expect(events).toEqual(['running', 'finished']);
    expect(seamed.fineTune?.steps).toBe(2);
    expect(seamed.seams!.nearPsnr, `seed ${seed}`).toBeLessThan(seamed.seams!.awayPsnr - 3);
    // with a fine-tune, its own final evaluation is the merge's (one evaluation, not two)
    expect(seamed.evaluation?.psnr).toBe(seamed.fineTune!.evaluation.psnr);
    expect(seamed.evaluation!.psnr, `seed ${seed}`).toBeLessThan(evaluation.psnr);
    expect(coreSplatIndices(gapped, partition, 0).length + coreSplatIndices(gapped, partition, 1).length).toBe(gapped.count);
    const saved = project.manifest.runs.find((r) => r.id === run2.id)!;
    expect(saved.partition!.merge).toMatchObject({ status: 'finished', fineTuneSteps: 2, splatCount: seamed.splats.count });
    expect(saved.partition!.merge.seams!.nearPsnr).toBeCloseTo(seamed.seams!.nearPsnr, 9);
  }, 120_000);
});
