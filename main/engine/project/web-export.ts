/**
 * The web viewer export (issue 17): a folder that shows the splats in any browser, from disk
 * (double-clicking index.html) or from a static host: the built viewer (out/web-viewer/, see
 * renderer/web-viewer/viewer.ts), and scene.js, the scene payload (shared/scene/web-scene.ts: the
 * splats as base64 of an SPZ version 4 file, the saved camera paths, the cameras for "up").
 * `singleFile` writes one HTML file with both scripts inline instead.
 *
 * SPZ, not SOG: the viewer decodes it with the engine's own reader (shared/scene/spz-read.ts:
 * plain bytes and zstd), where SOG's WebP textures would have to come back through a browser's
 * image decoder, whose colour management and alpha premultiplication do not promise exact texel
 * values; Babylon's own SPZ/SOG loaders live in @babylonjs/loaders, which is not published in our
 * @babylonjs/core's version. SPZ is also the smaller of the two for our splats (docs/formats.md).
 *
 * The folder is written atomically: a temporary folder beside it, renamed into place; an existing
 * non-empty folder is refused unless `force` (then replaced whole, never merged).
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CameraPath } from '../../../shared/scene/camera-path.js';
import type { PinholeCamera } from '../../../shared/scene/camera.js';
import type { SplatSet } from '../../../shared/scene/splats.js';
import { ArgonautError, badInput } from '../../../shared/rpc/errors.js';
import { WEB_SCENE_FORMAT, WEB_SCENE_SCRIPT_TAG, WEB_SCENE_VERSION, WEB_VIEWER_FILES, WEB_VIEWER_SCRIPT_TAG, webSceneScript } from '../../../shared/scene/web-scene.js';
import { writeFileAtomic } from '../formats/atomic-file.js';
import { serializeSpz } from '../formats/spz.js';
import type { Project } from './project.js';
import { projectSplats } from './splats.js';
import { projectViews } from './views.js';

export interface WebSceneInput {
  name: string;
  splats: SplatSet;
  cameraPaths: readonly CameraPath[];
  cameras: readonly PinholeCamera[];
  antialiased?: boolean;
}

export interface WebExportOptions {
  /** One HTML file (`target` is that file) instead of a folder. */
  singleFile?: boolean;
  /** Replace a non-empty target folder. */
  force?: boolean;
  /** The built viewer; default out/web-viewer beside the running bundle (webViewerDir). */
  viewerDir?: string;
}

export interface WebExportResult {
  path: string;
  format: 'web';
  singleFile: boolean;
  /** Every byte written (the folder's files, or the one HTML file). */
  bytes: number;
  splats: number;
  /** The SPZ inside scene.js, before base64. */
  spzBytes: number;
  cameraPaths: number;
  /** The files written, relative to the folder (the HTML file's name alone with singleFile). */
  files: string[];
  /** SPZ: positions clamped to its 24-bit range. */
  clamped?: number;
}

/**
 * Where the built viewer is: out/web-viewer beside out/host or out/cli when bundled (in a
 * packaged app inside app.asar.unpacked, where electron-builder.yml unpacks it: plain Node cannot
 * read app.asar), or the repository's out/web-viewer when run from sources (tests).
 */
export function webViewerDir(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const bundled = path.basename(path.dirname(here)) === 'out';
  return bundled ? path.resolve(here, '..', 'web-viewer') : path.resolve(here, '../../../out/web-viewer');
}

async function readViewer(dir: string): Promise<{ page: string; viewer: string }> {
  const files = [WEB_VIEWER_FILES.page, WEB_VIEWER_FILES.viewer].map((f) => path.join(dir, f));
  const missing = files.filter((f) => !existsSync(f));
  if (missing.length) throw new ArgonautError('unavailable', `the web viewer is not built (${missing.join(', ')} missing): run \`npm run build\``);
  const [page, viewer] = await Promise.all(files.map((f) => readFile(f, 'utf8')));
  for (const tag of [WEB_SCENE_SCRIPT_TAG, WEB_VIEWER_SCRIPT_TAG]) {
    if (!page.includes(tag)) throw new ArgonautError('internal', `${files[0]}: the built page has no ${tag}`);
  }
  return { page, viewer };
}

/** A script's text inside a <script> element: `</script` would end it early, `<!--` would change how HTML reads it. */
function inlineScript(source: string, name: string): string {
  if (/<\/script|<!--/i.test(source)) throw new ArgonautError('internal', `${name} contains "</script" or "<!--" and cannot be inlined into HTML`);
  return `<script>${source}</script>`;
}

/** A folder target: its parent must exist; the folder itself absent, empty, or (with force) anything but a file. */
async function checkFolderTarget(target: string, force: boolean): Promise<void> {
  const parent = await stat(path.dirname(target)).catch(() => undefined);
  if (!parent?.isDirectory()) throw badInput(target, `cannot write: the folder ${path.dirname(target)} does not exist`);
  const existing = await stat(target).catch(() => undefined);
  if (!existing) return;
  if (!existing.isDirectory()) throw badInput(target, 'cannot write the web viewer here: it is a file (the web export writes a folder; --single-file writes one HTML file)');
  const entries = await readdir(target);
  if (entries.length && !force) throw badInput(target, `the folder is not empty (${entries.length} entries, e.g. ${entries[0]}): choose an empty or new folder, or replace it (--force; in the Export view, "Replace the folder if it is not empty")`);
}

