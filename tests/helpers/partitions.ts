/** A tiny project with a two-block partition (the schema's shape, made by hand): block runtime tests need no splitter. */
import path from 'node:path';
import type { Partition } from '../../shared/project/partition.js';
import { importDataset } from '../../main/engine/project/import.js';
import type { Project } from '../../main/engine/project/project.js';
import { tinyDataset } from './projects.js';

/** Two blocks side by side on the ground (u < 0, u > 0), sharing one camera; `blocks: 1` keeps only the first. */
export function handMadePartition(cameras: string[], blocks: 1 | 2 = 2): Partition {
  const half = Math.ceil(cameras.length / 2);
  const all: Partition['blocks'] = [
    { id: 'block-00', core: { min: [-1, -1], max: [0, 1] }, bounds: { min: [-1.2, -1.2], max: [0.2, 1.2] }, height: [-1, 1], cameras: cameras.slice(0, half + 1), points: 3 },
    { id: 'block-01', core: { min: [0, -1], max: [1, 1] }, bounds: { min: [-0.2, -1.2], max: [1.2, 1.2] }, height: [-1, 1], cameras: cameras.slice(half), points: 3 },
  ];
  return {
    id: 'partition-001', createdAt: new Date().toISOString(), method: 'grid', target: { blocks }, overlap: 0.2,
    ground: { origin: [0, 0, 0], axisU: [1, 0, 0], axisV: [0, 1, 0], up: [0, 0, 1] },
    blocks: all.slice(0, blocks),
  };
}

/** The tiny COLMAP scene (six 32x24 views: img_0 is the test view) as a project with partition-001. */
export async function partitionedProject(dir: string, params: Record<string, number>, blocks: 1 | 2 = 2): Promise<Project> {
  const ds = await tinyDataset();
  const { project } = await importDataset(ds.root, path.join(dir, 'city.argo'), { params, verifyImages: false });
  const trainViews = ds.images.map((i) => i.name).filter((n) => n !== 'img_0.png');
  project.manifest.partitions.push(handMadePartition(trainViews, blocks));
  await project.save();
  return project;
}
