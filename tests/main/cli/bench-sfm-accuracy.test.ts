import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../main/cli/index.js';
import { openGlCameraToWorld } from '../../../main/engine/dataset/export.js';
import { quaternionFromRotation } from '../../../main/engine/dataset/pose.js';
import { centreOf } from '../../../main/engine/sfm/pose-accuracy.js';
import { colmapImage, writeColmapModel } from '../../../main/engine/dataset/colmap-write.js';
import { cleanedTempDirs } from '../../helpers/datasets.js';
import { encodePng } from '../../helpers/images.js';
import { freshSeed, rng } from '../../helpers/random.js';
import { captureStreams } from '../../helpers/streams.js';
import { axisAngle, moved, mul, orbit, pose, randomAxis } from '../engine/sfm/pose-rigs.js';

const tempDir = cleanedTempDirs(afterAll);

describe('argonaut --no-gui bench sfm-accuracy', () => {
  it("scores a capture's model against transforms.json (OpenGL camera-to-world): names paired without folder and extension, a 1-degree turn found", async () => {
    const seed = freshSeed();
    const random = rng(seed);
    const dir = await tempDir('bench-sfm-accuracy');
    const reference = orbit(random, 8);
    // transforms.json as NeRF-synthetic writes it: ./train/r_<i>, no extension, images beside it
    await mkdir(path.join(dir, 'train'));
    for (let i = 0; i < 8; i++) await writeFile(path.join(dir, 'train', `r_${i}.png`), encodePng({ width: 8, height: 8, colorType: 0, depth: 8, samples: new Array(64).fill(128) }));
    const frames = reference.map((p, i) => ({ file_path: `./train/r_${i}`, transform_matrix: openGlCameraToWorld(p.worldToCamera) }));
    await writeFile(path.join(dir, 'transforms_train.json'), JSON.stringify({ camera_angle_x: 0.69, frames }));
    // the capture: r_7 not registered, r_0 turned by 1 degree, all in a world scaled, turned and moved
    const recovered = moved(reference, 0.3, axisAngle(randomAxis(random), 2), [1, -2, 0.5]).slice(0, 7);
    const m0 = recovered[0].worldToCamera;
    recovered[0] = { name: recovered[0].name, worldToCamera: pose(mul(axisAngle(randomAxis(random), Math.PI / 180), [m0[0], m0[1], m0[2], m0[4], m0[5], m0[6], m0[8], m0[9], m0[10]]), centreOf(m0)) };
    const model = path.join(dir, 'capture');
    const images = recovered.map((p, i) => colmapImage(i + 1, `mic/${p.name}.png`, 1, quaternionFromRotation(p.worldToCamera), [p.worldToCamera[3], p.worldToCamera[7], p.worldToCamera[11]]));
    await writeColmapModel(path.join(model, 'sparse', '0'), { cameras: [{ id: 1, model: 'PINHOLE', width: 8, height: 8, params: [10, 10, 4, 4], source: '' }], images, points: { ids: new Float64Array(0), positions: new Float64Array(0), colors: new Uint8Array(0), errors: new Float64Array(0) } }, 'txt');

    const out = path.join(dir, 'accuracy.json');
    const s = captureStreams();
    const code = await runCli(['--no-gui', 'bench', 'sfm-accuracy', model, '--reference', path.join(dir, 'transforms_train.json'), '--out', out, '--json'], { streams: s });
    expect(code, s.err()).toBe(0);
    const result = JSON.parse(await readFile(out, 'utf8'));
    expect(result).toMatchObject({ bench: 'sfm-accuracy', registered: 7, reference_cameras: 8, paired: 7, missing: ['r_7'], extra: [] });
    expect(result.rotation_deg.max, `seed ${seed}`).toBeCloseTo(1, 6);
    expect(result.cameras[0]).toMatchObject({ name: 'r_0' });
    expect(result.cameras[0].rotationDeg, `seed ${seed}`).toBeCloseTo(1, 6);
    expect(result.rotation_deg.median, `seed ${seed}`).toBeLessThan(1e-6);
    expect(result.centre_error_of_scene.max, `seed ${seed}`).toBeLessThan(1e-9);
    expect(result.alignment_scale).toBeCloseTo(1 / 0.3, 9);
    expect(s.jsonLines().at(-1)).toMatchObject({ type: 'result', bench: 'sfm-accuracy' });
  });

  it('refuses what it cannot score: usage errors exit 2, a folder without a model exits 3 naming it', async () => {
    const dir = await tempDir('bench-sfm-accuracy');
    for (const args of [[], [dir], [dir, dir, '--reference', dir]]) {
      const s = captureStreams();
      expect(await runCli(['--no-gui', 'bench', 'sfm-accuracy', ...args], { streams: s }), args.join(' ')).toBe(2);
    }
    const s = captureStreams();
    expect(await runCli(['--no-gui', 'bench', 'sfm-accuracy', dir, '--reference', path.join(dir, 'transforms.json')], { streams: s })).toBe(3);
    expect(s.err()).toContain(`${dir}: no COLMAP model here`);
  });
});
