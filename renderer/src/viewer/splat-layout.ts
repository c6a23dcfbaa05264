/**
 * The 32-byte splat layout lives in shared/scene/splat-layout.ts (the engine's snapshots and
 * `.splat` export write it, this viewer reads it); the viewer adds robust bounds for fit-to-scene.
 */
import type { SplatBufferViews } from '../../../shared/scene/splat-layout.js';

export * from '../../../shared/scene/splat-layout.js';

export interface Bounds {
  min: [number, number, number];
  max: [number, number, number];
}

/**
 * Bounds of the splat centres between two quantiles per axis (default 2 % .. 98 %), so a few
 * far-away floaters (common early in training) do not make fit-to-scene zoom out to nothing.
 * Samples at most `maxSamples` splats; returns undefined for an empty buffer.
 */
export function robustBounds(views: SplatBufferViews, lowQuantile = 0.02, highQuantile = 0.98, maxSamples = 20000): Bounds | undefined {
  if (views.count === 0) return undefined;
  const stride = Math.max(1, Math.floor(views.count / maxSamples));
  const n = Math.ceil(views.count / stride);
  const axes = [new Float32Array(n), new Float32Array(n), new Float32Array(n)];
  for (let i = 0, k = 0; i < views.count; i += stride, k++) {
    for (let a = 0; a < 3; a++) axes[a][k] = views.floats[i * 8 + a];
  }
  const min: [number, number, number] = [0, 0, 0];
  const max: [number, number, number] = [0, 0, 0];
  for (let a = 0; a < 3; a++) {
    const sorted = axes[a].sort();
    min[a] = sorted[Math.floor(lowQuantile * (n - 1))];
    max[a] = sorted[Math.ceil(highQuantile * (n - 1))];
  }
  return { min, max };
}
