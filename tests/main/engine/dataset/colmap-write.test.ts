/**
 * The COLMAP model writer (one for our mapper and the tests): tracks written as COLMAP lays them
 * out (length, then image id and 2D point index per element) in both forms, read back by our
 * parsers, which check every record's size.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readColmapModel } from '../../../../main/engine/dataset/colmap.js';
import { colmapImage, points3DBin, writeColmapModel, type ModelToWrite } from '../../../../main/engine/dataset/colmap-write.js';
import { cleanedTempDirs } from '../../../helpers/datasets.js';

const tempDir = cleanedTempDirs(afterAll);

function model(): ModelToWrite {
  const image = (id: number) => ({ ...colmapImage(id, `v${id}.jpg`, 1, [1, 0, 0, 0], [id, 0, 0]), xy: Float64Array.from([10, 20, 30, 40]), point3DIds: Float64Array.from([1, -1]) });
  return {
    cameras: [{ id: 1, model: 'SIMPLE_RADIAL', width: 64, height: 48, params: [50, 32, 24, 0], source: '' }],
    images: [image(1), image(2)],
    points: { ids: Float64Array.from([1]), positions: Float64Array.from([0.5, -0.25, 3]), colors: Uint8Array.from([200, 100, 50]), errors: Float64Array.from([0.4]) },
    tracks: [Uint32Array.from([1, 0, 2, 0])],
  };
}

describe('COLMAP model writer', () => {
  it("writes a point's track after its error: its length, then (image id, point2D index) as uint32 pairs", () => {
    const bytes = points3DBin(model().points, model().tracks);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const trackAt = 8 + 8 + 24 + 3 + 8;
    expect(bytes.byteLength).toBe(trackAt + 8 + 4 * 4);
    expect(view.getBigUint64(trackAt, true)).toBe(2n);
    expect([0, 1, 2, 3].map((k) => view.getUint32(trackAt + 8 + 4 * k, true))).toEqual([1, 0, 2, 0]);
    // without tracks: every track empty, as the loaders' test datasets were written before
    expect(points3DBin(model().points).byteLength).toBe(trackAt + 8);
  });

  it('both forms read back with the same points, colours and 2D observations', async () => {
    const dir = await tempDir('colmap-write');
    for (const kind of ['bin', 'txt'] as const) {
      await writeColmapModel(path.join(dir, kind), model(), kind);
      const read = await readColmapModel(path.join(dir, kind), kind);
      expect(Array.from(read.points.colors)).toEqual([200, 100, 50]);
      expect(Array.from(read.points.positions)).toEqual([0.5, -0.25, 3]);
      expect(read.images.map((im) => Array.from(im.point3DIds))).toEqual([[1, -1], [1, -1]]);
    }
    expect((await readFile(path.join(dir, 'txt', 'points3D.txt'), 'utf8')).trim().split('\n').at(-1)).toBe('1 0.5 -0.25 3 200 100 50 0.4 1 0 2 0');
  });
});
