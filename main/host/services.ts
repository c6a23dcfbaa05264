import type { Services } from '../../shared/contract/index.js';
import type { ServiceImpl } from '../../shared/rpc/define.js';
import { APP_VERSION } from '../../shared/version.js';
import type { Engine } from '../engine/engine.js';
import type { JobManager } from '../engine/jobs/manager.js';
import { createProjectServices } from './project-services.js';

const startedAt = Date.now();

/** The engine host's implementation of the contract. Arguments arrive already validated. */
export function createServices(engine: Engine, jobs: JobManager): ServiceImpl<Services> {
  return {
    ...createProjectServices(engine, jobs),
    system: {
      async ping() {
        return { pong: true as const, pid: process.pid, uptimeS: (Date.now() - startedAt) / 1000 };
      },
      async info() {
        return (await engine.gpu()).info;
      },
      async version() {
        return { app: APP_VERSION, node: process.version, platform: `${process.platform}-${process.arch}` };
      },
    },
  };
}
