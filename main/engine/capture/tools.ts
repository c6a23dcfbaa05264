/**
 * The external programs capture runs (ffmpeg, ffprobe, COLMAP): where they are, which version, and
 * what to do when one is missing. An explicit environment variable wins (ARGONAUT_FFMPEG,
 * ARGONAUT_FFPROBE, ARGONAUT_COLMAP), else PATH is searched here rather than left to spawn, so a
 * missing tool is an `unavailable` error that says how to install it on this OS, not an ENOENT.
 */
import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';
import { ArgonautError } from '../../../shared/rpc/errors.js';

export type ToolName = 'ffmpeg' | 'ffprobe' | 'colmap';

export interface ToolLocation {
  name: ToolName;
  /** Absolute path of the executable. */
  path: string;
  /** Where it was found: the environment variable's name, or "PATH". */
  via: string;
}

const ENV_VARIABLE: Record<ToolName, string> = { ffmpeg: 'ARGONAUT_FFMPEG', ffprobe: 'ARGONAUT_FFPROBE', colmap: 'ARGONAUT_COLMAP' };

/** How to install each tool, per platform (process.platform values). */
const INSTALL: Record<'ffmpeg' | 'colmap', Record<string, string>> = {
  ffmpeg: {
    linux: 'Debian/Ubuntu: sudo apt-get install ffmpeg; Fedora: sudo dnf install ffmpeg (RPM Fusion); Arch: sudo pacman -S ffmpeg',
    darwin: 'macOS: brew install ffmpeg',
    win32: 'Windows: winget install Gyan.FFmpeg (or download a build from https://ffmpeg.org/download.html and add its bin folder to PATH)',
  },
  colmap: {
    linux: 'Debian/Ubuntu: sudo apt-get install colmap; elsewhere: conda install -c conda-forge colmap, or build from https://colmap.github.io/install.html',
    darwin: 'macOS: brew install colmap',
    win32: 'Windows: download the release zip from https://github.com/colmap/colmap/releases and add its folder to PATH (or set ARGONAUT_COLMAP to COLMAP.bat)',
  },
};

export function installHint(tool: ToolName, platform: string = process.platform): string {
  const table = INSTALL[tool === 'ffprobe' ? 'ffmpeg' : tool];
  return table[platform] ?? Object.values(table).join('; ');
}

function isExecutableFile(file: string): boolean {
  try {
    if (!statSync(file).isFile()) return false;
    if (process.platform !== 'win32') accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** `name` on the PATH of `env` (with PATHEXT on Windows), or null. */
export function findOnPath(name: string, env: NodeJS.ProcessEnv = process.env): string | null {
  const pathValue = env.PATH ?? env.Path ?? '';
  const extensions = process.platform === 'win32' ? ['', ...(env.PATHEXT ?? '.EXE;.BAT;.CMD').split(';').filter(Boolean)] : [''];
  for (const dir of pathValue.split(path.delimiter)) {
    if (!dir) continue;
    for (const ext of extensions) {
      const candidate = path.join(dir, name + ext);
      if (isExecutableFile(candidate)) return candidate;
    }
  }
  return null;
}

/**
 * Finds a tool or throws `unavailable` with install instructions. ffprobe also looks beside
 * ARGONAUT_FFMPEG, since the two ship together.
 */
export function findTool(name: ToolName, env: NodeJS.ProcessEnv = process.env): ToolLocation {
  const variable = ENV_VARIABLE[name];
  const explicit = env[variable];
  if (explicit) {
    if (isExecutableFile(explicit)) return { name, path: path.resolve(explicit), via: variable };
    throw new ArgonautError('unavailable', `${variable} is set to "${explicit}", which is not an executable file. Point it at the ${name} program, or unset it to search PATH.`, { tool: name });
  }
  if (name === 'ffprobe' && env.ARGONAUT_FFMPEG) {
    const sibling = path.join(path.dirname(env.ARGONAUT_FFMPEG), `ffprobe${path.extname(env.ARGONAUT_FFMPEG)}`);
    if (isExecutableFile(sibling)) return { name, path: path.resolve(sibling), via: 'ARGONAUT_FFMPEG' };
  }
  const found = findOnPath(name, env);
  if (found) return { name, path: found, via: 'PATH' };
  const purpose = name === 'colmap' ? 'structure from motion (camera poses from images)' : 'reading video files';
  throw new ArgonautError(
    'unavailable',
    `${name} was not found on PATH (nor in ${variable}); it is needed for ${purpose}. Install it (${installHint(name)}), or set ${variable} to its executable.`,
    { tool: name },
  );
}

/** "COLMAP 3.8 -- ..." / "COLMAP 3.13.0.dev0 -- ..." -> [major, minor, patch]. */
export function parseColmapVersion(text: string): [number, number, number] | null {
  const m = /COLMAP\s+(\d+)\.(\d+)(?:\.(\d+))?/.exec(text);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)] : null;
}

/** "ffmpeg version 5.1.9-0+deb12u1 ..." -> "5.1.9-0+deb12u1". */
export function parseFfmpegVersion(text: string): string | null {
  return /ffmpeg version (\S+)/.exec(text)?.[1] ?? null;
}
