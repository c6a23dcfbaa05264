/**
 * The web viewer export's folder and single file: exactly the page, the viewer and scene.js; the
 * scene payload decodes (with the viewer's own reader) to the project's splats and carries its
 * camera paths; the export is recorded; non-empty folders are refused by name unless forced, and
 * a refused export leaves the folder and the project as they were. Needs the built viewer
 * (out/web-viewer: `node scripts/build.mjs --node`).
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runInNewContext } from 'node:vm';
import { beforeAll, describe, expect, it } from 'vitest';
import { readPly, writePly } from '../../../../main/engine/formats/ply.js';
import { Project } from '../../../../main/engine/project/project.js';
import { projectViews } from '../../../../main/engine/project/views.js';
import { exportProjectWeb, exportWebViewer, webViewerDir } from '../../../../main/engine/project/web-export.js';
import { orbitPath } from '../../../../shared/scene/camera-path-sample.js';
import { readSpz } from '../../../../shared/scene/spz-read.js';
import { WEB_SCENE_GLOBAL, WEB_VIEWER_FILES, type WebScene } from '../../../../shared/scene/web-scene.js';
import { cliJson } from '../../../helpers/cli-json.js';
import { tempDir } from '../../../helpers/datasets.js';
import { sphereProject } from '../../../helpers/mesh-project.js';
import { randomSplats } from '../../../helpers/splat-sets.js';

/** Runs scene.js as the page would and returns what it assigned. */
function evaluateScene(script: string): WebScene {
  const window: Record<string, unknown> = {};
  runInNewContext(script, { window });
  return window[WEB_SCENE_GLOBAL] as WebScene;
}

/** The scene script inside a single-file export (the inline <script> that assigns the global). */
function inlineSceneScript(html: string): string {
  const start = html.indexOf(`<script>window[${JSON.stringify(WEB_SCENE_GLOBAL)}]`);
  expect(start).toBeGreaterThan(0);
  return html.slice(start + '<script>'.length, html.indexOf('</script>', start));
}

const ORBIT = orbitPath({ centre: [0, 0, 0], radius: 3, height: 1, up: [0, -1, 0], turns: 1, duration: 4, fovYDeg: 50, keyframes: 8, id: 'orbit', name: 'Orbit' });

