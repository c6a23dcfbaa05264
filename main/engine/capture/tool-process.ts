/**
 * Runs one external tool (ffmpeg, COLMAP) to completion: output split into lines for progress
 * parsers, copied to a log file, its tail kept for error messages; an AbortSignal kills it
 * (SIGTERM, then SIGKILL after a grace period) and the promise settles only once the process has
 * exited, so a cancelled capture never leaves a tool running behind it.
 */
import { spawn } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import { ArgonautError } from '../../../shared/rpc/errors.js';

export interface ToolRun {
  /** Executable path. */
  file: string;
  args: readonly string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  /** Called with each text line of stdout (unless onStdoutData takes stdout) and stderr. */
  onLine?: (line: string, stream: 'stdout' | 'stderr') => void;
  /** Raw stdout bytes (binary pipes); stdout lines are then not parsed or logged. */
  onStdoutData?: (chunk: Buffer) => void;
  /** Appends the command line and every text line here. */
  logFile?: string;
  /** Told the process id once it started. */
  onStart?: (pid: number) => void;
  /** Milliseconds between SIGTERM and SIGKILL on cancel. Default 3000. */
  killGraceMs?: number;
}

export interface ToolResult {
  code: number;
  /** The last lines of text output (both streams), for error messages. */
  tail: string[];
}

const TAIL_LINES = 40;

/** Quotes an argument for a log line only (never passed to a shell). */
function shellQuote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

export function commandLine(file: string, args: readonly string[]): string {
  return [file, ...args].map(shellQuote).join(' ');
}

/**
 * Resolves with the exit code (non-zero included: the caller words the failure); rejects with
 * `cancelled` when the signal fired, with `unavailable` when the program cannot be started.
 */
export function runTool(run: ToolRun): Promise<ToolResult> {
  if (run.signal?.aborted) return Promise.reject(new ArgonautError('cancelled', 'cancelled'));
  return new Promise((resolve, reject) => {
    let log: WriteStream | undefined;
    if (run.logFile) {
      log = createWriteStream(run.logFile, { flags: 'a' });
      log.on('error', () => (log = undefined)); // a log that cannot be written must not fail the run
      log.write(`$ ${commandLine(run.file, run.args)}\n`);
    }
    const tail: string[] = [];
    const child = spawn(run.file, [...run.args], { cwd: run.cwd, env: run.env, stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true });
    let cancelled = false;
    let killTimer: NodeJS.Timeout | undefined;
    const onAbort = (): void => {
      cancelled = true;
      child.kill('SIGTERM');
      killTimer = setTimeout(() => child.kill('SIGKILL'), run.killGraceMs ?? 3000);
    };
    run.signal?.addEventListener('abort', onAbort, { once: true });

    const lineSplitter = (stream: 'stdout' | 'stderr') => {
      let pending = '';
      return {
        push(chunk: Buffer) {
          pending += chunk.toString('utf8');
          // COLMAP and ffmpeg redraw some lines with \r: treat it as a line end too.
          const parts = pending.split(/\r\n|\n|\r/);
          pending = parts.pop() ?? '';
          for (const line of parts) emit(line, stream);
        },
        flush() {
          if (pending) emit(pending, stream);
          pending = '';
        },
      };
    };
    const emit = (line: string, stream: 'stdout' | 'stderr'): void => {
      log?.write(`${line}\n`);
      if (line.trim()) {
        tail.push(line);
        if (tail.length > TAIL_LINES) tail.shift();
      }
      run.onLine?.(line, stream);
    };
    const out = lineSplitter('stdout');
    const err = lineSplitter('stderr');
    if (run.onStdoutData) child.stdout.on('data', run.onStdoutData);
    else child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));

    let spawnError: Error | undefined;
    child.on('error', (error) => (spawnError = error));
    child.on('spawn', () => {
      if (child.pid !== undefined) run.onStart?.(child.pid);
    });
    child.on('close', (code, signal) => {
      out.flush();
      err.flush();
      if (killTimer) clearTimeout(killTimer);
      run.signal?.removeEventListener('abort', onAbort);
      const finish = (): void => {
        if (cancelled) reject(new ArgonautError('cancelled', 'cancelled'));
        else if (spawnError) reject(new ArgonautError('unavailable', `cannot start ${run.file}: ${spawnError.message}`, { tool: run.file }));
        else resolve({ code: code ?? (signal ? 128 : 1), tail });
      };
      if (log) log.end(finish);
      else finish();
    });
  });
}
