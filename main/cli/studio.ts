import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { startBrowserServer } from '../browser/server.js';
import type { Output } from './output.js';
import { electronMain, findElectron, hostScript, rendererDir } from './paths.js';

/** `argonaut --browser [--port P]`: serve the studio on 127.0.0.1 and print the URL. */
export async function runBrowserMode(out: Output, port: number | undefined, signal: AbortSignal): Promise<number> {
  for (const [what, where] of [
    ['engine host', hostScript()],
    ['renderer', rendererDir()],
  ]) {
    if (!existsSync(where)) {
      out.warn(`argonaut: the ${what} is not built (${where} missing). Run \`npm run build\` (npm install does it).`);
      return 1;
    }
  }
  const server = await startBrowserServer({
    port,
    rendererDir: rendererDir(),
    supervisor: { hostScript: hostScript() },
    log: (line) => out.warn(line),
  });
  server.supervisor.onState((state, reason) => {
    if (state !== 'ready') out.warn(`engine host: ${state}${reason ? ` (${reason})` : ''}`);
  });
  out.result({ url: server.url, port: server.port }, `Argonaut Studio (browser mode) at\n  ${server.url}\nPress Ctrl+C to stop.`);
  await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
  await server.close();
  return 0;
}

/** `argonaut` / `npm start`: Electron when its binary is installed, else browser mode (and say why). */
export async function runStudio(out: Output, argv: readonly string[], signal: AbortSignal): Promise<number> {
  const electron = findElectron();
  if ('missing' in electron) {
    out.warn(`Electron is unavailable (${electron.missing}); starting browser mode instead.`);
    return runBrowserMode(out, undefined, signal);
  }
  const child = spawn(electron.path, [electronMain(), ...argv], { stdio: 'inherit' });
  signal.addEventListener('abort', () => child.kill('SIGINT'), { once: true });
  return new Promise((resolve) => child.once('exit', (code) => resolve(code ?? 0)));
}
