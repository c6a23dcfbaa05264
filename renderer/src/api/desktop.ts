/**
 * What only the desktop app (Electron) can do: native file dialogs and the paths of dropped files.
 * In browser mode the page cannot know paths on the machine that runs the engine, so views show a
 * path field instead; these helpers say which case holds.
 */
import type { StudioClient } from './client.js';

export type DialogPurpose = 'dataset' | 'splat' | 'project' | 'folder' | 'video' | 'photos';
export type SaveFormat = 'ply' | 'splat' | 'spz' | 'sog' | 'glb' | 'obj' | 'mesh-ply';

/** True in Electron (the preload's bridge is there). */
export function isDesktop(): boolean {
  return typeof window !== 'undefined' && Boolean(window.argonautIpc);
}

/** The path of a dropped file or folder; '' in browser mode (browsers hide it). */
export function droppedPath(file: File): string {
  return isDesktop() ? window.argonautIpc!.pathForFile(file) : '';
}

/** A native open dialog; null when cancelled or outside the desktop app. */
export async function pickPath(client: StudioClient | undefined, purpose: DialogPurpose, defaultPath?: string): Promise<string | null> {
  if (!client || !isDesktop()) return null;
  return (await client.api.dialog.open({ purpose, ...(defaultPath ? { defaultPath } : {}) })).path;
}

/** A native save dialog; null when cancelled or outside the desktop app. */
export async function pickSavePath(client: StudioClient | undefined, format: SaveFormat, defaultPath?: string): Promise<string | null> {
  if (!client || !isDesktop()) return null;
  return (await client.api.dialog.save({ format, ...(defaultPath ? { defaultPath } : {}) })).path;
}
