/**
 * The main window's size, position and maximized state, kept across launches in a small JSON file
 * in Electron's userData folder. Restored bounds must still be visible: a window saved on a monitor
 * that is gone comes back at the default size, centred by the OS. Pure except for the file I/O.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

const WindowStateSchema = z.object({
  version: z.literal(1),
  bounds: z.object({ x: z.number().int(), y: z.number().int(), width: z.number().int().positive(), height: z.number().int().positive() }),
  maximized: z.boolean(),
});
export type WindowState = z.infer<typeof WindowStateSchema>;

export const DEFAULT_SIZE = { width: 1440, height: 900 } as const;
export const MIN_SIZE = { width: 960, height: 600 } as const;
/** The window's top strip (its title bar) must overlap some display by this much (px²) to be reachable. */
const TITLE_BAR = { height: 32, minVisibleArea: 64 * 16 } as const;

/**
 * The BrowserWindow bounds to open with: the saved ones when enough of the window's top lies on a
 * display (clamped to the minimum size), else the default size with no position (the OS centres it).
 */
export function initialBounds(saved: WindowState | undefined, workAreas: readonly Rect[]): Partial<Rect> & { width: number; height: number } {
  if (!saved) return { ...DEFAULT_SIZE };
  const width = Math.max(MIN_SIZE.width, saved.bounds.width);
  const height = Math.max(MIN_SIZE.height, saved.bounds.height);
  const top = { x: saved.bounds.x, y: saved.bounds.y, width, height: TITLE_BAR.height };
  const visible = workAreas.some((area) => overlap(top, area) >= TITLE_BAR.minVisibleArea);
  return visible ? { x: saved.bounds.x, y: saved.bounds.y, width, height } : { width, height };
}

function overlap(a: Rect, b: Rect): number {
  const w = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  return w > 0 && h > 0 ? w * h : 0;
}

export function windowStateFile(userData: string): string {
  return path.join(userData, 'window-state.json');
}

/** The saved state; undefined when there is none or it does not parse (it is a convenience, never data). */
export async function loadWindowState(file: string): Promise<WindowState | undefined> {
  try {
    const parsed = WindowStateSchema.safeParse(JSON.parse(await readFile(file, 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

export async function saveWindowState(file: string, bounds: Rect, maximized: boolean): Promise<void> {
  const state: WindowState = { version: 1, bounds: { x: Math.round(bounds.x), y: Math.round(bounds.y), width: Math.round(bounds.width), height: Math.round(bounds.height) }, maximized };
  await mkdir(path.dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  await writeFile(temp, `${JSON.stringify(state)}\n`);
  await rename(temp, file);
}
