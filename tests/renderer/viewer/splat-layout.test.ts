import { describe, expect, it } from 'vitest';
import {
  createSplatBuffer,
  decodeQuaternionComponent,
  encodeQuaternionComponent,
  readSplat,
  robustBounds,
  SPLAT_STRIDE_BYTES,
  viewSplatBuffer,
  writeSplat,
} from '../../../renderer/src/viewer/splat-layout.js';

describe('the 32-byte .splat layout', () => {
  it('puts position, linear scale, RGBA and the (w,x,y,z) quaternion at their byte offsets', () => {
    const views = createSplatBuffer(2);
    writeSplat(views, 1, { position: [1, -2, 3], scale: [0.1, 0.2, 0.3], rgba: [255, 128, 0, 200], quaternion: [1, 0, 0, 0] });
    const dv = new DataView(views.buffer, SPLAT_STRIDE_BYTES);
    expect([dv.getFloat32(0, true), dv.getFloat32(4, true), dv.getFloat32(8, true)]).toEqual([1, -2, 3]);
    expect(dv.getFloat32(12, true)).toBeCloseTo(0.1, 7);
    expect(dv.getFloat32(20, true)).toBeCloseTo(0.3, 7);
    expect([24, 25, 26, 27].map((o) => dv.getUint8(o))).toEqual([255, 128, 0, 200]);
    // identity rotation: w = 1 -> 255 (clamped from 256), x = y = z = 0 -> 128
    expect([28, 29, 30, 31].map((o) => dv.getUint8(o))).toEqual([255, 128, 128, 128]);
    expect(new Uint8Array(views.buffer, 0, 32).every((b) => b === 0)).toBe(true);
  });

  it('encodes quaternion components as q * 128 + 128, normalizing first, and reads them back', () => {
    expect(encodeQuaternionComponent(0)).toBe(128);
    expect(encodeQuaternionComponent(-1)).toBe(0);
    expect(encodeQuaternionComponent(0.5)).toBe(192);
    const views = createSplatBuffer(1);
    writeSplat(views, 0, { position: [0, 0, 0], scale: [1, 1, 1], rgba: [0, 0, 0, 0], quaternion: [2, 0, 0, 2] });
    const q = readSplat(views, 0).quaternion;
    expect(q[0]).toBeCloseTo(Math.SQRT1_2, 1);
    expect(q[3]).toBeCloseTo(Math.SQRT1_2, 1);
    expect(decodeQuaternionComponent(64)).toBe(-0.5);
  });

  it('refuses buffers too small for the count, naming both', () => {
    expect(() => viewSplatBuffer(new ArrayBuffer(63), 2)).toThrow('2 splats need 64 bytes (32 each), got 63');
    expect(() => viewSplatBuffer(new ArrayBuffer(64), 1.5)).toThrow(/whole number/);
    expect(viewSplatBuffer(new ArrayBuffer(96), 2).count).toBe(2);
  });

  it('bounds the centres between quantiles, so a few far floaters do not count', () => {
    const views = createSplatBuffer(1000);
    for (let i = 0; i < 1000; i++) {
      const far = i % 250 === 0; // 4 floaters
      writeSplat(views, i, { position: far ? [1e6, -1e6, 1e6] : [(i % 10) / 9, 0, -(i % 7) / 6], scale: [1, 1, 1], rgba: [0, 0, 0, 255], quaternion: [1, 0, 0, 0] });
    }
    const bounds = robustBounds(views)!;
    expect(bounds.min[0]).toBeCloseTo(0, 5);
    expect(bounds.max[0]).toBeCloseTo(1, 5);
    expect(bounds.min[2]).toBeCloseTo(-1, 5);
    expect(bounds.max[1]).toBe(0);
    expect(robustBounds(createSplatBuffer(0))).toBeUndefined();
  });
});
