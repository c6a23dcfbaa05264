import type { RpcMessage } from './messages.js';

/**
 * Encodes RPC messages for byte-stream transports (WebSocket). Messages without binary data
 * become a JSON text frame; messages that carry ArrayBuffers or typed arrays become one binary
 * frame: "ARG1", u32 JSON length, the JSON (with {"$bin": i, "$type": T} placeholders), then
 * each blob as u32 length + bytes, 4-byte aligned. Large data never goes through JSON.
 */
const MAGIC = 0x31475241; // "ARG1" little-endian

type TypedArrayName =
  | 'ArrayBuffer' | 'Uint8Array' | 'Int8Array' | 'Uint8ClampedArray' | 'Uint16Array' | 'Int16Array'
  | 'Uint32Array' | 'Int32Array' | 'Float32Array' | 'Float64Array';

const CONSTRUCTORS: Record<Exclude<TypedArrayName, 'ArrayBuffer'>, new (buffer: ArrayBuffer, offset?: number, length?: number) => ArrayBufferView> = {
  Uint8Array, Int8Array, Uint8ClampedArray, Uint16Array, Int16Array, Uint32Array, Int32Array, Float32Array, Float64Array,
};

function binaryName(value: unknown): TypedArrayName | undefined {
  if (value instanceof ArrayBuffer) return 'ArrayBuffer';
  if (ArrayBuffer.isView(value) && !(value instanceof DataView)) {
    const name = value.constructor.name as TypedArrayName;
    return name in CONSTRUCTORS ? name : undefined;
  }
  return undefined;
}

export function encodeMessage(message: RpcMessage): string | Uint8Array {
  const blobs: Uint8Array[] = [];
  const json = JSON.stringify(message, (_key, value: unknown) => {
    const name = binaryName(value);
    if (!name) return value;
    const bytes = value instanceof ArrayBuffer ? new Uint8Array(value) : new Uint8Array((value as ArrayBufferView).buffer, (value as ArrayBufferView).byteOffset, (value as ArrayBufferView).byteLength);
    blobs.push(bytes);
    return { $bin: blobs.length - 1, $type: name };
  });
  if (blobs.length === 0) return json;
  const jsonBytes = new TextEncoder().encode(json);
  const align = (n: number) => (n + 3) & ~3;
  let size = 8 + align(jsonBytes.length);
  for (const blob of blobs) size += 4 + align(blob.length);
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  view.setUint32(0, MAGIC, true);
  view.setUint32(4, jsonBytes.length, true);
  out.set(jsonBytes, 8);
  let offset = 8 + align(jsonBytes.length);
  for (const blob of blobs) {
    view.setUint32(offset, blob.length, true);
    out.set(blob, offset + 4);
    offset += 4 + align(blob.length);
  }
  return out;
}

/** Decodes a frame; throws on anything malformed (the caller drops the connection). */
export function decodeMessage(frame: string | ArrayBuffer | Uint8Array): unknown {
  if (typeof frame === 'string') return JSON.parse(frame);
  const bytes = frame instanceof Uint8Array ? frame : new Uint8Array(frame);
  if (bytes.length < 8) throw new Error('frame too short');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint32(0, true) !== MAGIC) throw new Error('bad frame magic');
  const jsonLength = view.getUint32(4, true);
  const align = (n: number) => (n + 3) & ~3;
  if (8 + jsonLength > bytes.length) throw new Error('frame JSON length out of range');
  const json = new TextDecoder().decode(bytes.subarray(8, 8 + jsonLength));
  const blobs: ArrayBuffer[] = [];
  let offset = 8 + align(jsonLength);
  while (offset < bytes.length) {
    if (offset + 4 > bytes.length) throw new Error('truncated blob header');
    const length = view.getUint32(offset, true);
    if (offset + 4 + length > bytes.length) throw new Error('truncated blob');
    blobs.push(bytes.slice(offset + 4, offset + 4 + length).buffer);
    offset += 4 + align(length);
  }
  return JSON.parse(json, (_key, value: unknown) => {
    if (value && typeof value === 'object' && '$bin' in value && '$type' in value) {
      const { $bin, $type } = value as { $bin: number; $type: TypedArrayName };
      const blob = blobs[$bin];
      if (!blob) throw new Error(`missing blob ${$bin}`);
      if ($type === 'ArrayBuffer') return blob;
      const Ctor = CONSTRUCTORS[$type as Exclude<TypedArrayName, 'ArrayBuffer'>];
      if (!Ctor) throw new Error(`unknown binary type ${String($type)}`);
      const bytesPer = (Ctor as unknown as { BYTES_PER_ELEMENT: number }).BYTES_PER_ELEMENT;
      if (blob.byteLength % bytesPer !== 0) throw new Error(`blob ${$bin} is not a whole number of ${$type} elements`);
      return new Ctor(blob, 0, blob.byteLength / bytesPer);
    }
    return value;
  });
}
