/**
 * A project that meshes into a known shape in well under a second: NeRF-synthetic cameras around a
 * sphere, and a finished run whose splats lie on that sphere (two colours by hemisphere, so a
 * preview shows more than one flat colour). No training: the splats are the "result".
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { writePly } from '../../main/engine/formats/ply.js';
import { importDataset } from '../../main/engine/project/import.js';
import { projectParamDefs } from '../../shared/project/manifest.js';
import { sphereCameras, uvSphere, writeNerfSyntheticCameras } from './mesh-scenes.js';
import { splatsOnMesh } from './surface-splats.js';

export async function sphereProject(file: string, { splats = 1500, views = 10 } = {}): Promise<{ file: string; dataset: string }> {
  const dataset = await writeNerfSyntheticCameras(sphereCameras(views, 48));
  const { project } = await importDataset(dataset, file, { verifyImages: false });
  const sphere = uvSphere(0.7, 16, 32);
  const runDir = project.runDir('run-001');
  await mkdir(runDir, { recursive: true });
  const target = path.join(runDir, 'splats.ply');
  await writePly(target, splatsOnMesh(sphere.positions, sphere.triangles, splats, 7, (p) => (p[1] > 0 ? [0.85, 0.35, 0.2] : [0.2, 0.45, 0.85])));
  const now = new Date().toISOString();
  project.manifest.runs.push({
    id: 'run-001', createdAt: now, updatedAt: now, params: Object.fromEntries(projectParamDefs().map((d) => [d.key, d.default])), status: 'finished', step: 0, total: 0, resumes: [],
    checkpointsDir: project.relative(path.join(runDir, 'checkpoints')), metrics: [], evaluations: [], outputs: { splats: project.relative(target), splatCount: splats },
  });
  await project.save();
  return { file: project.file, dataset };
}
