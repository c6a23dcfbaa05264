/**
 * Engine host: a plain Node process started and supervised by Electron main or the browser-mode
 * server. It owns the GPU (Dawn) and serves the contract over the parent's IPC channel.
 * A GPU device loss ends the process with EXIT_DEVICE_LOST so the supervisor restarts it with a
 * fresh device; the restarted host (ARGONAUT_HOST_RESTARTS > 0, set by the supervisor) continues
 * the training jobs its journal says were running, from their newest checkpoints. New GPU settings
 * (settings.apply) end it with EXIT_RESTART_REQUESTED: the supervisor starts a fresh one at once,
 * which opens the GPU with the saved settings.
 */
import { contract } from '../../shared/contract/index.js';
import { serve } from '../../shared/rpc/runtime.js';
import { Engine, type EngineLog } from '../engine/engine.js';
import { JobManager } from '../engine/jobs/manager.js';
import { TaskManager } from '../engine/jobs/tasks.js';
import { engineOptionsFrom } from '../engine/options.js';
import { stateDir } from '../engine/project/state.js';
import { parentTransport } from '../supervisor/child-transport.js';
import { EXIT_RESTART_REQUESTED } from '../supervisor/supervisor.js';
import { createServices } from './services.js';
import { readSavedSettings } from './settings.js';

export const EXIT_DEVICE_LOST = 75;

const state = stateDir();
// Problems reading the settings are logged once the transport can carry them.
const early: EngineLog[] = [];
const saved = await readSavedSettings(state, (message) => early.push({ level: 'warn', message, source: 'settings', timeMs: Date.now() }));
const engine = new Engine(engineOptionsFrom(saved));
const transport = parentTransport();
const jobs = new JobManager({ engine, stateDir: state, emit: (name, payload) => server.emit(name, payload as never) });
const tasks = new TaskManager({ emit: (status) => server.emit('task', status) });
const server = serve(contract, createServices(engine, jobs, { stateDir: state, saved, env: process.env, requestRestart: () => setTimeout(() => shutdown(EXIT_RESTART_REQUESTED), 50) }, tasks), transport, {
  caller: 'supervisor',
  onInternalError: (error, request) => engine.log('error', `${request.service}.${request.method}: ${(error as Error)?.stack ?? String(error)}`, 'host'),
});

engine.logs.add((entry) => server.emit('log', entry));
for (const entry of early) server.emit('log', entry);
engine.deviceLost.add((info) => {
  server.emit('deviceLost', info);
  setTimeout(() => process.exit(EXIT_DEVICE_LOST), 100);
});

void jobs.recover(Number(process.env.ARGONAUT_HOST_RESTARTS ?? 0) > 0).catch((error: unknown) => engine.log('error', `job recovery: ${String(error)}`, 'host'));

/** Jobs stop with a checkpoint (resumable), then the GPU is released. */
let exiting = false;
function shutdown(code = 0) {
  if (exiting) return;
  exiting = true;
  tasks.shutdown();
  void jobs.shutdown().finally(() => engine.dispose().finally(() => process.exit(code)));
}
transport.onClose(() => shutdown());
process.on('SIGTERM', () => shutdown());
