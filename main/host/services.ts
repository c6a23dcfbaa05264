import type { Services } from '../../shared/contract/index.js';
import { isActiveJobState } from '../../shared/contract/projects.js';
import type { ParamValue } from '../../shared/params/index.js';
import { ArgonautError } from '../../shared/rpc/errors.js';
import type { ServiceImpl } from '../../shared/rpc/define.js';
import { APP_VERSION } from '../../shared/version.js';
import type { Engine } from '../engine/engine.js';
import { describeKernels } from '../engine/render/kernel-plan.js';
import { TRAINING_BACKWARD } from '../engine/train/trainer.js';
import type { JobManager } from '../engine/jobs/manager.js';
import { TaskManager } from '../engine/jobs/tasks.js';
import { createEditServices } from './edit-services.js';
import { createProjectServices } from './project-services.js';
import { createPartitionServices } from './partition-services.js';
import { createPathServices } from './path-services.js';
import { createTaskServices } from './task-services.js';
import { describeSettings, writeSavedSettings } from './settings.js';

const startedAt = Date.now();

/** The project services with the partition ones beside them (one `projects` service on the contract). */
function createPartitionProjectServices(engine: Engine, jobs: JobManager): Pick<ServiceImpl<Services>, 'projects' | 'train' | 'export'> {
  const services = createProjectServices(engine, jobs);
  return { ...services, projects: { ...services.projects, ...createPartitionServices(engine, jobs) } };
}

export interface HostContext {
  /** Folder of the saved settings (and the journal, the recent list). */
  stateDir: string;
  /** The GPU settings this host was started with (settings.json). */
  saved: Readonly<Record<string, ParamValue>>;
  env: NodeJS.ProcessEnv;
  /** Ends this host so its supervisor starts a fresh one (after the current reply is sent). */
  requestRestart: (reason: string) => void;
}

/**
 * The engine host's implementation of the contract. Arguments arrive already validated.
 * `tasks` runs capture, mesh and video tasks (a silent one when the caller does not follow their events).
 */
export function createServices(engine: Engine, jobs: JobManager, host: HostContext, tasks: TaskManager = new TaskManager({ emit: () => undefined })): ServiceImpl<Services> {
  return {
    ...createPartitionProjectServices(engine, jobs),
    ...createEditServices(engine, jobs),
    ...createTaskServices(engine, tasks),
    ...createPathServices(engine, jobs, tasks),
    system: {
      async ping() {
        return { pong: true as const, pid: process.pid, uptimeS: (Date.now() - startedAt) / 1000 };
      },
      async info() {
        const gpu = await engine.gpu();
        return { ...gpu.info, kernels: describeKernels(gpu, TRAINING_BACKWARD) };
      },
      async version() {
        return { app: APP_VERSION, node: process.version, platform: `${process.platform}-${process.arch}` };
      },
    },
    settings: {
      async get() {
        return describeSettings(host.saved, host.env, host.stateDir);
      },
      async apply({ params }) {
        const active = jobs.status().filter((j) => isActiveJobState(j.state));
        if (active.length) {
          throw new ArgonautError('busy', `cannot change GPU settings while ${active.map((j) => j.job).join(', ')} ${active.length === 1 ? 'trains' : 'train'}: pause or stop it first (the engine restarts to apply them)`, { jobs: active.map((j) => j.job) });
        }
        await writeSavedSettings(host.stateDir, params);
        engine.log('info', `GPU settings saved to ${describeSettings({}, host.env, host.stateDir).file}; restarting the engine to apply them`, 'settings');
        host.requestRestart('new GPU settings');
        return { restarting: true as const };
      },
    },
    dialog: {
      // Native dialogs are the desktop shell's: Electron main serves these before they reach a host.
      async open() {
        throw new ArgonautError('unavailable', 'file dialogs are part of the desktop app; in browser mode type the path on the machine that runs the engine');
      },
      async save() {
        throw new ArgonautError('unavailable', 'file dialogs are part of the desktop app; in browser mode type the path on the machine that runs the engine');
      },
    },
  };
}
