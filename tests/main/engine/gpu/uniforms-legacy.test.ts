/**
 * TEMPORARY (dropped in the next commit): the bytes the host packers write from the WGSL
 * declaration (UniformStruct) equal the bytes the by-index packers wrote before, for random
 * values. The `legacy*` functions are the old bodies, verbatim; the new side is the real host
 * code, driven through a device that records writeBuffer.
 */
import { describe, expect, it, vi } from 'vitest';
import { invertRigid, type PinholeCamera } from '../../../../shared/scene/camera.js';
import { packCameraUniform, tileCounts, type RenderSettings } from '../../../../main/engine/render/camera-uniform.js';
import { packSlab, packTsdfGrid, packTsdfView } from '../../../../main/engine/mesh/tsdf.js';
import type { VoxelGrid } from '../../../../main/engine/mesh/grid.js';
import { Adam, type AdamGroup } from '../../../../main/engine/train/adam.js';
import { GeometryLoss } from '../../../../main/engine/train/geometry.js';
import { AdcDensifier } from '../../../../main/engine/train/densify-adc.js';
import { McmcDensifier } from '../../../../main/engine/train/densify-mcmc.js';
import { rng } from '../../../helpers/random.js';

vi.stubGlobal('GPUBufferUsage', { STORAGE: 128, COPY_DST: 8, COPY_SRC: 4, UNIFORM: 64, INDIRECT: 256 });

const random = rng(20261201);
const float = () => (random() - 0.5) * 200;
const int = (max = 100000) => Math.floor(random() * max);

function legacyCamera(camera: PinholeCamera, settings: RenderSettings, storedShCoeffs: number, countIndex: number, shPlane: number): ArrayBuffer {
  const m = camera.worldToCamera;
  const c2w = invertRigid(m);
  const tiles = tileCounts(camera);
  const buffer = new ArrayBuffer(144);
  const f = new Float32Array(buffer);
  const u = new Uint32Array(buffer);
  f.set([m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8], m[9], m[10], m[11]], 0);
  f.set([c2w[3], c2w[7], c2w[11], 1], 12);
  f.set([settings.background[0], settings.background[1], settings.background[2], 1], 16);
  f.set([camera.fx, camera.fy, camera.cx, camera.cy], 20);
  u.set([camera.width, camera.height, tiles.x, tiles.y], 24);
  f[28] = settings.near ?? 0.01;
  f[29] = 0.3;
  u[30] = settings.shDegree;
  u[31] = storedShCoeffs;
  u[32] = settings.antialiased ? 1 : 0;
  u[33] = countIndex;
  u[34] = shPlane;
  return buffer;
}

function legacyTsdfView(camera: PinholeCamera, alphaMin: number, near: number): ArrayBuffer {
  const m = camera.worldToCamera;
  const buffer = new ArrayBuffer(80);
  const f = new Float32Array(buffer);
  const u = new Uint32Array(buffer);
  f.set(m.slice(0, 12), 0);
  f.set([camera.fx, camera.fy, camera.cx, camera.cy], 12);
  u.set([camera.width, camera.height], 16);
  f[18] = near;
  f[19] = alphaMin;
  return buffer;
}

function legacyTsdfGrid(grid: VoxelGrid): ArrayBuffer {
  const buffer = new ArrayBuffer(32);
  const f = new Float32Array(buffer);
  const u = new Uint32Array(buffer);
  f.set([...grid.origin, grid.voxelSize], 0);
  u.set(grid.dims, 4);
  f[7] = grid.truncation;
  return buffer;
}

function randomCamera(): PinholeCamera {
  // a rigid world-to-camera: rotation about z and a translation
  const a = random() * Math.PI * 2;
  const [c, s] = [Math.cos(a), Math.sin(a)];
  const worldToCamera = [c, -s, 0, float(), s, c, 0, float(), 0, 0, 1, float(), 0, 0, 0, 1];
  return { width: 1 + int(4000), height: 1 + int(4000), fx: float(), fy: float(), cx: float(), cy: float(), worldToCamera } as PinholeCamera;
}

