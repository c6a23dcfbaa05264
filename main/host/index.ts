/**
 * Engine host: a plain Node process started and supervised by Electron main or the browser-mode
 * server. It owns the GPU (Dawn) and serves the contract over the parent's IPC channel.
 * A GPU device loss ends the process with EXIT_DEVICE_LOST so the supervisor restarts it with a
 * fresh device; jobs resume from their last checkpoint.
 */
import { contract } from '../../shared/contract/index.js';
import { serve } from '../../shared/rpc/runtime.js';
import { Engine } from '../engine/engine.js';
import { engineOptionsFrom } from '../engine/options.js';
import { parentTransport } from '../supervisor/child-transport.js';
import { createServices } from './services.js';

export const EXIT_DEVICE_LOST = 75;

const engine = new Engine(engineOptionsFrom());
const transport = parentTransport();
const server = serve(contract, createServices(engine), transport, {
  caller: 'supervisor',
  onInternalError: (error, request) => engine.log('error', `${request.service}.${request.method}: ${(error as Error)?.stack ?? String(error)}`, 'host'),
});

engine.logs.add((entry) => server.emit('log', entry));
engine.deviceLost.add((info) => {
  server.emit('deviceLost', info);
  setTimeout(() => process.exit(EXIT_DEVICE_LOST), 100);
});

transport.onClose(() => {
  void engine.dispose().finally(() => process.exit(0));
});
process.on('SIGTERM', () => {
  void engine.dispose().finally(() => process.exit(0));
});
