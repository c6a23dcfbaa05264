import { chmod, mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findOnPath, findTool, installHint, parseColmapVersion, parseFfmpegVersion } from '../../../../main/engine/capture/tools.js';
import { ArgonautError } from '../../../../shared/rpc/errors.js';
import { tempDir } from '../../../helpers/datasets.js';

const temps: string[] = [];
afterAll(async () => Promise.all(temps.map((t) => rm(t, { recursive: true, force: true }))));

async function binDir(names: string[]): Promise<string> {
  const dir = await tempDir('tools');
  temps.push(dir);
  for (const name of names) {
    await writeFile(path.join(dir, name), '#!/bin/sh\n');
    await chmod(path.join(dir, name), 0o755);
  }
  return dir;
}

function failure(fn: () => unknown): ArgonautError {
  try {
    fn();
  } catch (error) {
    return error as ArgonautError;
  }
  throw new Error('expected a failure');
}

describe.skipIf(process.platform === 'win32')('finding ffmpeg and COLMAP', () => {
  it('searches PATH, skipping folders where the name is not an executable file', async () => {
    const bin = await binDir(['colmap']);
    const other = await tempDir('tools-plain');
    temps.push(other);
    await writeFile(path.join(other, 'colmap'), 'not executable'); // mode 644
    await mkdir(path.join(other, 'ffmpeg')); // a folder, not a program
    const env = { PATH: [other, bin].join(path.delimiter) };
    expect(findOnPath('colmap', env)).toBe(path.join(bin, 'colmap'));
    expect(findOnPath('ffmpeg', env)).toBeNull();
    expect(findTool('colmap', env)).toEqual({ name: 'colmap', path: path.join(bin, 'colmap'), via: 'PATH' });
  });

  it('with PATH emptied, says what is missing, what it is for and how to install it on this OS', () => {
    const colmap = failure(() => findTool('colmap', { PATH: '' }));
    expect(colmap.code).toBe('unavailable');
    expect(colmap.message).toMatch(/^colmap was not found on PATH \(nor in ARGONAUT_COLMAP\); it is needed for structure from motion/);
    expect(colmap.message).toContain(installHint('colmap'));
    const ffmpeg = failure(() => findTool('ffmpeg', { PATH: '' }));
    expect(ffmpeg.message).toMatch(/^ffmpeg was not found on PATH \(nor in ARGONAUT_FFMPEG\); it is needed for reading video files/);
    if (process.platform === 'linux') expect(ffmpeg.message).toContain('sudo apt-get install ffmpeg');
  });

  it('gives per-OS install hints', () => {
    expect(installHint('ffmpeg', 'darwin')).toBe('macOS: brew install ffmpeg');
    expect(installHint('ffprobe', 'win32')).toMatch(/winget install Gyan\.FFmpeg/);
    expect(installHint('colmap', 'linux')).toMatch(/apt-get install colmap/);
    expect(installHint('colmap', 'freebsd')).toMatch(/brew install colmap/); // unknown OS: every hint
  });

  it('prefers the environment variable, refuses one that points nowhere, and finds ffprobe beside ARGONAUT_FFMPEG', async () => {
    const bin = await binDir(['ffmpeg', 'ffprobe', 'my-colmap']);
    expect(findTool('colmap', { PATH: '', ARGONAUT_COLMAP: path.join(bin, 'my-colmap') })).toMatchObject({ path: path.join(bin, 'my-colmap'), via: 'ARGONAUT_COLMAP' });
    const wrong = failure(() => findTool('colmap', { PATH: bin, ARGONAUT_COLMAP: '/no/such/colmap' }));
    expect(wrong.message).toMatch(/ARGONAUT_COLMAP is set to "\/no\/such\/colmap", which is not an executable file/);
    expect(findTool('ffprobe', { PATH: '', ARGONAUT_FFMPEG: path.join(bin, 'ffmpeg') })).toMatchObject({ path: path.join(bin, 'ffprobe'), via: 'ARGONAUT_FFMPEG' });
  });
});

describe('version banners', () => {
  it('reads COLMAP and ffmpeg versions as they print them', () => {
    expect(parseColmapVersion('COLMAP 3.8 -- Structure-from-Motion and Multi-View Stereo')).toEqual([3, 8, 0]);
    expect(parseColmapVersion('COLMAP 3.13.0.dev0 -- Structure-from-Motion')).toEqual([3, 13, 0]);
    expect(parseColmapVersion('something else')).toBeNull();
    expect(parseFfmpegVersion('ffmpeg version 5.1.9-0+deb12u1 Copyright (c) 2000-2026 the FFmpeg developers')).toBe('5.1.9-0+deb12u1');
  });
});
