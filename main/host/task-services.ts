/**
 * The engine host's capture, mesh and task services (shared/contract/tasks.ts): capture + import
 * of video clips and photo folders, and mesh extraction, each run as a cancellable task with
 * `task` events. Paths from the renderer are checked here (absolute, existing, file or folder)
 * and every error names the path.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { Services } from '../../shared/contract/index.js';
import type { CaptureReportView } from '../../shared/contract/tasks.js';
import type { ParamValue } from '../../shared/params/index.js';
import { PROJECT_EXTENSION } from '../../shared/project/manifest.js';
import { ArgonautError, badInput } from '../../shared/rpc/errors.js';
import type { ServiceImpl } from '../../shared/rpc/define.js';
import type { TriangleMesh } from '../../shared/scene/mesh.js';
import { captureOptionsFromParams, type CaptureReport } from '../engine/capture/capture.js';
import type { Engine } from '../engine/engine.js';
import { meshFormatOf, writeMesh } from '../engine/formats/mesh-file.js';
import { checkedProjectFile } from '../engine/jobs/checked-paths.js';
import type { TaskManager } from '../engine/jobs/tasks.js';
import { extractMesh } from '../engine/mesh/extract.js';
import { meshOptionsFromParams, resolveMeshValues } from '../engine/mesh/params.js';
import { loadProjectMeshInput } from '../engine/project/mesh-input.js';
import { captureDatasetDir, importCapture } from '../engine/project/import-capture.js';
import { addRecent, stateDir } from '../engine/project/state.js';

type Impl = ServiceImpl<Services>;

/** The contract's view of a capture report (NaN becomes null; per-input image lists are left in report.json). */
export function captureReportView(report: CaptureReport): CaptureReportView {
  return {
    datasetDir: report.datasetDir,
    registered: report.registered,
    total: report.total,
    points: report.points,
    meanReprojectionErrorPx: Number.isFinite(report.meanReprojectionErrorPx) ? report.meanReprojectionErrorPx : null,
    meanTrackLength: report.meanTrackLength,
    matcher: report.matcher,
    cameraModel: report.cameraModel,
    models: report.models,
    inputs: report.inputs.map((i) => ({ name: i.name, kind: i.kind, images: i.images, registered: i.registered })),
    timingsS: report.timingsS,
    resumed: report.resumed,
    diagnostics: report.diagnostics.map((d) => ({ level: d.level, message: d.message })),
  };
}

async function checkedInput(file: string): Promise<string> {
  if (!path.isAbsolute(file)) throw badInput(file, 'expected an absolute path to a video file or a folder of photos');
  const s = await stat(file).catch(() => undefined);
  if (!s) throw new ArgonautError('not_found', `${file}: not found (expected a video file or a folder of photos)`, { file });
  return path.resolve(file);
}

/**
 * `<dir>/<base>.argo` for a capture: the first name whose project file does not exist and whose
 * data folder is absent or an unfinished capture (which the import then resumes).
 */
async function captureProjectFile(dir: string, base: string, explicit: boolean): Promise<string> {
  const exists = (p: string) => stat(p).then(() => true, () => false);
  for (let n = 1; n < 1000; n++) {
    const file = path.join(dir, `${base}${n === 1 ? '' : `-${n}`}${PROJECT_EXTENSION}`);
    if (explicit) return file; // importCapture names what is in the way
    if (await exists(file)) continue;
    if (!(await exists(`${file}.data`)) || (await exists(path.join(captureDatasetDir(file), 'capture')))) return file;
  }
  throw badInput(path.join(dir, `${base}${PROJECT_EXTENSION}`), 'no free project name (tried up to -999)');
}


