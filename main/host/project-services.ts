/**
 * The engine host's project, training and export services. Arguments arrive validated by the
 * contract's schemas; paths from the renderer are checked here (absolute, existing, file or
 * folder as expected) and every error names the path and the problem.
 */
import { stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Services } from '../../shared/contract/index.js';
import type { ProjectSummary } from '../../shared/contract/projects.js';
import { PROJECT_EXTENSION } from '../../shared/project/manifest.js';
import { ArgonautError, badInput } from '../../shared/rpc/errors.js';
import { encodeSplatSet } from '../../shared/scene/splat-layout.js';
import type { ServiceImpl } from '../../shared/rpc/define.js';
import type { Rgb } from '../engine/dataset/dataset.js';
import { loadViewImage } from '../engine/dataset/view-image.js';
import type { Engine } from '../engine/engine.js';
import { downscaleArea } from '../engine/formats/image-ops.js';
import { resolveCacheDir } from '../engine/formats/image-cache.js';
import { encodePngRgb } from '../engine/formats/images.js';
import { checkedDatasetPath, checkedProjectFile } from '../engine/jobs/checked-paths.js';
import { type JobManager } from '../engine/jobs/manager.js';
import { exportProject } from '../engine/project/export.js';
import { exportProjectWeb } from '../engine/project/web-export.js';
import { projectSplats } from '../engine/project/splats.js';
import { createSampleProject, createSplatProject, importDataset } from '../engine/project/import.js';
import { Project } from '../engine/project/project.js';
import { addRecent, readRecent, removeRecent, stateDir } from '../engine/project/state.js';
import { definedParams } from '../engine/project/train-run.js';
import { pickView, projectViews } from '../engine/project/views.js';
import { renderImage } from '../engine/render/render-image.js';
import { SAMPLE_SCENE, torusKnotSplats } from '../engine/train/sample-scene.js';

type Impl = ServiceImpl<Services>;

/** `<dir>/<base>.argo`, or `<base>-2.argo`, ... when taken (a default name never overwrites). */
async function freeProjectFile(dir: string, base: string, explicit: boolean): Promise<string> {
  const taken = async (file: string) => (await stat(file).then(() => true, () => false)) || (await stat(`${file}.data`).then(() => true, () => false));
  const first = path.join(dir, `${base}${PROJECT_EXTENSION}`);
  if (explicit || !(await taken(first))) return first;
  for (let n = 2; n < 1000; n++) {
    const file = path.join(dir, `${base}-${n}${PROJECT_EXTENSION}`);
    if (!(await taken(file))) return file;
  }
  throw badInput(first, 'no free project name (tried up to -999)');
}

async function checkedFolder(dir: string): Promise<string> {
  if (!path.isAbsolute(dir)) throw badInput(dir, 'expected an absolute path to a folder');
  const s = await stat(dir).catch(() => undefined);
  if (!s) throw new ArgonautError('not_found', `${dir}: folder not found`, { file: dir });
  if (!s.isDirectory()) throw badInput(dir, 'is a file; expected a folder');
  return path.resolve(dir);
}

async function checkedSplatFile(file: string): Promise<string> {
  if (!path.isAbsolute(file)) throw badInput(file, 'expected an absolute path to a splat file (.ply, .splat, .spz, .sog, .glb)');
  const s = await stat(file).catch(() => undefined);
  if (!s) throw new ArgonautError('not_found', `${file}: file not found`, { file });
  if (!s.isFile()) throw badInput(file, 'is a folder; expected a splat file (.ply, .splat, .spz, .sog, .glb)');
  return path.resolve(file);
}

/** Default folder for projects made from the sample scene: ARGONAUT_PROJECTS_DIR, else ~/Argonaut Projects. */
function defaultProjectsDir(): string {
  return process.env.ARGONAUT_PROJECTS_DIR ?? path.join(os.homedir(), 'Argonaut Projects');
}

