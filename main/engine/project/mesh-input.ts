/**
 * A project as mesh extraction's input: its newest splats and its dataset's training cameras.
 * Here rather than in mesh/: extraction reads splats and cameras and knows nothing of projects.
 */
import path from 'node:path';
import type { MeshInput } from '../mesh/extract.js';
import { loadImageAlpha } from '../mesh/view-alpha.js';
import { Project } from './project.js';
import { projectSplats } from './splats.js';
import { projectViews } from './views.js';

/**
 * A project's newest splats (finished run, else its newest complete checkpoint) and the training
 * cameras of its dataset at the run's downscale (refined where that run refined them);
 * `antialiased` is the run's setting. With `imageAlpha`, the training images' alpha for
 * free-space carving where the dataset has images (a sample project has none).
 */
export async function loadProjectMeshInput(file: string, warn?: (m: string) => void, options: { imageAlpha?: boolean } = {}): Promise<MeshInput & { datasetName: string; antialiased: boolean; described: Record<string, unknown> }> {
  const project = await Project.open(file);
  const found = await projectSplats(project, warn);
  const views = await projectViews(project, found.run);
  const train = views.views.filter((v) => v.split === 'train');
  const fused = train.length ? train : views.views;
  const { dataset } = views;
  const byName = new Map(dataset?.views.map((v) => [v.name, v]));
  const imageViews = fused.map((v) => byName.get(v.name));
  const imageAlpha = options.imageAlpha && dataset && imageViews.every((v) => v !== undefined) ? await loadImageAlpha(dataset, imageViews, views.downscale, warn) : undefined;
  return {
    splats: found.splats,
    cameras: fused.map((v) => v.camera),
    imageAlpha,
    datasetName: path.basename(path.resolve(views.dataset?.root ?? file)),
    antialiased: Boolean(found.run.params['train.antialiased']),
    geometry: Boolean(found.run.params['train.geometry']),
    described: { project: project.file, run: found.run.id, step: found.step, source: found.file },
  };
}