describe('web viewer export', () => {
  let dir: string;
  let projectFile: string;

  beforeAll(async () => {
    readFileSync(path.join(webViewerDir(), WEB_VIEWER_FILES.viewer)); // fails early, naming the file, without a build
    dir = await tempDir('web-export');
    projectFile = (await sphereProject(path.join(dir, 'ball.argo'), { splats: 400, views: 6 })).file;
    const project = await Project.open(projectFile);
    project.manifest.cameraPaths.push(ORBIT);
    await project.save();
  }, 60_000);

  it('writes index.html, viewer.js and scene.js; the scene decodes to the project\'s splats with its camera paths; the export is recorded', async () => {
    const out = path.join(dir, 'site');
    const project = await Project.open(projectFile);
    const result = await exportProjectWeb(project, out);
    expect(readdirSync(out).sort()).toEqual(['index.html', 'scene.js', 'viewer.js']);
    expect(result).toMatchObject({ path: out, format: 'web', singleFile: false, splats: 400, cameraPaths: 1, run: 'run-001', files: ['index.html', 'scene.js', 'viewer.js'] });
    expect(result.bytes).toBe(readdirSync(out).reduce((sum, f) => sum + readFileSync(path.join(out, f)).length, 0));
    // No leftovers of the atomic write beside it.
    expect(readdirSync(dir).filter((f) => f.includes('site'))).toEqual(['site']);

    const page = readFileSync(path.join(out, 'index.html'), 'utf8');
    expect(page.indexOf('<script src="scene.js"></script>')).toBeGreaterThan(0);
    expect(page.indexOf('<script src="viewer.js"></script>')).toBeGreaterThan(page.indexOf('<script src="scene.js"></script>'));
    // (Buffer.equals: a deep toEqual of 2 MB takes vitest half a minute)
    expect(readFileSync(path.join(out, 'viewer.js')).equals(readFileSync(path.join(webViewerDir(), 'viewer.js')))).toBe(true);

    const scene = evaluateScene(readFileSync(path.join(out, 'scene.js'), 'utf8'));
    expect(scene).toMatchObject({ format: 'argonaut-web-scene', version: 1, name: 'ball', splatCount: 400 });
    expect(scene.cameraPaths).toEqual([ORBIT]);
    // every view's camera (train and test), for the viewer's up direction
    expect(scene.cameras).toEqual(JSON.parse(JSON.stringify((await projectViews(project, project.manifest.runs[0])).views.map((v) => v.camera))));
    const spz = Buffer.from(scene.spzBase64, 'base64');
    expect(result.spzBytes).toBe(spz.length);
    const decoded = readSpz(spz, 'scene.js');
    const original = await readPly(project.resolve(project.manifest.runs[0].outputs.splats!));
    expect(decoded.count).toBe(original.count);
    // SPZ keeps positions to 1/4096 (12 fractional bits); the largest error bounds any order or axis slip.
    let worst = 0;
    for (let i = 0; i < original.means.length; i++) worst = Math.max(worst, Math.abs(decoded.means[i] - original.means[i]));
    expect(worst).toBeLessThan(1 / 4096);

    const manifest = JSON.parse(readFileSync(projectFile, 'utf8'));
    expect(manifest.exports.at(-1)).toMatchObject({ format: 'web', path: 'site', run: 'run-001', splats: 400, bytes: result.bytes });
  }, 60_000);

  it('refuses a non-empty folder by name (the folder and the project unchanged), replaces it whole with force', async () => {
    const out = path.join(dir, 'busy');
    mkdirSync(out);
    writeFileSync(path.join(out, 'notes.txt'), 'mine');
    const exportsBefore = JSON.parse(readFileSync(projectFile, 'utf8')).exports.length;
    await expect(exportProjectWeb(await Project.open(projectFile), out)).rejects.toMatchObject({ code: 'bad_input', message: expect.stringMatching(/busy: the folder is not empty \(1 entries, e\.g\. notes\.txt\).*--force/) });
    expect(readdirSync(out)).toEqual(['notes.txt']);
    expect(JSON.parse(readFileSync(projectFile, 'utf8')).exports).toHaveLength(exportsBefore);

    await exportProjectWeb(await Project.open(projectFile), out, { force: true });
    expect(readdirSync(out).sort()).toEqual(['index.html', 'scene.js', 'viewer.js']);
    expect(readdirSync(dir).filter((f) => f.includes('busy'))).toEqual(['busy']);

    const file = path.join(dir, 'a-file');
    writeFileSync(file, 'x');
    await expect(exportProjectWeb(await Project.open(projectFile), file)).rejects.toMatchObject({ code: 'bad_input', message: expect.stringMatching(/a-file: cannot write the web viewer here: it is a file/) });
    await expect(exportProjectWeb(await Project.open(projectFile), path.join(dir, 'missing', 'site'))).rejects.toMatchObject({ code: 'bad_input', message: expect.stringMatching(/the folder .*missing does not exist/) });
  }, 60_000);

  it('--single-file: one HTML with both scripts inline, nothing fetched', async () => {
    const out = path.join(dir, 'tour.html');
    const splats = randomSplats(50, 1, 3);
    const result = await exportWebViewer({ name: 'random <b>', splats, cameraPaths: [ORBIT], cameras: [] }, out, { singleFile: true });
    expect(result).toMatchObject({ path: out, singleFile: true, splats: 50, files: ['tour.html'] });
    const html = readFileSync(out, 'utf8');
    expect(result.bytes).toBe(Buffer.byteLength(html));
    // (viewer.js itself holds the text "<script src=": Babylon's script loader)
    expect(html).not.toContain('<script src="scene.js">');
    expect(html).not.toContain('<script src="viewer.js">');
    expect(html.match(/<script>/g)).toHaveLength(2);
    // The name's "<" is escaped in the script, which therefore cannot close the element early.
    const scene = evaluateScene(inlineSceneScript(html));
    expect(scene.name).toBe('random <b>');
    expect(readSpz(Buffer.from(scene.spzBase64, 'base64'), 'x').count).toBe(50);
    expect(readdirSync(dir).filter((f) => f.includes('tour'))).toEqual(['tour.html']);
    await expect(exportWebViewer({ name: 'x', splats, cameraPaths: [], cameras: [] }, dir, { singleFile: true })).rejects.toMatchObject({ code: 'bad_input', message: expect.stringMatching(/it is a folder/) });
  }, 60_000);

  it('the CLI exports a splat file as a web viewer; --single-file and --force belong to --format web', async () => {
    const source = path.join(dir, 'cloud.ply');
    await writePly(source, randomSplats(30, 0, 5));
    const out = path.join(dir, 'cloud-site');
    const res = await cliJson(['export', source, '--format', 'web', '--out', out]);
    expect(res.code, res.err).toBe(0);
    expect(res.result).toMatchObject({ format: 'web', splats: 30, cameraPaths: 0, out });
    expect(evaluateScene(readFileSync(path.join(out, 'scene.js'), 'utf8'))).toMatchObject({ name: 'cloud', splatCount: 30, cameraPaths: [], cameras: [] });
    const again = await cliJson(['export', source, '--format', 'web', '--out', out]);
    expect(again.code).toBe(3);
    expect(again.error?.message).toMatch(/cloud-site: the folder is not empty/);
    expect((await cliJson(['export', source, '--format', 'web', '--out', out, '--force'])).code).toBe(0);
    const wrong = await cliJson(['export', source, '--format', 'spz', '--out', path.join(dir, 'x.spz'), '--single-file']);
    expect(wrong.code).toBe(2);
    expect(wrong.err).toMatch(/--single-file applies to --format web only/);
  }, 60_000);
});
