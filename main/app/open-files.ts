/**
 * Which projects a launch asks to open, and holding them until the renderer listens. Pure logic
 * (no electron import): Electron main feeds it argv (Windows, Linux, a second launch) and macOS
 * `open-file` events; tests drive it directly.
 */
import path from 'node:path';
import { PROJECT_EXTENSION } from '../../shared/project/manifest.js';

export type OpenVia = 'argv' | 'open-file' | 'second-instance';

/**
 * The user's arguments of an Electron process: packaged, argv is [app, ...args]; in development
 * it is [electron, main script, ...args]. Chromium switches Electron adds stay (callers filter).
 */
export function userArgs(argv: readonly string[], isPackaged: boolean): string[] {
  return argv.slice(isPackaged ? 1 : 2);
}

/** `--no-gui` anywhere: run the CLI without a window. */
export function isNoGui(args: readonly string[]): boolean {
  return args.includes('--no-gui');
}

/** `.argo` files named in args (flags skipped), absolute, without duplicates, in order. */
export function projectFilesFromArgs(args: readonly string[], cwd: string): string[] {
  const files: string[] = [];
  for (const arg of args) {
    if (arg.startsWith('-') || path.extname(arg).toLowerCase() !== PROJECT_EXTENSION) continue;
    const absolute = path.resolve(cwd, arg);
    if (!files.includes(absolute)) files.push(absolute);
  }
  return files;
}

/**
 * Opens requested before the renderer subscribed wait here; once `attach`ed, each goes straight
 * to the deliverer. The same path requested twice while waiting is delivered once.
 */
export class OpenQueue {
  private pending: { path: string; via: OpenVia }[] = [];
  private deliver: ((path: string, via: OpenVia) => void) | undefined;

  push(file: string, via: OpenVia): void {
    if (this.deliver) this.deliver(file, via);
    else if (!this.pending.some((p) => p.path === file)) this.pending.push({ path: file, via });
  }

  attach(deliver: (path: string, via: OpenVia) => void): void {
    this.deliver = deliver;
    for (const p of this.pending.splice(0)) deliver(p.path, p.via);
  }

  detach(): void {
    this.deliver = undefined;
  }

  get waiting(): readonly { path: string; via: OpenVia }[] {
    return this.pending;
  }
}
