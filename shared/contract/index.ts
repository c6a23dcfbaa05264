import { z } from 'zod';
import { defineContract, method } from '../rpc/define.js';
import { DeviceLostEvent, ErrorEvent, HostEvent, LogEvent, MetricsEvent, ProgressEvent, SnapshotEvent } from './events.js';
import { GpuInfoSchema } from './gpu.js';

/**
 * The one typed contract between the renderer, Electron main, the browser-mode server, the
 * engine host and the CLI. Every argument has a schema; the serving side parses it before any
 * service code runs. Services grow with the product; nothing here is declared before it is served.
 */
export const contract = defineContract({
  services: {
    system: {
      ping: method(z.object({}).strict(), z.object({ pong: z.literal(true), pid: z.number(), uptimeS: z.number() }), 'liveness check of the engine host'),
      info: method(z.object({}).strict(), GpuInfoSchema, 'the GPU adapter, backend, features and limits the engine uses'),
      version: method(z.object({}).strict(), z.object({ app: z.string(), node: z.string(), platform: z.string() }), 'versions of the engine host'),
    },
  },
  events: {
    log: LogEvent,
    progress: ProgressEvent,
    metrics: MetricsEvent,
    snapshot: SnapshotEvent,
    error: ErrorEvent,
    host: HostEvent,
    deviceLost: DeviceLostEvent,
  },
});

export type Contract = typeof contract;
export type Services = Contract['services'];
export type Events = Contract['events'];
export { GpuInfoSchema } from './gpu.js';
export type { GpuInfo, BackendChoice } from './gpu.js';
