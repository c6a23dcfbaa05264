/**
 * The engine host's saved GPU settings (settings.get / settings.apply): a small JSON file in the
 * per-user state folder. The host opens the GPU with saved values over environment variables over
 * defaults (the registry's precedence, saved values playing the part of explicit flags). Changing
 * them restarts the host: Dawn picks its adapter once per process, and a fresh process is the one
 * way to be sure nothing of the old device survives.
 */
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { SettingsParamsSchema, systemParamDefs, type Settings, type SettingSource } from '../../shared/contract/settings.js';
import { resolveParams, type ParamValue } from '../../shared/params/index.js';
import { writeFileAtomic } from '../engine/formats/atomic-file.js';

const SettingsFile = z.object({ version: z.literal(1), params: SettingsParamsSchema });

export function settingsFile(stateDir: string): string {
  return path.join(stateDir, 'settings.json');
}

/**
 * The saved values; none when there is no file. A file that does not parse is reported through
 * `warn` (naming it and the problem) and ignored: the host still starts, on env and defaults.
 */
export async function readSavedSettings(stateDir: string, warn: (message: string) => void): Promise<Record<string, ParamValue>> {
  const file = settingsFile(stateDir);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') warn(`${file}: cannot read saved GPU settings (${(error as Error).message}); using the environment and defaults`);
    return {};
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    warn(`${file}: not JSON (${(error as Error).message}); using the environment and defaults`);
    return {};
  }
  const parsed = SettingsFile.safeParse(json);
  if (!parsed.success) {
    warn(`${file}: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(file)'}: ${i.message}`).join('; ')}; using the environment and defaults`);
    return {};
  }
  return Object.fromEntries(Object.entries(parsed.data.params).filter((e): e is [string, ParamValue] => e[1] !== undefined));
}

export async function writeSavedSettings(stateDir: string, params: Readonly<Record<string, ParamValue | undefined>>): Promise<void> {
  const defined = Object.fromEntries(Object.entries(params).filter(([, v]) => v !== undefined));
  await mkdir(stateDir, { recursive: true });
  await writeFileAtomic(settingsFile(stateDir), `${JSON.stringify({ version: 1, params: defined }, null, 2)}\n`);
}

/** What the host runs with and where each value came from. */
export function describeSettings(saved: Readonly<Record<string, ParamValue>>, env: NodeJS.ProcessEnv, stateDir: string): Settings {
  const defs = systemParamDefs();
  const params = resolveParams(defs, saved, { env });
  const sources: Record<string, SettingSource> = {};
  for (const def of defs) sources[def.key] = Object.hasOwn(saved, def.key) ? 'saved' : def.env && env[def.env] !== undefined ? 'env' : 'default';
  return { params, sources, file: settingsFile(stateDir) };
}
