/**
 * SIFT features of a list of images with the next image decoded while this one is on the GPU:
 * sharp decodes on libuv's threads and the grey conversion runs while the extractor waits for its
 * read-backs, so on a fast GPU a frame costs max(decode, extraction) instead of their sum.
 * Results come in the files' order; at most one image is decoded ahead (memory stays two
 * images). An error names the file it came from; `signal` stops between images.
 */
import { ArgonautError } from '../../../shared/rpc/errors.js';
import type { Features, SiftExtractor } from './features.js';
import { loadGreyImage, type GreyImage } from './grey-image.js';
import type { KeypointMask } from './keypoint-selection.js';

export interface ExtractAllOptions {
  /** Decodes one file (default loadGreyImage); an image and, optionally, its keypoint mask. */
  load?: (file: string, index: number) => Promise<GreyImage | { image: GreyImage; mask?: KeypointMask }>;
  /** Called in order as each image's features are ready (progress, writing as they come). */
  onEach?: (features: Features, index: number, file: string) => void | Promise<void>;
  signal?: AbortSignal;
}

interface Loaded {
  image: GreyImage;
  mask?: KeypointMask;
}

/** Every file's features, in order. */
export async function extractAll(extractor: SiftExtractor, files: readonly string[], options: ExtractAllOptions = {}): Promise<Features[]> {
  const load = options.load ?? loadGreyImage;
  const start = (index: number): Promise<Loaded> => {
    const file = files[index];
    const pending = Promise.resolve()
      .then(() => load(file, index))
      .then((loaded) => ('data' in loaded ? { image: loaded } : loaded), (error: unknown) => {
        throw namingFile(file, error);
      });
    // a prefetch that fails while the current image is still extracting is reported when its turn comes
    pending.catch(() => undefined);
    return pending;
  };
  const out: Features[] = [];
  let next = files.length ? start(0) : undefined;
  for (let i = 0; i < files.length; i++) {
    throwIfCancelled(options.signal);
    const { image, mask } = await next!;
    next = i + 1 < files.length ? start(i + 1) : undefined;
    let features: Features;
    try {
      features = await extractor.extract(image, mask);
    } catch (error) {
      throw namingFile(files[i], error);
    }
    out.push(features);
    await options.onEach?.(features, i, files[i]);
  }
  throwIfCancelled(options.signal);
  return out;
}

function throwIfCancelled(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new ArgonautError('cancelled', 'SIFT extraction cancelled');
}

/** The error as it was where its message already names the file, else with the file in front (same code). */
function namingFile(file: string, error: unknown): Error {
  const message = error instanceof Error ? error.message : String(error);
  if (message.includes(file)) return error instanceof Error ? error : new Error(message);
  const code = error instanceof ArgonautError ? error.code : 'internal';
  const details = error instanceof ArgonautError && error.details && typeof error.details === 'object' ? error.details : {};
  return new ArgonautError(code, `${file}: ${message}`, { file, ...details });
}
