/**
 * The engine host's camera-path services (shared/contract/paths.ts): saved paths in the project
 * (through the job manager's open Project when a job trains it, so neither save loses the other's
 * change) and video renders as cancellable `video` tasks.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { Services } from '../../shared/contract/index.js';
import { badInput } from '../../shared/rpc/errors.js';
import type { ServiceImpl } from '../../shared/rpc/define.js';
import type { Engine } from '../engine/engine.js';
import { checkedProjectFile } from '../engine/jobs/checked-paths.js';
import { type JobManager } from '../engine/jobs/manager.js';
import type { TaskManager } from '../engine/jobs/tasks.js';
import { deleteCameraPath, listCameraPaths, saveCameraPath } from '../engine/project/camera-paths.js';
import { Project } from '../engine/project/project.js';
import { checkVideoSettings, renderProjectVideo } from '../engine/project/video.js';

type Impl = ServiceImpl<Services>;

export function createPathServices(engine: Engine, jobs: JobManager, tasks: TaskManager): Pick<Impl, 'paths'> {
  const openProject = async (file: string) => {
    const checked = await checkedProjectFile(file);
    return jobs.openProjectOf(checked) ?? Project.open(checked);
  };
  return {
    paths: {
      async list({ project }) {
        return { paths: listCameraPaths(await openProject(project)) };
      },
      async save({ project, path: cameraPath }) {
        return { paths: await saveCameraPath(await openProject(project), cameraPath) };
      },
      async delete({ project, id }) {
        return { paths: await deleteCameraPath(await openProject(project), id) };
      },
      async render({ project: projectFile, path: cameraPath, out, settings }) {
        // Checked before the task starts: a wrong path or size is the call's error, not a failed task.
        if (!path.isAbsolute(out)) throw badInput(out, 'expected an absolute path for the video file');
        const folder = await stat(path.dirname(out)).catch(() => undefined);
        if (!folder?.isDirectory()) throw badInput(path.dirname(out), 'the folder for the video does not exist');
        checkVideoSettings(settings, out);
        const project = await openProject(projectFile);
        const task = tasks.start('video', `${cameraPath.name} -> ${path.basename(out)}`, async ({ signal, progress }) => {
          progress('load', 0);
          const gpu = await engine.gpu();
          const result = await renderProjectVideo(gpu, project, cameraPath, settings, out, {
            signal,
            warn: (m) => engine.log('warn', m, 'video'),
            onProgress: ({ frame, frames }) => progress('render', frame / frames, { message: `frame ${frame} of ${frames}` }),
          });
          engine.log('info', `${out}: ${result.frames} frames ${result.width}x${result.height} at ${result.fps} fps in ${result.seconds.toFixed(1)} s`, 'video');
          const { frames, width, height, fps, durationS, bytes, seconds } = result;
          return { result: { kind: 'video' as const, path: out, pathId: cameraPath.id, frames, width, height, fps, durationS, bytes, seconds } };
        });
        return { task };
      },
    },
  };
}
