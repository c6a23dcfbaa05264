/**
 * The exported viewer's scene payload: what scene.js sets is checked by name before any decoding
 * (missing, another format, another version), the SPZ decodes to the 32-byte layout, and a camera
 * path that fails the schema is skipped with a warning instead of failing the page.
 */
import { describe, expect, it } from 'vitest';
import { serializeSpz } from '../../../main/engine/formats/spz.js';
import { decodeScene, readScenePayload } from '../../../renderer/web-viewer/scene-data.js';
import { orbitPath } from '../../../shared/scene/camera-path-sample.js';
import { readSplat, viewSplatBuffer } from '../../../shared/scene/splat-layout.js';
import { WEB_SCENE_GLOBAL, type WebScene } from '../../../shared/scene/web-scene.js';
import { randomSplats } from '../../helpers/splat-sets.js';

describe('web viewer scene payload', () => {
  it('refuses a missing or foreign payload by name', () => {
    expect(() => readScenePayload({})).toThrow(/scene\.js did not load \(it must lie beside index\.html\)/);
    expect(() => readScenePayload({ [WEB_SCENE_GLOBAL]: { format: 'other' } })).toThrow(/scene\.js: not an Argonaut web scene \(format "other"\)/);
    expect(() => readScenePayload({ [WEB_SCENE_GLOBAL]: { format: 'argonaut-web-scene', version: 2 } })).toThrow(/scene version 2 is not the version 1/);
    expect(() => readScenePayload({ [WEB_SCENE_GLOBAL]: { format: 'argonaut-web-scene', version: 1 } })).toThrow(/spzBase64 is missing/);
  });

  it('decodes the SPZ to the 32-byte layout and skips a bad camera path with a warning', async () => {
    const splats = randomSplats(40, 1, 11);
    const spz = await serializeSpz(splats);
    const orbit = orbitPath({ centre: [0, 0, 0], radius: 2, height: 0, up: [0, -1, 0], turns: 1, duration: 4, fovYDeg: 50, keyframes: 4 });
    const broken = { ...orbit, id: 'broken', keyframes: orbit.keyframes.map((k, i) => (i === 1 ? { ...k, position: [Number.NaN, 0, 0] } : k)) };
    const payload: WebScene = { format: 'argonaut-web-scene', version: 1, name: 'n', splatCount: 40, spzBase64: Buffer.from(spz.bytes).toString('base64'), cameraPaths: [orbit, broken as never], cameras: [] };
    const warnings: string[] = [];
    const scene = decodeScene(readScenePayload({ [WEB_SCENE_GLOBAL]: payload }), (m) => warnings.push(m));
    expect(scene.splatCount).toBe(40);
    expect(scene.cameraPaths.map((p) => p.id)).toEqual(['orbit']);
    expect(warnings).toEqual([expect.stringMatching(/scene\.js: camera path 1 skipped/)]);
    const views = viewSplatBuffer(scene.splats, 40);
    for (let i = 0; i < 40; i++) {
      const record = readSplat(views, i);
      for (let a = 0; a < 3; a++) expect(Math.abs(record.position[a] - splats.means[3 * i + a])).toBeLessThan(1 / 4096);
    }
    expect(() => decodeScene({ ...payload, spzBase64: Buffer.from('not spz').toString('base64') }, () => {})).toThrow(/scene\.js \(spzBase64\): /);
  });
});
