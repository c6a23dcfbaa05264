import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { NodeIO } from '@gltf-transform/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { meshFormatOf, serializeMeshPly, writeMesh } from '../../../../main/engine/formats/mesh-file.js';
import { computeNormals } from '../../../../main/engine/mesh/mesh.js';
import type { TriangleMesh } from '../../../../shared/scene/mesh.js';
import { cleanedTempDirs } from '../../../helpers/datasets.js';

const temp = cleanedTempDirs(afterAll);

/** A tetrahedron with distinct colours, outward winding. */
function tetra(): TriangleMesh {
  return computeNormals({
    positions: Float32Array.from([0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1.25]),
    colors: Uint8Array.from([255, 0, 0, 0, 255, 0, 0, 0, 255, 10, 128, 250]),
    indices: Uint32Array.from([0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3]),
  });
}

function readBinaryPly(bytes: Buffer) {
  const end = bytes.indexOf('end_header\n') + 'end_header\n'.length;
  const header = bytes.subarray(0, end).toString('latin1');
  const nv = Number(/element vertex (\d+)/.exec(header)![1]);
  const nf = Number(/element face (\d+)/.exec(header)![1]);
  const view = new DataView(bytes.buffer, bytes.byteOffset + end);
  const positions: number[] = [];
  const normals: number[] = [];
  const colors: number[] = [];
  for (let v = 0; v < nv; v++) {
    for (let d = 0; d < 3; d++) positions.push(view.getFloat32(27 * v + 4 * d, true));
    for (let d = 0; d < 3; d++) normals.push(view.getFloat32(27 * v + 12 + 4 * d, true));
    for (let d = 0; d < 3; d++) colors.push(view.getUint8(27 * v + 24 + d));
  }
  const indices: number[] = [];
  for (let f = 0; f < nf; f++) {
    expect(view.getUint8(27 * nv + 13 * f)).toBe(3);
    for (let k = 0; k < 3; k++) indices.push(view.getInt32(27 * nv + 13 * f + 1 + 4 * k, true));
  }
  return { header, positions, normals, colors, indices, bytes: end + 27 * nv + 13 * nf };
}

describe('mesh export', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await temp('mesh');
  });

  it('writes binary PLY with x y z nx ny nz red green blue and int faces, exactly', async () => {
    const mesh = tetra();
    const file = path.join(dir, 'm.ply');
    expect(await writeMesh(file, mesh)).toBe('ply');
    const bytes = readFileSync(file);
    const ply = readBinaryPly(bytes);
    expect(ply.header).toMatch(/format binary_little_endian 1.0/);
    expect(ply.header).toMatch(/property float nx[\s\S]*property uchar red[\s\S]*property list uchar int vertex_indices/);
    expect(ply.bytes).toBe(bytes.length);
    expect(ply.positions).toEqual([...mesh.positions]);
    expect(ply.normals).toEqual([...mesh.normals!]);
    expect(ply.colors).toEqual([...mesh.colors]);
    expect(ply.indices).toEqual([...mesh.indices]);
  });

  it('writes OBJ with per-vertex colours, normals and 1-based faces', async () => {
    const mesh = tetra();
    const file = path.join(dir, 'm.obj');
    await writeMesh(file, mesh);
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    const v = lines.filter((l) => l.startsWith('v ')).map((l) => l.split(' ').slice(1).map(Number));
    const f = lines.filter((l) => l.startsWith('f ')).map((l) => l.split(' ').slice(1).map((c) => Number(c.split('//')[0]) - 1));
    expect(lines.filter((l) => l.startsWith('vn ')).length).toBe(4);
    expect(v.map((x) => x.slice(0, 3)).flat()).toEqual([...mesh.positions].map((x) => Number(x.toPrecision(7))));
    expect(v[3].slice(3)).toEqual([0.0392, 0.502, 0.9804]);
    expect(f.flat()).toEqual([...mesh.indices]);
  });

  it('writes GLB that glTF-Transform reads back: POSITION, NORMAL, linear COLOR_0, indices, a default scene', async () => {
    const mesh = tetra();
    const file = path.join(dir, 'm.glb');
    await writeMesh(file, mesh);
    const doc = await new NodeIO().read(file);
    const root = doc.getRoot();
    expect(root.getDefaultScene()?.listChildren()[0].getMesh()).toBeTruthy();
    const prim = root.listMeshes()[0].listPrimitives()[0];
    expect([...prim.getAttribute('POSITION')!.getArray()!]).toEqual([...mesh.positions]);
    expect([...prim.getAttribute('NORMAL')!.getArray()!]).toEqual([...mesh.normals!]);
    expect([...prim.getIndices()!.getArray()!]).toEqual([...mesh.indices]);
    const color = prim.getAttribute('COLOR_0')!.getArray()!;
    expect(color[0]).toBeCloseTo(1);
    expect(color[10]).toBeCloseTo(((128 / 255 + 0.055) / 1.055) ** 2.4, 5); // sRGB 128 -> linear 0.216
  });

  it('picks the format from the extension and refuses others; leaves no temporary files', () => {
    expect(meshFormatOf('a/b.GLB')).toBe('glb');
    expect(() => meshFormatOf('mesh.stl')).toThrow(/unknown mesh format ".stl" \(expected .glb, .ply or .obj\)/);
    expect(readdirSync(dir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });

  it('refuses broken meshes, naming the problem', () => {
    const mesh = tetra();
    expect(() => serializeMeshPly({ ...mesh, indices: Uint32Array.from([0, 1, 9]) })).toThrow(/index 9 of triangle 0 is past the last vertex \(3\)/);
    expect(() => serializeMeshPly({ ...mesh, colors: new Uint8Array(3) })).toThrow(/colors has 3 values, expected 12/);
    const nan = mesh.positions.slice();
    nan[4] = NaN;
    expect(() => serializeMeshPly({ ...mesh, positions: nan })).toThrow(/NaN\/Inf in the position of vertex 1/);
  });
});
