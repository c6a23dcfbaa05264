/** Types for codecs.mjs (plain JavaScript so that decode workers can load it; see its header). */
export type CodecFormat = 'png' | 'jpeg';

export interface CodecPixels {
  width: number;
  height: number;
  channels: 3 | 4;
  /** Row-major, interleaved, 8 bits per channel; owns its whole ArrayBuffer. */
  data: Uint8Array;
}

export const MAX_IMAGE_PIXELS: number;
export function decodePngPixels(bytes: Uint8Array): CodecPixels;
export function decodeJpegPixels(bytes: Uint8Array): CodecPixels;
export function decodePixels(format: CodecFormat, bytes: Uint8Array): CodecPixels;
