/**
 * Where a packaged app keeps what runs outside Electron (pure functions; no electron import):
 * the bundled Node in resources/node (scripts/fetch-node-runtime.mjs lays it out, electron-builder's
 * extraResources copies it) and the unpacked host and CLI bundles beside app.asar.
 */
import path from 'node:path';

export function bundledNodePath(resourcesPath: string, platform: NodeJS.Platform = process.platform): string {
  return path.join(resourcesPath, 'node', platform === 'win32' ? 'node.exe' : path.join('bin', 'node'));
}

/** Plain Node cannot read inside app.asar: bundles it runs live in app.asar.unpacked. */
export function unpackedOutDir(outDir: string): string {
  return outDir.replace(/app\.asar(?=$|[/\\])/, 'app.asar.unpacked');
}
