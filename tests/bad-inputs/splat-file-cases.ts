/**
 * Bad-input cases of the splat formats other than PLY (cases.ts has PLY's): .splat, SPZ, SOG and
 * glTF splats, each imported as a project (which must not be created): truncated, wrong magic,
 * an absurd count and NaNs, where the format can say each (SPZ's fixed point cannot hold a NaN;
 * .splat has neither magic nor count).
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { unzipSync, zipSync } from 'fflate';
import { serializeGlb } from '../../main/engine/formats/gltf-splats.js';
import { serializeSog } from '../../main/engine/formats/sog.js';
import { serializeSplat } from '../../main/engine/formats/splat.js';
import { serializeSpz } from '../../main/engine/formats/spz.js';
import { randomSplats } from '../helpers/splat-sets.js';
import type { BadInputCase } from './cases.js';

type Format = 'splat' | 'spz' | 'sog' | 'glb';
const GOOD: Record<Format, () => Promise<Uint8Array>> = {
  splat: async () => serializeSplat(randomSplats(4, 0, 1)),
  spz: async () => (await serializeSpz(randomSplats(4, 1, 1))).bytes,
  sog: () => serializeSog(randomSplats(4, 1, 1)),
  glb: async () => serializeGlb(randomSplats(4, 1, 1)),
};

function splatFileCase(name: string, format: Format, mutate: (bytes: Uint8Array) => Uint8Array, problem: RegExp): BadInputCase {
  return {
    name,
    async build(dir) {
      const file = path.join(dir, `splats ü.${format}`);
      await writeFile(file, mutate(await GOOD[format]()));
      const target = path.join(dir, 'new project ✓.argo');
      return { argv: ['import', file, '--project', target], file, problem, mustNotExist: [target, path.join(dir, 'new project ✓')] };
    },
  };
}

const setU32 = (bytes: Uint8Array, at: number, value: number) => {
  const copy = new Uint8Array(bytes);
  new DataView(copy.buffer).setUint32(at, value, true);
  return copy;
};
const setF32 = (bytes: Uint8Array, at: number, value: number) => {
  const copy = new Uint8Array(bytes);
  new DataView(copy.buffer).setFloat32(at, value, true);
  return copy;
};
const cut = (bytes: Uint8Array) => bytes.subarray(0, bytes.length - 7);
const sogMeta = (edit: (text: string) => string) => (bytes: Uint8Array) => {
  const files = unzipSync(bytes);
  return zipSync({ ...files, 'meta.json': new TextEncoder().encode(edit(new TextDecoder().decode(files['meta.json']))) });
};
/** Offset of the GLB's binary chunk data (after the JSON chunk). */
const glbBin = (bytes: Uint8Array) => 28 + new DataView(bytes.buffer, bytes.byteOffset).getUint32(12, true);

export const SPLAT_FILE_CASES: BadInputCase[] = [
  splatFileCase('a truncated .splat', 'splat', cut, /not a whole number of 32-byte splats \(truncated\?\)/),
  splatFileCase('a .splat with NaN positions', 'splat', (b) => setF32(b, 32 + 4, Number.NaN), /splat 1: position is NaN/),
  splatFileCase('a truncated SPZ', 'spz', cut, /runs past the end of the file: truncated\?/),
  splatFileCase('an SPZ with a wrong magic', 'spz', (b) => setU32(b, 0, 0x12345678), /not an SPZ file \(wrong magic\)/),
  splatFileCase('an SPZ claiming 4 billion points', 'spz', (b) => setU32(b, 8, 4_000_000_000), /4000000000 points is more than 10000000/),
  splatFileCase('a truncated SOG', 'sog', cut, /not a SOG bundle: not a zip, or a damaged one/),
  splatFileCase('a SOG that is not a zip (wrong magic)', 'sog', (b) => setU32(b, 0, 0x12345678), /not a SOG bundle: not a zip/),
  splatFileCase('a SOG claiming a trillion splats', 'sog', sogMeta((t) => t.replace(/"count":4,/, '"count":1000000000000,')), /count 1000000000000 is not a splat count we read/),
  splatFileCase('a SOG with NaN bounds', 'sog', sogMeta((t) => t.replace(/"mins":\[[^,\]]+/, '"mins":["NaN"')), /means needs mins and maxs \(3 finite numbers each\)/),
  splatFileCase('a truncated GLB', 'glb', cut, /the header says \d+ bytes, the file has \d+: truncated\?/),
  splatFileCase('a GLB with a wrong magic', 'glb', (b) => setU32(b, 0, 0x12345678), /not a GLB file \(wrong magic/),
  splatFileCase('a GLB claiming 3 billion splats', 'glb', (b) => {
    const text = new TextDecoder().decode(b.subarray(20, glbBin(b) - 8));
    const json = new TextEncoder().encode(text.replace(/"count":4,/, '"count":3000000000,')); // longer: the GLB is rebuilt around it
    const padded = (json.length + 3) & ~3;
    const bin = b.subarray(glbBin(b) - 8);
    const out = new Uint8Array(20 + padded + bin.length).fill(0x20, 20, 20 + padded);
    out.set(b.subarray(0, 20));
    out.set(json, 20);
    out.set(bin, 20 + padded);
    return setU32(setU32(out, 8, out.length), 12, padded);
  }, /POSITION: 3000000000 splats is not a count we read/),
  splatFileCase('a GLB with NaN positions', 'glb', (b) => setF32(b, glbBin(b), Number.NaN), /POSITION: value 0 is NaN/),
];