export function createTaskServices(engine: Engine, tasks: TaskManager): Pick<Impl, 'capture' | 'mesh' | 'tasks'> {
  return {
    capture: {
      async import({ inputs, name, dir, params }) {
        // Checked before the task starts: a wrong path is the call's error, not a failed task.
        const checked = await Promise.all(inputs.map(checkedInput));
        const folder = dir ?? path.dirname(checked[0]);
        if (dir) {
          const s = await stat(dir).catch(() => undefined);
          if (!s?.isDirectory()) throw badInput(dir, s ? 'is a file; expected a folder' : 'folder not found');
        }
        const base = name ?? (path.parse(checked[0]).name || 'capture');
        const file = await captureProjectFile(folder, base, name !== undefined);
        const values = params as Record<string, ParamValue>;
        const title = checked.map((p) => path.basename(p)).join(', ');
        const task = tasks.start('capture', title, async ({ signal, progress }) => {
          try {
            const { project, report } = await importCapture(checked, file, {
              ...captureOptionsFromParams(values),
              params: values,
              // our features run on the engine's own device (one per process), opened only if needed
              gpu: () => engine.gpu(),
              signal,
              onProgress: (p) => progress(p.stage, p.percent / 100, { message: [p.input, p.message].filter(Boolean).join(': ') || undefined, skipped: p.skipped }),
              onLog: (level, message) => engine.log(level, message, 'capture'),
              onImportProgress: (stage, done, total) => progress(stage === 'verify' ? 'verify' : 'import', total ? done / total : 1),
              warn: (m) => engine.log('warn', m, 'capture'),
            });
            await addRecent(project.file, stateDir()).catch((e: unknown) => engine.log('warn', `recent projects: ${(e as Error).message}`, 'projects'));
            engine.log('info', `${project.file}: ${report.registered}/${report.total} images registered, ${report.points} points`, 'capture');
            return { result: { kind: 'capture' as const, project: project.summary(), report: captureReportView(report) } };
          } catch (error) {
            const report = (error as ArgonautError).details as { report?: CaptureReport } | undefined;
            if (error instanceof ArgonautError && report?.report) throw new ArgonautError(error.code, error.message, { report: captureReportView(report.report) });
            throw error;
          }
        });
        return { task };
      },
    },
    mesh: {
      async extract({ project: projectPath, path: target, params }) {
        const file = await checkedProjectFile(projectPath);
        if (!path.isAbsolute(target)) throw badInput(target, 'expected an absolute path for the mesh file');
        const format = meshFormatOf(target);
        const folder = await stat(path.dirname(target)).catch(() => undefined);
        if (!folder?.isDirectory()) throw badInput(path.dirname(target), 'the folder for the mesh file does not exist');
        const v = resolveMeshValues(params as Record<string, ParamValue>);
        const task = tasks.start('mesh', path.basename(file), async ({ signal, progress }) => {
          progress('load', 0);
          const input = await loadProjectMeshInput(file, (m) => engine.log('warn', m, 'mesh'), { imageAlpha: v['mesh.imageAlpha'] });
          progress('load', 1);
          const gpu = await engine.gpu();
          const result = await extractMesh(gpu, input, {
            ...meshOptionsFromParams(v),
            antialiased: input.antialiased,
            signal,
            onProgress: (stage, done, total) => progress(stage, total ? done / total : 1),
          });
          if (result.stats.triangles === 0) engine.log('warn', `${file}: no surface found (no pixel of any view reached alpha 0.5 inside the grid); the mesh is empty. Is the model trained?`, 'mesh');
          progress('write', 0);
          await writeMesh(target, result.mesh);
          const bytes = (await stat(target)).size;
          progress('write', 1);
          const s = result.stats;
          engine.log('info', `${target}: ${s.triangles} triangles, ${s.vertices} vertices in ${s.timings.total_s.toFixed(2)} s`, 'mesh');
          return {
            result: { kind: 'mesh' as const, path: target, format, bytes, triangles: s.triangles, vertices: s.vertices, views: s.views, grid: [...s.grid.dims], timingsS: { ...s.timings } },
            payload: result.mesh,
          };
        });
        return { task };
      },
      async preview({ task }) {
        const mesh = tasks.payloadOf(task, 'mesh') as TriangleMesh;
        // Copies: the mesh's arrays may be views into larger buffers, and the codec sends whole buffers.
        return { positions: new Float32Array(mesh.positions), colors: new Uint8Array(mesh.colors), indices: new Uint32Array(mesh.indices), ...(mesh.normals ? { normals: new Float32Array(mesh.normals) } : {}) };
      },
    },
    tasks: {
      async cancel({ task }) {
        return tasks.cancel(task);
      },
      async status() {
        return { tasks: tasks.status() };
      },
    },
  };
}
