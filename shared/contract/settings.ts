import { z } from 'zod';
import { allParams, paramsSchema, type ParamDef } from '../params/index.js';

/**
 * The engine host's GPU settings: the registry's `system.*` parameters (backend, adapter, kernel
 * variant, profiling). The host runs with saved values (settings.apply) over environment variables
 * over defaults; the CLI keeps its own flags and environment and never reads the saved file.
 */
export function systemParamDefs(): ParamDef[] {
  return allParams().filter((p) => p.key.startsWith('system.'));
}

export const SettingsParamsSchema = paramsSchema(systemParamDefs());

export const SETTING_SOURCES = ['saved', 'env', 'default'] as const;
export const SettingSourceSchema = z.enum(SETTING_SOURCES);
export type SettingSource = z.infer<typeof SettingSourceSchema>;

export const SettingsResult = z.object({
  /** Every system.* parameter as the running host uses it. */
  params: z.record(z.string(), z.union([z.number(), z.boolean(), z.string()])),
  /** Where each value came from. */
  sources: z.record(z.string(), SettingSourceSchema),
  /** The file saved settings live in (per user, beside the recent-projects list). */
  file: z.string(),
});
export type Settings = z.infer<typeof SettingsResult>;

export const SettingsApplyArgs = z.object({
  /** The values to save; keys left out fall back to the environment, then the default ({} resets all). */
  params: SettingsParamsSchema,
}).strict();

export const SettingsApplyResult = z.object({
  /** The host restarts to open the GPU with the new settings; the `host` event follows it to ready. */
  restarting: z.literal(true),
});
