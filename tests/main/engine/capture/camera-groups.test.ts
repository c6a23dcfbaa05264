import { describe, expect, it } from 'vitest';
import { cameraGroupKey, pinholeOf } from '../../../../main/engine/capture/camera-groups.js';
import { defaultCameraParams } from '../../../../main/engine/sfm/colmap-database.js';

const exif = (focal: number | null, make: string | null, model: string | null) => ({ focal: focal === null ? null : { focal, from: 'FocalLengthIn35mmFilm' as const }, make, model });

describe('camera groups', () => {
  it('keys photos by size and EXIF (focal, make, model), frames by size alone', () => {
    const base = { width: 640, height: 480 };
    expect(cameraGroupKey({ ...base, exif: exif(500, 'A', 'B') })).toBe(cameraGroupKey({ ...base, exif: exif(500, 'A', 'B') }));
    for (const other of [exif(501, 'A', 'B'), exif(500, 'C', 'B'), exif(500, 'A', 'D'), exif(null, 'A', 'B'), exif(500, null, 'B')]) {
      expect(cameraGroupKey({ ...base, exif: other })).not.toBe(cameraGroupKey({ ...base, exif: exif(500, 'A', 'B') }));
    }
    expect(cameraGroupKey({ ...base, exif: exif(null, null, null) })).toBe(cameraGroupKey({ ...base, exif: exif(null, null, null) }));
    expect(cameraGroupKey({ width: 640, height: 481, exif: exif(null, null, null) })).not.toBe(cameraGroupKey({ ...base, exif: exif(null, null, null) }));
    expect(cameraGroupKey(base)).toBe(cameraGroupKey({ width: 640, height: 480 }));
    expect(cameraGroupKey(base)).not.toBe(cameraGroupKey({ width: 480, height: 640 }));
  });

  it("takes a database camera's pinhole part for either focal layout", () => {
    const cameras = [
      { model: 'SIMPLE_RADIAL' as const, width: 640, height: 480, params: defaultCameraParams('SIMPLE_RADIAL', 640, 480), priorFocalLength: false },
      { model: 'PINHOLE' as const, width: 320, height: 240, params: Float64Array.from([300, 310, 160.5, 119.5]), priorFocalLength: true },
    ];
    expect(pinholeOf(cameras[1])).toEqual({ focalX: 300, focalY: 310, principalX: 160.5, principalY: 119.5 });
    expect(pinholeOf(cameras[0])).toEqual({ focalX: 1.2 * 640, focalY: 1.2 * 640, principalX: 320, principalY: 240 });
  });
});
