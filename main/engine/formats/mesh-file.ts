/**
 * Mesh export: GLB (glTF 2.0 binary through glTF-Transform), binary PLY and OBJ, chosen by the
 * file's extension, written atomically (writeFileAtomic). Positions, normals and vertex colours
 * in every format; glTF's COLOR_0 is linear, so sRGB colours are converted there and only there.
 */
import { Document, NodeIO } from '@gltf-transform/core';
import { ArgonautError } from '../../../shared/rpc/errors.js';
import type { TriangleMesh } from '../../../shared/scene/mesh.js';
import { writeFileAtomic } from './atomic-file.js';

export type MeshFormat = 'glb' | 'ply' | 'obj';

export const MESH_FORMATS: readonly MeshFormat[] = ['glb', 'ply', 'obj'];

export function meshFormatOf(file: string): MeshFormat {
  const ext = /\.([^./\\]+)$/.exec(file)?.[1]?.toLowerCase();
  if (ext === 'glb' || ext === 'ply' || ext === 'obj') return ext;
  throw new ArgonautError('invalid_argument', `${file}: unknown mesh format ".${ext ?? ''}" (expected .glb, .ply or .obj)`);
}

function checkMesh(mesh: TriangleMesh): void {
  const fail = (problem: string): never => {
    throw new ArgonautError('invalid_argument', `cannot write mesh: ${problem}`);
  };
  const n = mesh.positions.length / 3;
  if (!Number.isInteger(n)) fail(`positions has ${mesh.positions.length} values, not a multiple of 3`);
  if (mesh.colors.length !== 3 * n) fail(`colors has ${mesh.colors.length} values, expected ${3 * n} (rgb per vertex)`);
  if (mesh.normals && mesh.normals.length !== 3 * n) fail(`normals has ${mesh.normals.length} values, expected ${3 * n}`);
  if (mesh.indices.length % 3) fail(`indices has ${mesh.indices.length} values, not a multiple of 3`);
  for (let i = 0; i < mesh.indices.length; i++) if (mesh.indices[i] >= n) fail(`index ${mesh.indices[i]} of triangle ${Math.floor(i / 3)} is past the last vertex (${n - 1})`);
  for (let i = 0; i < mesh.positions.length; i++) if (!Number.isFinite(mesh.positions[i])) fail(`NaN/Inf in the position of vertex ${Math.floor(i / 3)}`);
}

/** Binary little-endian PLY: x y z nx ny nz (float), red green blue (uchar); faces as uchar-counted int lists. */
export function serializeMeshPly(mesh: TriangleMesh): Uint8Array {
  checkMesh(mesh);
  const n = mesh.positions.length / 3;
  const f = mesh.indices.length / 3;
  const header = [
    'ply',
    'format binary_little_endian 1.0',
    'comment Argonaut Studio mesh',
    `element vertex ${n}`,
    ...['x', 'y', 'z', 'nx', 'ny', 'nz'].map((p) => `property float ${p}`),
    ...['red', 'green', 'blue'].map((p) => `property uchar ${p}`),
    `element face ${f}`,
    'property list uchar int vertex_indices',
    'end_header',
    '',
  ].join('\n');
  const head = new TextEncoder().encode(header);
  const vStride = 27;
  const fStride = 13;
  const out = new Uint8Array(head.length + n * vStride + f * fStride);
  out.set(head);
  const view = new DataView(out.buffer, head.length);
  for (let v = 0; v < n; v++) {
    const at = v * vStride;
    for (let d = 0; d < 3; d++) view.setFloat32(at + 4 * d, mesh.positions[3 * v + d], true);
    for (let d = 0; d < 3; d++) view.setFloat32(at + 12 + 4 * d, mesh.normals ? mesh.normals[3 * v + d] : 0, true);
    for (let d = 0; d < 3; d++) view.setUint8(at + 24 + d, mesh.colors[3 * v + d]);
  }
  const base = n * vStride;
  for (let t = 0; t < f; t++) {
    const at = base + t * fStride;
    view.setUint8(at, 3);
    for (let k = 0; k < 3; k++) view.setInt32(at + 1 + 4 * k, mesh.indices[3 * t + k], true);
  }
  return out;
}

