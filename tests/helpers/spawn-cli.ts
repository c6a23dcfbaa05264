/** The built CLI as a real child process, for tests that kill it. */
import { spawn, type ChildProcess } from 'node:child_process';
import { builtFile } from './build.js';

export interface CliProcess {
  child: ChildProcess;
  /** JSON lines printed so far. */
  lines: Record<string, unknown>[];
  stderr: () => string;
  /** Resolves with the first line matching, or rejects on exit / timeout. */
  waitForLine(match: (line: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function spawnCli(args: string[], env: NodeJS.ProcessEnv = {}): CliProcess {
  const child = spawn(process.execPath, [builtFile('cli/index.mjs'), '--no-gui', ...args, '--json'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: Record<string, unknown>[] = [];
  let stderr = '';
  let buffer = '';
  const waiters = new Set<() => void>();
  child.stdout!.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    let nl;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, nl).trim();
      buffer = buffer.slice(nl + 1);
      if (line) lines.push(JSON.parse(line) as Record<string, unknown>);
    }
    for (const w of waiters) w();
  });
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => {
    for (const w of waiters) w();
    resolve({ code, signal });
  }));
  return {
    child,
    lines,
    stderr: () => stderr,
    exited,
    waitForLine(match, timeoutMs = 120_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => done(new Error(`no matching line within ${timeoutMs} ms; stderr:\n${stderr.slice(-2000)}`)), timeoutMs);
        const check = () => {
          const found = lines.find(match);
          if (found) done(undefined, found);
          else if (child.exitCode !== null || child.signalCode !== null) done(new Error(`the CLI exited (${child.exitCode ?? child.signalCode}) before a matching line; stderr:\n${stderr.slice(-2000)}`));
        };
        const done = (error?: Error, line?: Record<string, unknown>) => {
          clearTimeout(timer);
          waiters.delete(check);
          if (error) reject(error);
          else resolve(line!);
        };
        waiters.add(check);
        check();
      });
    },
  };
}

