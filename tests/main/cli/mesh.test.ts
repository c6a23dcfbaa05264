import { existsSync } from 'node:fs';
import path from 'node:path';
import { NodeIO } from '@gltf-transform/core';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../../main/cli/index.js';
import { writePly } from '../../../main/engine/formats/ply.js';
import { tempDir } from '../../helpers/datasets.js';
import { sphereCameras, uvSphere, writeNerfSyntheticCameras } from '../../helpers/mesh-scenes.js';
import { captureStreams } from '../../helpers/streams.js';
import { splatsOnMesh } from '../../helpers/surface-splats.js';

describe('argonaut --no-gui mesh', () => {
  it('extracts a GLB from a splats PLY and a dataset, reporting the mesh as JSON', async () => {
    const dir = await tempDir('mesh-cli');
    const sphere = uvSphere(0.7, 16, 32);
    const splatsFile = path.join(dir, 'splats.ply');
    await writePly(splatsFile, splatsOnMesh(sphere.positions, sphere.triangles, 1500, 7));
    const data = await writeNerfSyntheticCameras(sphereCameras(10, 48));
    const out = path.join(dir, 'sphere.glb');
    const s = captureStreams();
    const code = await runCli(['--no-gui', 'mesh', splatsFile, '--data', data, '--out', out, '--resolution', '32', '--target-triangles', '500', '--json'], { streams: s });
    expect(code, s.err()).toBe(0);
    const result = s.jsonLines().at(-1)!;
    expect(result).toMatchObject({ type: 'result', format: 'glb', out, views: 10, splats: 1500 });
    expect(result.triangles as number).toBeGreaterThan(250);
    expect(result.triangles as number).toBeLessThanOrEqual(500);
    expect(s.jsonLines().some((l) => l.type === 'progress' && l.stage === 'mesh.fuse')).toBe(true);
    const doc = await new NodeIO().read(out);
    expect(doc.getRoot().listMeshes()[0].listPrimitives()[0].getIndices()!.getCount()).toBe(3 * (result.triangles as number));
  }, 120_000);

  it('finds the dataset a training folder recorded, and refuses what it cannot do with exit code 2 or 3', async () => {
    const dir = await tempDir('mesh-cli-errors');
    const run = async (...args: string[]) => {
      const s = captureStreams();
      return { code: await runCli(['--no-gui', 'mesh', ...args], { streams: s }), err: s.err() };
    };
    expect(await run(dir)).toMatchObject({ code: 2, err: expect.stringMatching(/needs --out/) });
    expect(await run(dir, '--out', 'x.stl')).toMatchObject({ code: 2, err: expect.stringMatching(/unknown mesh format ".stl"/) });
    expect(await run(path.join(dir, 'missing.argo'), '--out', 'x.glb')).toMatchObject({ code: 3 });
    expect(await run(dir, '--out', path.join(dir, 'x.glb'))).toMatchObject({ code: 3, err: expect.stringMatching(/has no splats.ply/) });
    await writePly(path.join(dir, 'splats.ply'), splatsOnMesh([0, 0, 0, 1, 0, 0, 0, 1, 0], [0, 1, 2], 10, 1));
    expect(await run(dir, '--out', path.join(dir, 'x.glb'))).toMatchObject({ code: 2, err: expect.stringMatching(/needs --data/) });
    expect(existsSync(path.join(dir, 'x.glb'))).toBe(false);
  });
});

describe('argonaut --no-gui mesh <file.argo>', () => {
  it("meshes a project's newest splats from its dataset's training cameras", async () => {
    const dir = await tempDir('mesh-project');
    const data = await writeNerfSyntheticCameras(sphereCameras(8, 32));
    const project = path.join(dir, 'p.argo');
    const cli = async (...args: string[]) => {
      const s = captureStreams();
      const code = await runCli(['--no-gui', ...args], { streams: s });
      expect(code, `${args.join(' ')}: ${s.err()}`).toBe(0);
      return s.jsonLines().at(-1)!;
    };
    await cli('import', data, '--project', project, '--json');
    await cli('train', project, '--iterations', '2', '--init-points', '400', '--sh-degree', '0', '--json');
    const out = path.join(dir, 'p.ply');
    const result = await cli('mesh', project, '--out', out, '--resolution', '24', '--json');
    expect(result).toMatchObject({ type: 'result', format: 'ply', out, project, views: 8, splats: 400 });
    expect(result.run).toEqual(expect.any(String));
    expect(existsSync(out)).toBe(true);
    const s = captureStreams();
    expect(await runCli(['--no-gui', 'mesh', project, '--data', data, '--out', out], { streams: s })).toBe(2);
    expect(s.err()).toMatch(/--data does not apply to a project/);
  }, 180_000);
});
