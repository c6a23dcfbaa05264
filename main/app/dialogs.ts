/**
 * Native file dialogs for the renderer (the contract's `dialog.*`, served by Electron main: the
 * gateway validates each request before it gets here). The renderer names a purpose, never
 * filters or properties: what a dialog may pick is decided here.
 */
import type { OpenDialogOptions, SaveDialogOptions } from 'electron';
import type { z } from 'zod';
import type { DialogOpenArgs, DialogSaveArgs } from '../../shared/contract/shell.js';
import { PROJECT_EXTENSION } from '../../shared/project/manifest.js';

type OpenArgs = z.output<typeof DialogOpenArgs>;
type SaveArgs = z.output<typeof DialogSaveArgs>;

export function openDialogOptions({ purpose, defaultPath }: OpenArgs): OpenDialogOptions {
  const base = defaultPath ? { defaultPath } : {};
  switch (purpose) {
    case 'dataset':
      // A folder (COLMAP, transforms.json, NeRF-synthetic); a transforms JSON file also works.
      return { ...base, title: 'Choose a dataset folder', buttonLabel: 'Use dataset', properties: ['openDirectory'] };
    case 'splat':
      return { ...base, title: 'Choose a Gaussian-splat file', buttonLabel: 'Open', properties: ['openFile'], filters: [{ name: 'Gaussian splats (PLY, .splat, SPZ, SOG, glTF)', extensions: ['ply', 'splat', 'spz', 'sog', 'glb'] }] };
    case 'project':
      return { ...base, title: 'Open a project', buttonLabel: 'Open', properties: ['openFile'], filters: [{ name: 'Argonaut project', extensions: [PROJECT_EXTENSION.slice(1)] }] };
    case 'folder':
      return { ...base, title: 'Choose a folder for the project', buttonLabel: 'Choose', properties: ['openDirectory', 'createDirectory'] };
    case 'video':
      return { ...base, title: 'Choose a video clip', buttonLabel: 'Capture', properties: ['openFile'], filters: [{ name: 'Video', extensions: ['mp4', 'm4v', 'mov', 'mkv', 'webm', 'avi'] }] };
    case 'photos':
      return { ...base, title: 'Choose a folder of photos', buttonLabel: 'Capture', properties: ['openDirectory'] };
  }
}

const FORMAT_NAMES = { ply: '3DGS PLY', splat: 'Compact splat', spz: 'Niantic SPZ', sog: 'PlayCanvas SOG', glb: 'glTF binary', obj: 'Wavefront OBJ mesh', 'mesh-ply': 'PLY mesh' } as const;
const EXTENSIONS = { ply: 'ply', splat: 'splat', spz: 'spz', sog: 'sog', glb: 'glb', obj: 'obj', 'mesh-ply': 'ply' } as const;

export function saveDialogOptions({ format, defaultPath }: SaveArgs): SaveDialogOptions {
  return {
    ...(defaultPath ? { defaultPath } : {}),
    title: `Export as ${FORMAT_NAMES[format]}`,
    buttonLabel: 'Export',
    filters: [{ name: FORMAT_NAMES[format], extensions: [EXTENSIONS[format]] }],
    properties: ['createDirectory', 'showOverwriteConfirmation'],
  };
}

/** The slice of Electron's dialog module used here (stubbed in tests). */
export interface DialogLike {
  showOpenDialog(window: never, options: OpenDialogOptions): Promise<{ canceled: boolean; filePaths: string[] }>;
  showSaveDialog(window: never, options: SaveDialogOptions): Promise<{ canceled: boolean; filePath?: string }>;
}

/** The `dialog` service for one window (modal to it). */
export function dialogService(dialog: DialogLike, window: unknown) {
  return {
    async open(args: OpenArgs) {
      const result = await dialog.showOpenDialog(window as never, openDialogOptions(args));
      return { path: result.canceled ? null : (result.filePaths[0] ?? null) };
    },
    async save(args: SaveArgs) {
      const result = await dialog.showSaveDialog(window as never, saveDialogOptions(args));
      return { path: result.canceled || !result.filePath ? null : result.filePath };
    },
  };
}