/** A device that records what is written to each buffer. */
function recordingContext() {
  const written = new Map<string, ArrayBuffer>();
  const device = {
    limits: { maxComputeWorkgroupsPerDimension: 65535 },
    createBuffer: ({ label }: { label: string }) => ({ label }),
    queue: {
      writeBuffer: (buffer: { label: string }, offset: number, data: ArrayBuffer | ArrayBufferView) => {
        expect(offset).toBe(0);
        written.set(buffer.label, ArrayBuffer.isView(data) ? data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength) : data.slice(0));
      },
    },
  };
  return { ctx: { device }, written, commands: { dispatch: () => {} } };
}

const bytes = (b: ArrayBuffer) => [...new Uint8Array(b)];

describe('TEMPORARY: packing from the WGSL declaration writes the bytes the by-index packers wrote', () => {
  it('Camera, TsdfView, TsdfGrid, Slab', () => {
    for (let trial = 0; trial < 50; trial++) {
      const camera = randomCamera();
      const settings: RenderSettings = { background: [float(), float(), float()], antialiased: random() < 0.5, shDegree: int(4), near: trial % 3 ? float() : undefined };
      const [coeffs, index, plane] = [int(16), int(8), int()];
      expect(bytes(packCameraUniform(camera, settings, coeffs, index, plane))).toEqual(bytes(legacyCamera(camera, settings, coeffs, index, plane)));
      const [alphaMin, near] = [random(), float()];
      expect(bytes(packTsdfView(camera, alphaMin, near))).toEqual(bytes(legacyTsdfView(camera, alphaMin, near)));
      const grid = { origin: [float(), float(), float()], voxelSize: random(), dims: [int(), int(), int()], truncation: random() } as VoxelGrid;
      expect(bytes(packTsdfGrid(grid))).toEqual(bytes(legacyTsdfGrid(grid)));
      const slab = { z0: int(), layers: int() };
      expect(bytes(packSlab(slab))).toEqual(bytes(new Uint32Array([slab.z0, slab.layers, 0, 0]).buffer));
    }
  });

  it('AdamParams (Adam.encode)', () => {
    const { ctx, written, commands } = recordingContext();
    for (let trial = 0; trial < 50; trial++) {
      const hyper = { beta1: random(), beta2: random(), epsilon: random() * 1e-6 };
      const adam = new (Adam as unknown as new (...a: unknown[]) => Adam)(ctx, {}, hyper, 256);
      const group = { name: 'g', uniform: { label: 'u' }, stride: 1 + int(48), head: int(4), index: int(20), plane: int(), group: {} } as unknown as AdamGroup;
      const [t, lrHead, lrTail, countIndex] = [1 + int(30000), random(), random(), int(8)];
      adam.encode(commands as never, group, 1000, t, lrHead, lrTail, countIndex);
      const data = new ArrayBuffer(48);
      new Float32Array(data, 0, 7).set([lrHead, lrTail, hyper.beta1, hyper.beta2, hyper.epsilon, 1 - hyper.beta1 ** t, 1 - hyper.beta2 ** t]);
      new Uint32Array(data, 28, 5).set([group.stride, group.head, countIndex, group.index % 7, group.plane]);
      expect(bytes(written.get('u')!)).toEqual(bytes(data));
    }
  });

  it('GeometryParams (GeometryLoss.encode)', () => {
    const { ctx, written, commands } = recordingContext();
    for (let trial = 0; trial < 50; trial++) {
      const loss = Object.assign(Object.create(GeometryLoss.prototype), { ctx, pipeline: {}, params: { label: 'p' }, group: {} }) as GeometryLoss;
      const camera = randomCamera();
      const weights = { distortion: random(), normal: random() };
      loss.encode(commands as never, camera, weights);
      const params = new ArrayBuffer(48);
      new Uint32Array(params, 0, 4).set([camera.width, camera.height, Math.ceil(camera.width / 16), 0]);
      new Float32Array(params, 16, 8).set([camera.fx, camera.fy, camera.cx, camera.cy, weights.distortion, weights.normal, 0, 0]);
      expect(bytes(written.get('p')!)).toEqual(bytes(params));
    }
  });

  it('DensifyParams (AdcDensifier.writeUniform) and McmcParams (McmcDensifier.uniform)', () => {
    const { ctx, written } = recordingContext();
    const names = ['countIndex', 'width', 'height', 'growGrad2d', 'growScale3d', 'pruneOpacity', 'pruneScale3d', 'grow', 'stride', 'mode', 'seed', 'step', 'capacity', 'opacityLogitMax', 'plane'] as const;
    const floats = new Set(['width', 'height', 'growGrad2d', 'growScale3d', 'pruneOpacity', 'pruneScale3d', 'opacityLogitMax']);
    for (let trial = 0; trial < 50; trial++) {
      const capacity = 1 + int(1e7);
      const adc = Object.assign(Object.create(AdcDensifier.prototype), { ctx, uniforms: new Map(), capacity }) as { writeUniform(name: string, values: Record<string, number>): unknown };
      // a random subset of the values (the rest take their defaults)
      const values = Object.fromEntries(names.filter(() => random() < 0.7).map((n) => [n, floats.has(n) ? float() : int()]));
      adc.writeUniform('x', values);
      const data = new ArrayBuffer(64);
      const u = new Uint32Array(data);
      const f = new Float32Array(data);
      u[0] = values.countIndex ?? 0;
      f[1] = values.width ?? 0;
      f[2] = values.height ?? 0;
      f[3] = values.growGrad2d ?? 0;
      f[4] = values.growScale3d ?? 0;
      f[5] = values.pruneOpacity ?? 0;
      f[6] = values.pruneScale3d ?? 0;
      u[7] = values.grow ?? 0;
      u[8] = values.stride ?? 1;
      u[9] = values.mode ?? 0;
      u[10] = values.seed ?? 0;
      u[11] = values.step ?? 0;
      u[12] = values.capacity ?? capacity;
      f[13] = values.opacityLogitMax ?? 0;
      u[14] = values.plane ?? 0;
      expect(bytes(written.get('adc.x')!)).toEqual(bytes(data));

      const config = { capMax: 1 + int(1e7), minOpacity: random(), opacityReg: random(), scaleReg: random() };
      const mcmc = Object.assign(Object.create(McmcDensifier.prototype), { ctx, uniforms: new Map(), capacity, config }) as { uniform(key: string, values: Record<string, number>): unknown };
      const mv = Object.fromEntries(['round', 'seed', 'step', 'stride', 'plane', 'noiseScale'].filter(() => random() < 0.7).map((n) => [n, n === 'noiseScale' ? float() : int()]));
      mcmc.uniform('y', mv);
      const md = new ArrayBuffer(64);
      const i = new Uint32Array(md);
      const mf = new Float32Array(md);
      i[0] = 0;
      i[1] = Math.min(config.capMax, capacity);
      mf[2] = config.minOpacity;
      i[3] = mv.seed ?? 0;
      i[4] = mv.step ?? 0;
      i[5] = mv.round ?? 0;
      mf[6] = Math.min(2 ** 20, Math.floor((2 ** 32 - 1) / capacity));
      mf[7] = mv.noiseScale ?? 0;
      i[8] = mv.stride ?? 1;
      i[9] = mv.plane ?? 0;
      mf[10] = config.opacityReg;
      mf[11] = config.scaleReg;
      i[12] = capacity;
      expect(bytes(written.get('mcmc.y')!)).toEqual(bytes(md));
    }
  });
});
