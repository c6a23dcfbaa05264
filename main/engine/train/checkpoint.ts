/**
 * Checkpoint files: everything exact resume needs (parameters, Adam moments, densification
 * statistics, step, host RNG state and image order) in one binary file written atomically.
 *   "ARGOCKPT" | u32 version | u32 header bytes | header JSON | blobs, each 16-byte aligned
 * The header lists the blobs (name, bytes) in order.
 */
import { open, readFile } from 'node:fs/promises';
import { badInput } from '../../../shared/rpc/errors.js';
import type { SplatSet } from '../../../shared/scene/splats.js';
import { writeFileAtomic } from '../formats/atomic-file.js';

export const CHECKPOINT_VERSION = 1;
const MAGIC = 'ARGOCKPT';

export interface CheckpointHeader {
  format: 'argonaut-checkpoint';
  version: number;
  step: number;
  splatCount: number;
  shDegree: number;
  random: number;
  order: number[];
  orderPosition: number;
  nonFiniteSkipped: number;
  /** Camera refinement's corrections, Adam state and pending gradients (train/camera-refine.ts), when it was on. */
  cameraRefine?: unknown;
  /** Where GPU memory capped the run's growth (train/memory-growth.ts MemoryCap): a resume keeps that capacity and cap. */
  memoryCap?: unknown;
  /** What the run trained on, to refuse resuming on other data. */
  data: { name: string; views: number; train: number };
  config: unknown;
  blobs: { name: string; bytes: number }[];
  savedAt: string;
}

export interface Checkpoint {
  header: CheckpointHeader;
  blobs: Map<string, Uint8Array>;
}

const align = (n: number) => (n + 15) & ~15;

export async function writeCheckpoint(path: string, header: Omit<CheckpointHeader, 'blobs' | 'format' | 'version' | 'savedAt'>, blobs: readonly { name: string; data: Uint8Array }[]): Promise<void> {
  const full: CheckpointHeader = { format: 'argonaut-checkpoint', version: CHECKPOINT_VERSION, ...header, blobs: blobs.map((b) => ({ name: b.name, bytes: b.data.byteLength })), savedAt: new Date().toISOString() };
  const json = Buffer.from(JSON.stringify(full));
  const prefix = Buffer.alloc(align(16 + json.length));
  prefix.write(MAGIC, 0, 'latin1');
  prefix.writeUInt32LE(CHECKPOINT_VERSION, 8);
  prefix.writeUInt32LE(json.length, 12);
  json.copy(prefix, 16);
  const chunks: Uint8Array[] = [prefix];
  for (const b of blobs) {
    chunks.push(b.data);
    const pad = align(b.data.byteLength) - b.data.byteLength;
    if (pad) chunks.push(new Uint8Array(pad));
  }
  await writeFileAtomic(path, chunks);
}

export async function readCheckpoint(path: string): Promise<Checkpoint> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    throw badInput(path, `cannot read the checkpoint (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  if (bytes.length < 16 || bytes.toString('latin1', 0, 8) !== MAGIC) throw badInput(path, 'not an Argonaut checkpoint (wrong magic)');
  const version = bytes.readUInt32LE(8);
  if (version > CHECKPOINT_VERSION) throw badInput(path, `checkpoint version ${version} is newer than this build reads (${CHECKPOINT_VERSION}); update Argonaut`);
  const jsonBytes = bytes.readUInt32LE(12);
  if (16 + jsonBytes > bytes.length) throw badInput(path, `truncated: header of ${jsonBytes} bytes, file of ${bytes.length}`);
  let header: CheckpointHeader;
  try {
    header = JSON.parse(bytes.toString('utf8', 16, 16 + jsonBytes)) as CheckpointHeader;
  } catch {
    throw badInput(path, 'corrupt checkpoint header (not JSON)');
  }
  if (header.format !== 'argonaut-checkpoint' || !Array.isArray(header.blobs)) throw badInput(path, 'corrupt checkpoint header');
  const blobs = new Map<string, Uint8Array>();
  let offset = align(16 + jsonBytes);
  for (const b of header.blobs) {
    if (!Number.isSafeInteger(b.bytes) || b.bytes < 0 || offset + b.bytes > bytes.length) throw badInput(path, `truncated: blob "${b.name}" needs ${b.bytes} bytes at ${offset}, the file has ${bytes.length}`);
    blobs.set(b.name, new Uint8Array(bytes.buffer, bytes.byteOffset + offset, b.bytes));
    offset += align(b.bytes);
  }
  return { header, blobs };
}

/** Reads blob `name` as `count` floats, refusing (naming the file) one of another size or none. */
export function checkpointFloats(checkpoint: Checkpoint, file: string): (name: string, count: number) => Float32Array {
  return (name, count) => {
    const b = checkpoint.blobs.get(name);
    if (!b || b.byteLength !== count * 4) throw badInput(file, `blob ${name}: expected ${count * 4} bytes, found ${b?.byteLength ?? 'none'}`);
    return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
  };
}

/**
 * The splats a checkpoint holds (the `*.param` blobs), for rendering and exporting a run that
 * has not finished. Checks every size against the header.
 */
export function checkpointSplats(checkpoint: Checkpoint, file: string): SplatSet {
  const { splatCount: n, shDegree } = checkpoint.header;
  if (!Number.isSafeInteger(n) || n < 0 || !Number.isInteger(shDegree) || shDegree < 0 || shDegree > 3) throw badInput(file, `corrupt checkpoint header (splatCount ${n}, shDegree ${shDegree})`);
  const K = (shDegree + 1) ** 2;
  const floats = checkpointFloats(checkpoint, file);
  return {
    count: n,
    shDegree,
    means: floats('means.param', 3 * n),
    logScales: floats('logScales.param', 3 * n),
    quats: floats('quats.param', 4 * n),
    opacityLogits: floats('opacityLogits.param', n),
    sh: floats('sh.param', 3 * K * n),
  };
}

/**
 * Whether a checkpoint file is whole, from its header alone (checkpoints can be gigabytes):
 * magic, version, header JSON, and a file size equal to what the header's blobs need. Returns
 * the problem, or undefined for a complete file.
 */
export async function checkpointProblem(path: string): Promise<string | undefined> {
  let handle;
  try {
    handle = await open(path, 'r');
    const { size } = await handle.stat();
    const prefix = Buffer.alloc(16);
    const { bytesRead } = await handle.read(prefix, 0, 16, 0);
    if (bytesRead < 16 || prefix.toString('latin1', 0, 8) !== MAGIC) return 'not an Argonaut checkpoint (wrong magic)';
    if (prefix.readUInt32LE(8) > CHECKPOINT_VERSION) return `checkpoint version ${prefix.readUInt32LE(8)} is newer than this build reads`;
    const jsonBytes = prefix.readUInt32LE(12);
    if (16 + jsonBytes > size) return `truncated: header of ${jsonBytes} bytes, file of ${size}`;
    const json = Buffer.alloc(jsonBytes);
    await handle.read(json, 0, jsonBytes, 16);
    const header = JSON.parse(json.toString('utf8')) as CheckpointHeader;
    if (header.format !== 'argonaut-checkpoint' || !Array.isArray(header.blobs)) return 'corrupt checkpoint header';
    let expected = align(16 + jsonBytes);
    for (const b of header.blobs) expected += align(b.bytes);
    // The last blob's padding may be absent only if the writer skipped it; ours always pads.
    return expected === size ? undefined : `size ${size} bytes, the header describes ${expected}`;
  } catch (error) {
    return `cannot read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`;
  } finally {
    await handle?.close();
  }
}
