/**
 * The packaged app's `--no-gui`: Electron main runs the CLI bundle with the bundled Node (the
 * engine needs plain Node, see docs/architecture.md), no window, stdio passed through, and exits
 * with the CLI's code. Ctrl+C reaches the CLI (which saves a checkpoint and exits 130).
 */
import { spawn } from 'node:child_process';

export interface NoGuiOptions {
  nodePath: string;
  cliScript: string;
  args: readonly string[];
  env?: NodeJS.ProcessEnv;
}

export function runCliWithoutWindow(options: NoGuiOptions): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(options.nodePath, [options.cliScript, ...options.args], {
      stdio: 'inherit',
      env: { ...process.env, ...options.env, ELECTRON_RUN_AS_NODE: '1' },
      windowsHide: true,
    });
    const forward = (signal: NodeJS.Signals) => () => {
      if (child.exitCode === null) child.kill(signal);
    };
    const onInt = forward('SIGINT');
    const onTerm = forward('SIGTERM');
    process.on('SIGINT', onInt);
    process.on('SIGTERM', onTerm);
    const done = (code: number) => {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
      resolve(code);
    };
    child.once('error', (error) => {
      process.stderr.write(`argonaut: could not start the bundled Node runtime ${options.nodePath}: ${error.message}\n`);
      done(1);
    });
    child.once('exit', (code, signal) => done(code ?? (signal === 'SIGINT' ? 130 : 1)));
  });
}
