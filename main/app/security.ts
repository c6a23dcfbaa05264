/**
 * Renderer security settings, in one place so tests can assert them without Electron.
 * The renderer is sandboxed, isolated from the preload, has no Node, loads only app:// content
 * and talks to the engine only through the contract (validated in main, again in the host).
 */
export const APP_SCHEME = 'app';
export const APP_ORIGIN = `${APP_SCHEME}://renderer`;

export function secureWebPreferences(preloadPath: string) {
  return {
    preload: preloadPath,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    experimentalFeatures: false,
    navigateOnDragDrop: false,
    webviewTag: false,
    spellcheck: false,
  } as const;
}

/** Only the top frame of our own app:// page may call the engine. */
export function isTrustedSender(frameUrl: string | undefined, isMainFrame: boolean): boolean {
  if (!frameUrl || !isMainFrame) return false;
  try {
    const url = new URL(frameUrl);
    return url.protocol === `${APP_SCHEME}:` && url.host === 'renderer';
  } catch {
    return false;
  }
}

/** Navigation and new windows: only our own pages; everything else is refused. */
export function isAllowedNavigation(url: string): boolean {
  return isTrustedSender(url, true);
}
