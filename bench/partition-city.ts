/**
 * The scene of the partitioned benchmarks (docs/scale.md, docs/gpu-machine.md): a synthetic city
 * of box-shaped objects (tests/main/engine/partition/synthetic-city.ts), its images rendered by our
 * rasterizer from its points as small opaque splats (city-dataset.ts writeRenderedCity), written
 * as a COLMAP dataset, imported as a project with a grid partition. Deterministic for a seed; made
 * where it runs (the GPU machine renders it in seconds: nothing to carry).
 *
 *   node out/gpu/partition-city.mjs --out DIR [--cols 6] [--rows 4] [--cameras 8] [--image-width 320]
 *     [--points 1500] [--ground 4000] [--blocks 4] [--steps 7000] [--checkpoint-every 1000] [--seed 1]
 *
 * Prints one JSON line: the project, the partition and its blocks. An existing DIR/city.argo is
 * kept (the three steps partitionwhole, partition2w and partition1w train the same scene).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { openGpu } from '../main/engine/gpu/context.js';
import { addPartition } from '../main/engine/partition/partitions.js';
import { importDataset } from '../main/engine/project/import.js';
import { Project } from '../main/engine/project/project.js';
import { seededRandom } from '../shared/random.js';
import { writeRenderedCity } from '../tests/main/engine/partition/city-dataset.js';
import { syntheticCity } from '../tests/main/engine/partition/synthetic-city.js';

const { values } = parseArgs({
  options: {
    out: { type: 'string' }, cols: { type: 'string', default: '6' }, rows: { type: 'string', default: '4' }, cameras: { type: 'string', default: '8' },
    'image-width': { type: 'string', default: '320' }, points: { type: 'string', default: '1500' }, ground: { type: 'string', default: '4000' },
    blocks: { type: 'string', default: '4' }, steps: { type: 'string', default: '7000' }, 'checkpoint-every': { type: 'string', default: '1000' }, seed: { type: 'string', default: '1' },
  },
});
const int = (name: keyof typeof values, min: number) => {
  const v = Number(values[name]);
  if (!Number.isInteger(v) || v < min) {
    console.error(`partition-city: --${name} must be a whole number >= ${min} (got ${String(values[name])})`);
    process.exit(2);
  }
  return v;
};
if (!values.out) {
  console.error('usage: node out/gpu/partition-city.mjs --out DIR [--cols N --rows N --cameras N --image-width PX --points N --ground N --blocks N --steps N --seed N]');
  process.exit(2);
}
const dir = path.resolve(values.out);
const file = path.join(dir, 'city.argo');
const options = { cols: int('cols', 1), rows: int('rows', 1), camerasPerObject: int('cameras', 3), imageWidth: int('image-width', 16), pointsPerObject: int('points', 10), groundPoints: int('ground', 0) };
const started = performance.now();
let project: Project;
if (existsSync(file)) {
  project = await Project.open(file);
} else {
  const random = seededRandom(int('seed', 0));
  const city = syntheticCity(random, options);
  const ctx = await openGpu();
  try {
    await writeRenderedCity(ctx, city, path.join(dir, 'city'), random);
  } finally {
    ctx.destroy();
  }
  ({ project } = await importDataset(path.join(dir, 'city'), file, { params: { 'train.iterations': int('steps', 1), 'train.checkpointEvery': int('checkpoint-every', 0) } }));
  await addPartition(project, { blocks: int('blocks', 1), method: 'grid', overlap: 0.2 });
}
const partition = project.manifest.partitions.at(-1)!;
console.log(JSON.stringify({
  type: 'city', project: file, partition: partition.id, options, made_s: (performance.now() - started) / 1000, params: project.manifest.params,
  blocks: partition.blocks.map((b) => ({ id: b.id, cameras: b.cameras.length, points: b.points })),
}));
