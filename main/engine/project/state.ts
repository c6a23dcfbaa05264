/**
 * Per-user state outside any project: the recent-projects list and the engine host's job journal.
 * ARGONAUT_STATE_DIR overrides the folder (tests, portable installs); Electron main passes its
 * userData folder the same way.
 */
import { mkdir, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../formats/atomic-file.js';

export function stateDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.ARGONAUT_STATE_DIR) return path.resolve(env.ARGONAUT_STATE_DIR);
  const home = os.homedir();
  if (process.platform === 'win32') return path.join(env.APPDATA ?? path.join(home, 'AppData', 'Roaming'), 'Argonaut Studio');
  if (process.platform === 'darwin') return path.join(home, 'Library', 'Application Support', 'Argonaut Studio');
  return path.join(env.XDG_STATE_HOME ?? path.join(home, '.local', 'state'), 'argonaut');
}

const RECENT_LIMIT = 20;
const RecentFile = z.object({ version: z.literal(1), projects: z.array(z.object({ path: z.string(), openedAt: z.string() })) });
type Recent = z.infer<typeof RecentFile>;

function recentFile(dir: string): string {
  return path.join(dir, 'recent.json');
}

/** The recent projects, newest first; an unreadable list is empty (it is a convenience, never data). */
export async function readRecent(dir = stateDir()): Promise<Recent['projects']> {
  try {
    const parsed = RecentFile.safeParse(JSON.parse(await readFile(recentFile(dir), 'utf8')));
    return parsed.success ? parsed.data.projects : [];
  } catch {
    return [];
  }
}

async function writeRecent(dir: string, projects: Recent['projects']): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFileAtomic(recentFile(dir), `${JSON.stringify({ version: 1, projects: projects.slice(0, RECENT_LIMIT) } satisfies Recent, null, 2)}\n`);
}

/** Moves a project to the top of the recent list. */
export async function addRecent(file: string, dir = stateDir()): Promise<void> {
  const absolute = path.resolve(file);
  const rest = (await readRecent(dir)).filter((p) => p.path !== absolute);
  await writeRecent(dir, [{ path: absolute, openedAt: new Date().toISOString() }, ...rest]);
}

export async function removeRecent(files: readonly string[], dir = stateDir()): Promise<void> {
  if (!files.length) return;
  const gone = new Set(files.map((f) => path.resolve(f)));
  await writeRecent(dir, (await readRecent(dir)).filter((p) => !gone.has(p.path)));
}
