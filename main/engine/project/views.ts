/**
 * A project's cameras as training sees them (the dataset at the run's downscale, or the sample
 * scene's orbit): for `render --view K`, `projects.scene` and `projects.image`.
 */
import { definedParams } from './train-run.js';
import { getParam, resolveParams } from '../../../shared/params/index.js';
import type { PinholeCamera } from '../../../shared/scene/camera.js';
import { badInput } from '../../../shared/rpc/errors.js';
import { loadDataset, type Dataset, type Rgb } from '../dataset/dataset.js';
import { backgroundColour, type BackgroundChoice } from '../train/dataset-data.js';
import { sampleViews } from '../train/sample-scene.js';
import type { ProjectRun } from '../../../shared/project/manifest.js';
import type { Project } from './project.js';
import { refinedCamera, runCameraCorrections } from './refined-cameras.js';

export interface ProjectViews {
  views: { name: string; split: 'train' | 'test'; camera: PinholeCamera }[];
  background: Rgb;
  downscale: number;
  /** The loaded dataset (folder datasets): image paths and lens models for projects.image. */
  dataset?: Dataset;
}

/** The parameters the project's images are seen with: the newest run's, else the project's, else the registry's defaults. */
function viewParams(project: Project): { downscale: number; background: BackgroundChoice } {
  const defs = [getParam('train.downscale'), getParam('train.background')];
  const p = resolveParams(defs, definedParams({ ...project.manifest.params, ...(project.latestRun()?.params ?? {}) }));
  return { downscale: p['train.downscale'], background: p['train.background'] };
}

/**
 * `run`: whose refined cameras to apply (camera refinement); default the newest run with
 * finished splats. Views that run did not refine keep the dataset's cameras.
 */
export async function projectViews(project: Project, run?: ProjectRun): Promise<ProjectViews> {
  const ref = project.manifest.dataset;
  if (!ref) throw badInput(project.file, 'the project has no dataset cameras (it was made from a splat file); give a camera file instead');
  const { downscale, background } = viewParams(project);
  const corrections = await runCameraCorrections(project, run);
  const refine = <V extends { name: string; camera: PinholeCamera }>(v: V) => ({ ...v, camera: refinedCamera(corrections, v.name, v.camera) });
  if (ref.kind === 'sample') return { views: sampleViews().map(refine), background: backgroundColour(background), downscale: 1 };
  const dataset = await loadDataset((await project.datasetPath())!, { downscale });
  return { views: dataset.views.map((v) => refine({ name: v.name, split: v.split, camera: v.camera })), background: backgroundColour(background, dataset.background), downscale, dataset };
}

/** View `index` (dataset order), or a bad input naming the project and the range. */
export function pickView(project: Project, views: ProjectViews, index: number) {
  const view = views.views[index];
  if (!Number.isInteger(index) || !view) throw badInput(project.file, `view ${index} does not exist: the dataset has views 0 to ${views.views.length - 1}`);
  return view;
}
