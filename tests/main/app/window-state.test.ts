import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SIZE, initialBounds, loadWindowState, MIN_SIZE, saveWindowState, windowStateFile, type WindowState } from '../../../main/app/window-state.js';
import { tempDir } from '../../helpers/datasets.js';

const screen = { x: 0, y: 0, width: 1920, height: 1080 };
const state = (x: number, y: number, width = 1200, height = 800): WindowState => ({ version: 1, bounds: { x, y, width, height }, maximized: false });

describe('window state', () => {
  it('opens at the default size, unpositioned, the first time', () => {
    expect(initialBounds(undefined, [screen])).toEqual(DEFAULT_SIZE);
  });

  it('restores saved bounds that are on a display', () => {
    expect(initialBounds(state(100, 50), [screen])).toEqual({ x: 100, y: 50, width: 1200, height: 800 });
    // On a second monitor to the right.
    expect(initialBounds(state(2000, 100), [screen, { x: 1920, y: 0, width: 2560, height: 1440 }])).toEqual({ x: 2000, y: 100, width: 1200, height: 800 });
  });

  it('keeps the size but drops the position when the window would be off every display (a monitor unplugged)', () => {
    expect(initialBounds(state(2000, 100), [screen])).toEqual({ width: 1200, height: 800 });
    // Title bar above the top edge: unreachable.
    expect(initialBounds(state(100, -500), [screen])).toEqual({ width: 1200, height: 800 });
  });

  it('never restores below the minimum size', () => {
    expect(initialBounds(state(10, 10, 300, 200), [screen])).toEqual({ x: 10, y: 10, ...MIN_SIZE });
  });

  it('saves and loads; a missing or corrupt file is no state', async () => {
    const dir = await tempDir('window-state');
    const file = windowStateFile(dir);
    expect(await loadWindowState(file)).toBeUndefined();
    await saveWindowState(file, { x: 10.4, y: 20.6, width: 1000, height: 700 }, true);
    expect(await loadWindowState(file)).toEqual({ version: 1, bounds: { x: 10, y: 21, width: 1000, height: 700 }, maximized: true });
    await writeFile(file, '{"version":1,"bounds":{"x":"left"}}');
    expect(await loadWindowState(file)).toBeUndefined();
    await writeFile(path.join(dir, 'window-state.json'), 'not json');
    expect(await loadWindowState(file)).toBeUndefined();
  });
});
