import { runCli } from '../../main/cli/index.js';
import { captureStreams } from './streams.js';

/**
 * The CLI in-process with `--no-gui ... --json`: its exit code, its JSON lines, the result and
 * error lines among them, and stderr. `onOutput` sees stdout as it is written (to act mid-run).
 */
export async function cliJson(argv: string[], options: { signal?: AbortSignal; onOutput?: (text: string) => void } = {}) {
  const s = captureStreams();
  const stdout = s.stdout.write;
  if (options.onOutput) s.stdout.write = (t: string) => (options.onOutput!(t), stdout(t));
  const code = await runCli(['--no-gui', ...argv, '--json'], { streams: s, signal: options.signal });
  const lines = s.jsonLines();
  return { code, lines, result: lines.find((l) => l.type === 'result'), error: lines.find((l) => l.type === 'error'), err: s.err() };
}