/** OBJ: `v x y z r g b` (colours 0..1, the common extension), `vn`, `f a//a b//b c//c`. */
export function serializeMeshObj(mesh: TriangleMesh): Uint8Array[] {
  checkMesh(mesh);
  const chunks: Uint8Array[] = [];
  const encoder = new TextEncoder();
  let lines: string[] = ['# Argonaut Studio mesh'];
  const flush = (force = false) => {
    if (lines.length >= 65536 || (force && lines.length)) {
      chunks.push(encoder.encode(`${lines.join('\n')}\n`));
      lines = [];
    }
  };
  const fmt = (x: number) => (Math.abs(x) < 1e-12 ? '0' : x.toPrecision(7).replace(/\.?0+(e|$)/, '$1'));
  const n = mesh.positions.length / 3;
  for (let v = 0; v < n; v++) {
    const p = mesh.positions;
    const c = mesh.colors;
    lines.push(`v ${fmt(p[3 * v])} ${fmt(p[3 * v + 1])} ${fmt(p[3 * v + 2])} ${(c[3 * v] / 255).toFixed(4)} ${(c[3 * v + 1] / 255).toFixed(4)} ${(c[3 * v + 2] / 255).toFixed(4)}`);
    flush();
  }
  if (mesh.normals) {
    for (let v = 0; v < n; v++) {
      const q = mesh.normals;
      lines.push(`vn ${fmt(q[3 * v])} ${fmt(q[3 * v + 1])} ${fmt(q[3 * v + 2])}`);
      flush();
    }
  }
  for (let t = 0; t < mesh.indices.length; t += 3) {
    const [a, b, c] = [mesh.indices[t] + 1, mesh.indices[t + 1] + 1, mesh.indices[t + 2] + 1];
    lines.push(mesh.normals ? `f ${a}//${a} ${b}//${b} ${c}//${c}` : `f ${a} ${b} ${c}`);
    flush();
  }
  flush(true);
  return chunks;
}

const srgbToLinear = (c: number) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);

/** GLB: one mesh, one primitive: POSITION, NORMAL, COLOR_0 (linear float rgb), uint32 indices. */
export async function serializeMeshGlb(mesh: TriangleMesh): Promise<Uint8Array> {
  checkMesh(mesh);
  const doc = new Document();
  doc.getRoot().getAsset().generator = 'Argonaut Studio';
  const buffer = doc.createBuffer();
  const colors = new Float32Array(mesh.colors.length);
  for (let i = 0; i < colors.length; i++) colors[i] = srgbToLinear(mesh.colors[i] / 255);
  const primitive = doc
    .createPrimitive()
    .setAttribute('POSITION', doc.createAccessor('position').setType('VEC3').setArray(mesh.positions).setBuffer(buffer))
    .setAttribute('COLOR_0', doc.createAccessor('color').setType('VEC3').setArray(colors).setBuffer(buffer))
    .setIndices(doc.createAccessor('indices').setType('SCALAR').setArray(mesh.indices).setBuffer(buffer));
  if (mesh.normals) primitive.setAttribute('NORMAL', doc.createAccessor('normal').setType('VEC3').setArray(mesh.normals).setBuffer(buffer));
  const node = doc.createNode('mesh').setMesh(doc.createMesh('mesh').addPrimitive(primitive));
  doc.getRoot().setDefaultScene(doc.createScene('scene').addChild(node));
  return await new NodeIO().writeBinary(doc);
}

/** Writes `mesh` in the format of `file`'s extension (.glb, .ply, .obj), atomically. */
export async function writeMesh(file: string, mesh: TriangleMesh): Promise<MeshFormat> {
  const format = meshFormatOf(file);
  const data = format === 'glb' ? await serializeMeshGlb(mesh) : format === 'ply' ? serializeMeshPly(mesh) : serializeMeshObj(mesh);
  await writeFileAtomic(file, data);
  return format;
}
