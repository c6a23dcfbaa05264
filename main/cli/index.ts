/**
 * argonaut: the CLI entry. `--no-gui <command>` runs the engine in this process (plain Node);
 * without it the studio starts (Electron, or browser mode where Electron is unavailable).
 */
import { paramsForCommand } from '../../shared/params/index.js';
import { ArgonautError, toErrorEnvelope } from '../../shared/rpc/errors.js';
import { APP_VERSION } from '../../shared/version.js';
import { engineOptionsFrom } from '../engine/options.js';
import { parseArgs, UsageError } from './args.js';
import type { CommandSpec } from './command.js';
import { benchCommand } from './commands/bench.js';
import { captureCommand } from './commands/capture.js';
import { cleanCommand } from './commands/clean.js';
import { editCommand } from './commands/edit.js';
import { exportCommand } from './commands/export.js';
import { importCommand } from './commands/import.js';
import { infoCommand } from './commands/info.js';
import { meshCommand } from './commands/mesh.js';
import { partitionCommand } from './commands/partition.js';
import { renderCommand } from './commands/render.js';
import { trainCommand } from './commands/train.js';
import { workerCommand } from './commands/worker.js';
import { EXIT, exitCodeFor } from './exit-codes.js';
import { commandHelp, globalHelp } from './help.js';
import { Output, type Streams } from './output.js';
import { runBrowserMode, runStudio } from './studio.js';

export const COMMANDS: readonly CommandSpec[] = [infoCommand, captureCommand, importCommand, partitionCommand, trainCommand, renderCommand, meshCommand, editCommand, cleanCommand, exportCommand, benchCommand, workerCommand];

export interface RunOptions {
  streams?: Streams;
  signal?: AbortSignal;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
}

export async function runCli(argv: readonly string[], run: RunOptions = {}): Promise<number> {
  const streams = run.streams ?? { stdout: process.stdout, stderr: process.stderr };
  const signal = run.signal ?? new AbortController().signal;
  const json = argv.includes('--json');
  const out = new Output(json, streams);
  try {
    if (argv.includes('--version')) {
      out.result({ version: APP_VERSION }, `argonaut ${APP_VERSION}`);
      return EXIT.ok;
    }
    const noGui = argv.includes('--no-gui');
    const rest = argv.filter((a) => a !== '--no-gui');
    if (!noGui) {
      if (rest.includes('--help') || rest.includes('-h')) {
        out.text(globalHelp(COMMANDS));
        return EXIT.ok;
      }
      if (rest.includes('--browser')) {
        const parsed = parseArgs(rest.filter((a) => a !== '--browser'), [{ flag: 'port', type: 'int', help: '' }, { flag: 'json', type: 'bool', help: '' }], []);
        const port = parsed.options.port as number | undefined;
        if (port !== undefined && (port < 0 || port > 65535)) throw new UsageError(`--port: ${port} is not a TCP port`);
        return await runBrowserMode(out, port, signal);
      }
      return await runStudio(out, rest, signal);
    }
    const [name, ...commandArgv] = rest;
    if (!name || name === '--help' || name === '-h') {
      out.text(globalHelp(COMMANDS));
      return name ? EXIT.ok : EXIT.usage;
    }
    const command = COMMANDS.find((c) => c.name === name);
    if (!command) throw new UsageError(`unknown command "${name}" (commands: ${COMMANDS.map((c) => c.name).join(', ')})`);
    if (commandArgv.includes('--help') || commandArgv.includes('-h')) {
      out.text(commandHelp(command));
      return EXIT.ok;
    }
    const params = [...paramsForCommand('*'), ...(command.params?.() ?? [])];
    const parsed = parseArgs(commandArgv, command.options, params);
    const code = await command.run({
      positionals: parsed.positionals,
      options: parsed.options,
      params: parsed.params,
      engineOptions: engineOptionsFrom(parsed.params, run.env ?? process.env),
      out,
      streams,
      signal,
      cwd: run.cwd ?? process.cwd(),
    });
    return code ?? EXIT.ok;
  } catch (error) {
    if (error instanceof UsageError) {
      out.warn(`argonaut: ${error.message}`);
      if (json) out.event('error', { code: 'usage', message: error.message });
      return EXIT.usage;
    }
    const envelope = toErrorEnvelope(error);
    out.warn(`argonaut: ${envelope.message}`);
    if (json) out.event('error', { ...envelope });
    if (!(error instanceof ArgonautError) && process.env.ARGONAUT_DEBUG) out.warn(String((error as Error)?.stack));
    return exitCodeFor(envelope.code);
  }
}

/** Process entry: wires SIGINT to cancellation and exits with the command's code. */
export async function main(): Promise<void> {
  const controller = new AbortController();
  let interrupts = 0;
  process.on('SIGINT', () => {
    interrupts += 1;
    if (interrupts > 1) process.exit(EXIT.interrupted);
    controller.abort();
  });
  const code = await runCli(process.argv.slice(2), { signal: controller.signal });
  process.exit(code);
}
