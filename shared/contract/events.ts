import { z } from 'zod';

/** Events that flow from the engine to every client. */
export const LogEvent = z.object({
  level: z.enum(['debug', 'info', 'warn', 'error']),
  message: z.string(),
  source: z.string(),
  timeMs: z.number(),
});

export const ProgressEvent = z.object({
  job: z.string(),
  stage: z.string(),
  step: z.number().int().optional(),
  total: z.number().int().optional(),
  fraction: z.number().min(0).max(1).optional(),
  etaS: z.number().optional(),
  message: z.string().optional(),
});

export const MetricsEvent = z.object({
  job: z.string(),
  step: z.number().int(),
  values: z.record(z.string(), z.number()),
});

/** Binary splat snapshot for the live viewer (Babylon's layout); never JSON-encoded. */
export const SnapshotEvent = z.object({
  job: z.string(),
  step: z.number().int(),
  count: z.number().int(),
  data: z.instanceof(ArrayBuffer),
});

export const ErrorEvent = z.object({
  job: z.string().optional(),
  code: z.string(),
  message: z.string(),
  details: z.unknown().optional(),
});

/** State of the engine host process as seen by its supervisor. */
export const HostEvent = z.object({
  state: z.enum(['starting', 'ready', 'crashed', 'restarting', 'stopped']),
  restarts: z.number().int(),
  reason: z.string().optional(),
});

export const DeviceLostEvent = z.object({
  reason: z.string(),
  message: z.string(),
});