/** The `projects` service but its partition methods (partition-services.ts), `train`, `export`. */
export function createProjectServices(engine: Engine, jobs: JobManager): Pick<Impl, 'train' | 'export'> & { projects: Omit<Impl['projects'], 'partition' | 'partitions' | 'blockSplats'> } {
  const state = () => stateDir();
  /** The job's own Project object when a job trains it (one writer per manifest), else a fresh one. */
  const openProject = async (file: string) => jobs.openProjectOf(await checkedProjectFile(file)) ?? Project.open(await checkedProjectFile(file));

  return {
    projects: {
      async create({ source, name, dir, copy }) {
        let project: Project;
        if (source.kind === 'dataset') {
          const dataset = await checkedDatasetPath(source.dir);
          const folder = dir ? await checkedFolder(dir) : path.dirname(dataset);
          const file = await freeProjectFile(folder, name ?? path.basename(dataset, path.extname(dataset)), name !== undefined);
          const params = source.masks ? { 'train.masks': await checkedFolder(source.masks) } : undefined;
          const imported = await importDataset(dataset, file, { copy, params, warn: (m) => engine.log('warn', m, 'projects') });
          if (source.format && imported.dataset.format !== source.format) {
            engine.log('warn', `${dataset}: asked for a ${source.format} dataset, found ${imported.dataset.format}`, 'projects');
          }
          project = imported.project;
        } else if (source.kind === 'splat') {
          const splatFile = await checkedSplatFile(source.path);
          const folder = dir ? await checkedFolder(dir) : path.dirname(splatFile);
          project = await createSplatProject(splatFile, await freeProjectFile(folder, name ?? path.basename(splatFile, path.extname(splatFile)), name !== undefined));
        } else {
          const folder = dir ? await checkedFolder(dir) : defaultProjectsDir();
          project = await createSampleProject(await freeProjectFile(folder, name ?? 'Sample scene', name !== undefined));
        }
        await addRecent(project.file, state()).catch((e: unknown) => engine.log('warn', `recent projects: ${(e as Error).message}`, 'projects'));
        return project.summary();
      },
      async open({ path: file }) {
        const project = await openProject(file);
        await addRecent(project.file, state()).catch((e: unknown) => engine.log('warn', `recent projects: ${(e as Error).message}`, 'projects'));
        return project.summary();
      },
      async recent() {
        const projects: ProjectSummary[] = [];
        const gone: string[] = [];
        for (const entry of await readRecent(state())) {
          try {
            projects.push((await Project.open(entry.path)).summary());
          } catch (error) {
            if ((error as ArgonautError).code === 'not_found') gone.push(entry.path);
            else engine.log('warn', `recent project ${entry.path}: ${(error as Error).message}`, 'projects');
          }
        }
        await removeRecent(gone, state()).catch(() => undefined);
        return { projects };
      },
      async scene({ project: file }) {
        const project = await openProject(file);
        const views = await projectViews(project);
        const points = views.dataset?.points;
        return {
          cameras: views.views.map((v) => ({ ...v.camera, worldToCamera: [...v.camera.worldToCamera] })),
          views: views.views.map((v) => ({ name: v.name, split: v.split })),
          // Copies: the dataset's arrays may be views into a larger (or shared) buffer.
          points: { positions: new Float32Array(points?.positions ?? []), colors: new Uint8Array(points?.colors ?? []), count: points ? points.positions.length / 3 : 0 },
        };
      },
      async image({ project: file, camera, maxSize }) {
        const project = await openProject(file);
        const views = await projectViews(project);
        const view = pickView(project, views, camera);
        let width: number;
        let height: number;
        let rgb: Float32Array;
        if (views.dataset) {
          const datasetView = views.dataset.views[camera];
          const image = await loadViewImage(datasetView, { downscale: views.downscale, background: views.background as Rgb, cacheDir: await resolveCacheDir(views.dataset.root) });
          ({ width, height, rgb } = image);
        } else {
          // The sample scene has no photos: its "photos" are renders of the procedural truth.
          const gpu = await engine.gpu();
          const truth = torusKnotSplats(SAMPLE_SCENE.splats, SAMPLE_SCENE.seed);
          const image = await renderImage(gpu, truth, view.camera, { background: views.background, antialiased: false, shDegree: 0 });
          width = view.camera.width;
          height = view.camera.height;
          rgb = new Float32Array(width * height * 3);
          for (let p = 0; p < width * height; p++) for (let c = 0; c < 3; c++) rgb[3 * p + c] = image.rgba[4 * p + c];
        }
        const factor = maxSize ? Math.max(1, Math.ceil(Math.max(width, height) / maxSize)) : 1;
        if (factor > 1) ({ width, height, data: rgb } = downscaleArea({ width, height, channels: 3, data: rgb }, factor));
        const png = await encodePngRgb(rgb, width, height, 3);
        return { mime: 'image/png' as const, width, height, data: png.buffer.slice(png.byteOffset, png.byteOffset + png.byteLength) as ArrayBuffer };
      },
      async splats({ project: file, raw }) {
        const project = await openProject(file);
        const found = await projectSplats(project, (m) => engine.log('warn', m, 'projects'), { raw });
        return { count: found.splats.count, run: found.run.id, step: found.step, data: encodeSplatSet(found.splats), ...(found.edits ? { keptToBase: found.edits.keptToBase } : {}) };
      },
    },
    train: {
      async start({ source, params, newRun }) {
        return jobs.start(source, definedParams(params), newRun ?? false);
      },
      async partitioned({ project, partition, queue, mergeFineTune, params }) {
        return jobs.startPartitioned(project, { partition, queue, mergeFineTune }, definedParams(params));
      },
      async pause({ job }) {
        return jobs.pause(job);
      },
      async resume({ job }) {
        return jobs.resume(job);
      },
      async stop({ job }) {
        return jobs.stop(job);
      },
      async status() {
        return { jobs: jobs.status() };
      },
    },
    export: {
      async splats({ project, job, format, path: target }) {
        if (!path.isAbsolute(target)) throw badInput(target, 'expected an absolute path for the exported file');
        if (job !== undefined) return { ...(await jobs.exportJob(job, format, target)), format };
        const result = await exportProject(await openProject(project!), format, target, (m) => engine.log('warn', m, 'export'));
        return { path: result.path, bytes: result.bytes, splats: result.splats, format };
      },
      async web({ project, path: target, singleFile, force }) {
        if (!path.isAbsolute(target)) throw badInput(target, 'expected an absolute path for the web viewer');
        const result = await exportProjectWeb(await openProject(project), target, { singleFile, force }, (m) => engine.log('warn', m, 'export'));
        return { path: result.path, bytes: result.bytes, splats: result.splats, cameraPaths: result.cameraPaths, singleFile: result.singleFile, files: result.files };
      },
    },
  };
}
