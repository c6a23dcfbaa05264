import { z } from 'zod';
import { ProfileReportSchema } from './profile.js';
import { JobStateSchema } from './projects.js';

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
  /** Training: the newest step's loss and PSNR (dB), the splat count and the speed. */
  loss: z.number().optional(),
  psnr: z.number().optional(),
  splats: z.number().int().optional(),
  itPerS: z.number().optional(),
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

/** A training job changed state (started, paused, resumed after a host restart, finished ...). */
export const JobEvent = z.object({
  job: z.string(),
  state: JobStateSchema,
  /** The project the job trains and its run. */
  project: z.string(),
  run: z.string().optional(),
  step: z.number().int(),
  total: z.number().int(),
  /** Why: the error of a failed job, "resumed after an engine restart", ... */
  reason: z.string().optional(),
});

/** Per-kernel GPU profile of a job (when the engine profiles: --profile / ARGONAUT_PROFILE=1). */
export const ProfileEvent = z.object({
  job: z.string(),
  step: z.number().int(),
  report: ProfileReportSchema,
});

/** Electron main asks the renderer to open a project (a double-clicked .argo, a second launch, macOS open-file). */
export const OpenProjectEvent = z.object({
  path: z.string(),
  via: z.enum(['argv', 'open-file', 'second-instance']),
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
