/** The messages between view-image-pool.ts and its worker threads (view-image-worker.ts). */
import type { ErrorEnvelope } from '../../../shared/rpc/errors.js';
import type { Image } from '../formats/images.js';
import type { DatasetView } from './types.js';
import type { ViewImageOptions } from './view-image.js';

/** What crosses to a thread: everything but the callbacks (a warning comes back in the reply). */
export type ViewImageWorkerOptions = Omit<ViewImageOptions, 'warn' | 'decoder'>;

export interface ViewImageTask {
  id: number;
  view: DatasetView;
  options: ViewImageWorkerOptions;
}

export type ViewImageReply =
  | { id: number; image: Image; warnings: string[] }
  | { id: number; error: ErrorEnvelope | { message: string }; warnings: string[] };