async function checkFileTarget(target: string): Promise<void> {
  const parent = await stat(path.dirname(target)).catch(() => undefined);
  if (!parent?.isDirectory()) throw badInput(target, `cannot write: the folder ${path.dirname(target)} does not exist`);
  if ((await stat(target).catch(() => undefined))?.isDirectory()) throw badInput(target, 'cannot write: it is a folder (--single-file writes one HTML file: give its name, e.g. scene.html)');
}

/** Writes the web viewer for `scene` at `target` (a folder, or with singleFile an HTML file). */
export async function exportWebViewer(scene: WebSceneInput, target: string, options: WebExportOptions = {}): Promise<WebExportResult> {
  const out = path.resolve(target);
  const singleFile = Boolean(options.singleFile);
  if (singleFile) await checkFileTarget(out);
  else await checkFolderTarget(out, Boolean(options.force));
  const { page, viewer } = await readViewer(options.viewerDir ?? webViewerDir());
  const spz = await serializeSpz(scene.splats, { antialiased: scene.antialiased });
  const sceneScript = webSceneScript({
    format: WEB_SCENE_FORMAT,
    version: WEB_SCENE_VERSION,
    name: scene.name,
    splatCount: scene.splats.count,
    spzBase64: Buffer.from(spz.bytes).toString('base64'),
    cameraPaths: [...scene.cameraPaths],
    cameras: [...scene.cameras],
  });
  const base = { path: out, format: 'web' as const, singleFile, splats: scene.splats.count, spzBytes: spz.bytes.length, cameraPaths: scene.cameraPaths.length, ...(spz.clamped ? { clamped: spz.clamped } : {}) };

  if (singleFile) {
    // A function replacer: the scripts' `$&` and `$1` must stay text.
    const html = page.replace(WEB_SCENE_SCRIPT_TAG, () => inlineScript(sceneScript, WEB_VIEWER_FILES.scene)).replace(WEB_VIEWER_SCRIPT_TAG, () => inlineScript(viewer, WEB_VIEWER_FILES.viewer));
    await writeFileAtomic(out, html);
    return { ...base, bytes: Buffer.byteLength(html), files: [path.basename(out)] };
  }

  const contents: Record<string, string> = { [WEB_VIEWER_FILES.page]: page, [WEB_VIEWER_FILES.viewer]: viewer, [WEB_VIEWER_FILES.scene]: sceneScript };
  const suffix = `${process.pid}.${randomBytes(6).toString('hex')}`;
  const temp = path.join(path.dirname(out), `.${path.basename(out)}.${suffix}.tmp`);
  const old = path.join(path.dirname(out), `.${path.basename(out)}.${suffix}.old`);
  try {
    await mkdir(temp);
    await Promise.all(Object.entries(contents).map(([name, text]) => writeFile(path.join(temp, name), text)));
    // An existing folder (empty, or replaced with force) moves aside first: rename cannot replace a non-empty folder.
    const existing = existsSync(out);
    if (existing) await rename(out, old);
    try {
      await rename(temp, out);
    } catch (error) {
      if (existing) await rename(old, out);
      throw error;
    }
    if (existing) await rm(old, { recursive: true, force: true });
  } catch (error) {
    await rm(temp, { recursive: true, force: true });
    if (error instanceof ArgonautError) throw error;
    throw badInput(out, `cannot write the web viewer: ${(error as Error).message}`);
  }
  const files = Object.keys(contents).sort();
  return { ...base, bytes: Object.values(contents).reduce((sum, text) => sum + Buffer.byteLength(text), 0), files };
}

/**
 * Exports a project's newest splats (projectSplats) as the web viewer with its saved camera
 * paths, and records the export in the manifest (format 'web').
 */
export async function exportProjectWeb(project: Project, target: string, options: WebExportOptions = {}, warn?: (m: string) => void): Promise<WebExportResult & { run: string; step: number }> {
  const found = await projectSplats(project, warn);
  let cameras: PinholeCamera[] = [];
  try {
    cameras = (await projectViews(project, found.run)).views.map((v) => v.camera);
  } catch (error) {
    warn?.(`${project.file}: the training cameras could not be read (${(error as Error).message}); the web viewer takes the default up direction`);
  }
  const result = await exportWebViewer(
    { name: project.manifest.name, splats: found.splats, cameraPaths: project.manifest.cameraPaths, cameras, antialiased: Boolean(found.run.params['train.antialiased']) },
    target,
    options,
  );
  project.manifest.exports.push({ format: 'web', path: project.relative(result.path), run: found.run.id, step: found.step, splats: result.splats, bytes: result.bytes, createdAt: new Date().toISOString() });
  await project.save();
  return { ...result, run: found.run.id, step: found.step };
}
