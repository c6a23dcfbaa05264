import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runTool } from '../../../../main/engine/capture/tool-process.js';
import { ArgonautError } from '../../../../shared/rpc/errors.js';
import { isAlive } from '../../../helpers/capture.js';
import { tempDir } from '../../../helpers/datasets.js';

const temps: string[] = [];
afterAll(async () => Promise.all(temps.map((t) => rm(t, { recursive: true, force: true }))));
const node = process.execPath;

describe('running an external tool', () => {
  it('splits both streams into lines (\\r too), logs them, keeps the tail and returns the exit code', async () => {
    const dir = await tempDir('tool');
    temps.push(dir);
    const lines: string[] = [];
    const logFile = path.join(dir, 'run.log');
    const result = await runTool({
      file: node,
      args: ['-e', "process.stdout.write('a\\nb\\rc\\n'); process.stderr.write('oops\\n'); process.exitCode = 3"],
      logFile,
      onLine: (line, stream) => lines.push(`${stream}:${line}`),
    });
    expect(result.code).toBe(3);
    expect(lines.sort()).toEqual(['stderr:oops', 'stdout:a', 'stdout:b', 'stdout:c']);
    expect(result.tail.sort()).toEqual(['a', 'b', 'c', 'oops']);
    const log = await readFile(logFile, 'utf8');
    expect(log.split('\n')[0]).toMatch(/^\$ .*node.* -e /);
    expect(log).toContain('oops');
  });

  it('cancel kills the process, waiting for SIGKILL when SIGTERM is ignored, and rejects with cancelled', async () => {
    const controller = new AbortController();
    let pid = 0;
    const started = Date.now();
    const run = runTool({
      file: node,
      args: ['-e', "process.on('SIGTERM', () => {}); console.log('ready'); setInterval(() => {}, 1000)"],
      signal: controller.signal,
      killGraceMs: 300,
      onStart: (p) => (pid = p),
      onLine: (line) => line === 'ready' && controller.abort(),
    });
    const error = (await run.catch((e: unknown) => e)) as ArgonautError;
    expect(error).toBeInstanceOf(ArgonautError);
    expect(error.code).toBe('cancelled');
    expect(isAlive(pid)).toBe(false);
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
  });

  it('does not start when already cancelled; a missing program is unavailable', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(runTool({ file: node, args: ['-e', ''], signal: controller.signal })).rejects.toMatchObject({ code: 'cancelled' });
    await expect(runTool({ file: '/no/such/program', args: [] })).rejects.toMatchObject({ code: 'unavailable', message: expect.stringMatching(/cannot start \/no\/such\/program/) });
  });
});
