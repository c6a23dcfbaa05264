/**
 * Brute-force descriptor matching on the GPU (kernels/match-nearest.wgsl): for each descriptor of
 * one image the two nearest of the other's by dot product, both directions; then on the host
 * (O(n), from the two small read-backs) COLMAP's tests on the angle between unit descriptors,
 * d = acos(dot): keep i -> j when d_best <= maxDistance and d_best < ratio d_second, and (mutual
 * check) when j's own best is i.
 *
 * Work is split by blocks of queries so that no dispatch holds more than MAX_DOTS_PER_DISPATCH
 * dot products (2^22: ~80 ms on this machine's llvmpipe, well under a driver's watchdog; an
 * H200 does one in ~0.1 ms), each block submitted on its own.
 */
import { bindGroup, createStorage, createUniform, readBuffer, uploadStorage } from '../gpu/buffers.js';
import type { GpuContext } from '../gpu/context.js';
import type { CompiledPipeline, KernelVariant } from '../gpu/kernels.js';
import { UniformStruct } from '../gpu/uniforms.js';
import { DESCRIPTOR_BYTE_SCALE, DESCRIPTOR_SIZE } from './sift-options.js';

export const MAX_DOTS_PER_DISPATCH = 1 << 22;
/** Byte dot products over this are the unit descriptors' cosines. */
const DOT_SCALE = DESCRIPTOR_BYTE_SCALE * DESCRIPTOR_BYTE_SCALE;
const WORKGROUP = 64;

export interface MatchOptions {
  /** Lowe's ratio on descriptor angles (COLMAP: 0.8). */
  ratio: number;
  /** Largest angle (radians) a match may have (COLMAP: 0.7). */
  maxDistance: number;
  /** Keep only pairs that are each other's best (COLMAP: cross_check). */
  mutual: boolean;
}

export const MATCH_DEFAULTS: Readonly<MatchOptions> = { ratio: 0.8, maxDistance: 0.7, mutual: true };

/** One image's descriptors on the GPU: the bytes, 4 to a u32 word, 32 words per keypoint. */
export interface GpuDescriptors {
  readonly buffer: GPUBuffer;
  readonly count: number;
}

/** Nearest neighbours of each query: train index (0xffffffff: none), best and second dot products of the unit descriptors (-1: none). */
export interface Nearest {
  index: Uint32Array;
  best: Float64Array;
  second: Float64Array;
}

/** COLMAP's acceptance of a query's nearest neighbour. */
export function passesRatioTest(bestDot: number, secondDot: number, options: MatchOptions): boolean {
  const best = Math.acos(Math.min(1, bestDot));
  const second = Math.acos(Math.min(1, secondDot));
  return best <= options.maxDistance && best < options.ratio * second;
}

export class FeatureMatcher {
  private constructor(
    private readonly ctx: GpuContext,
    private readonly pipeline: CompiledPipeline,
    /** Dot products one dispatch may hold (tests lower it to split small sets). */
    readonly maxDotsPerDispatch: number,
  ) {}

  static async create(ctx: GpuContext, variant?: KernelVariant, maxDotsPerDispatch = MAX_DOTS_PER_DISPATCH): Promise<FeatureMatcher> {
    return new FeatureMatcher(ctx, await ctx.kernels.get({ kernel: 'match-nearest', entryPoint: 'nearest_two', variant }), maxDotsPerDispatch);
  }

  /** Queries per dispatch against `trains` descriptors: whole workgroups, at least one. */
  queryBlock(trains: number): number {
    return Math.max(WORKGROUP, Math.floor(this.maxDotsPerDispatch / Math.max(1, trains) / WORKGROUP) * WORKGROUP);
  }

  upload(descriptors: Uint8Array, label = 'match.descriptors'): GpuDescriptors {
    if (descriptors.length % DESCRIPTOR_SIZE) throw new Error(`match: ${descriptors.length} descriptor bytes is not a multiple of ${DESCRIPTOR_SIZE}`);
    // bytes packed 4 to a little-endian u32 word: byte c of a descriptor is byte c % 4 of word c / 4
    const words = new Uint32Array(descriptors.buffer.slice(descriptors.byteOffset, descriptors.byteOffset + descriptors.byteLength));
    return { buffer: uploadStorage(this.ctx.device, label, words), count: descriptors.length / DESCRIPTOR_SIZE };
  }

  /** The two nearest `train` descriptors of every `query` one. */
  async nearest(query: GpuDescriptors, train: GpuDescriptors): Promise<Nearest> {
    const { device } = this.ctx;
    const n = query.count;
    if (!n || !train.count) return { index: new Uint32Array(n).fill(0xffffffff), best: new Float64Array(n).fill(-1), second: new Float64Array(n).fill(-1) };
    const out = createStorage(device, 'match.best', n * 16);
    const struct = UniformStruct.of('match-nearest', 'MatchParams');
    const block = this.queryBlock(train.count);
    const owned: GPUBuffer[] = [out];
    try {
      for (let first = 0; first < n; first += block) {
        const count = Math.min(block, n - first);
        const params = createUniform(device, 'match.params', struct.size);
        owned.push(params);
        device.queue.writeBuffer(params, 0, struct.pack({ query_first: first, query_count: count, train_count: train.count }));
        const commands = this.ctx.commands('match.nearest');
        commands.dispatch(this.pipeline, [bindGroup(device, this.pipeline, { 0: params, 1: query.buffer, 2: train.buffer, 3: out })], Math.ceil(count / WORKGROUP));
        await commands.submit();
      }
      const raw = await readBuffer(device, out, n * 16);
      this.ctx.assertNoErrors('descriptor matching');
      const u = new Uint32Array(raw);
      const f = new Int32Array(raw);
      const nearest: Nearest = { index: new Uint32Array(n), best: new Float64Array(n), second: new Float64Array(n) };
      for (let i = 0; i < n; i++) {
        nearest.index[i] = u[4 * i];
        nearest.best[i] = f[4 * i + 1] / DOT_SCALE;
        nearest.second[i] = f[4 * i + 2] < 0 ? -1 : f[4 * i + 2] / DOT_SCALE;
      }
      return nearest;
    } finally {
      for (const b of owned) b.destroy();
    }
  }

  /** Matches (i in a, j in b) as [i0, j0, i1, j1, ...], ascending in i. */
  async match(a: GpuDescriptors, b: GpuDescriptors, options: Partial<MatchOptions> = {}): Promise<Uint32Array> {
    const o = { ...MATCH_DEFAULTS, ...options };
    const forward = await this.nearest(a, b);
    const backward = o.mutual ? await this.nearest(b, a) : undefined;
    return acceptMatches(forward, backward, o);
  }
}

/** The matches `forward` (a -> b) passes, and where `backward` (b -> a) is given, only mutual ones. */
export function acceptMatches(forward: Nearest, backward: Nearest | undefined, options: MatchOptions): Uint32Array {
  const pairs: number[] = [];
  for (let i = 0; i < forward.index.length; i++) {
    const j = forward.index[i];
    if (j === 0xffffffff || !passesRatioTest(forward.best[i], forward.second[i], options)) continue;
    if (backward && backward.index[j] !== i) continue;
    pairs.push(i, j);
  }
  return Uint32Array.from(pairs);
}

/** Matches between two images' features (uploads both; FeatureMatcher to reuse uploads across pairs). */
export async function matchFeatures(ctx: GpuContext, a: { descriptors: Uint8Array }, b: { descriptors: Uint8Array }, options: Partial<MatchOptions> = {}): Promise<Uint32Array> {
  const matcher = await FeatureMatcher.create(ctx);
  const da = matcher.upload(a.descriptors, 'match.a');
  const db = matcher.upload(b.descriptors, 'match.b');
  try {
    return await matcher.match(da, db, options);
  } finally {
    da.buffer.destroy();
    db.buffer.destroy();
  }
}

/**
 * Matches every pair of `pairs` (match-pairs.ts) among `images`, each image's descriptors uploaded
 * once and kept for all its pairs (1 MiB an image at 8192 features). Results in `pairs` order.
 * `onPair`: progress, after each pair (done, total).
 */
export async function matchImagePairs(ctx: GpuContext, images: readonly { descriptors: Uint8Array }[], pairs: readonly (readonly [number, number])[], options: Partial<MatchOptions> = {}, onPair?: (done: number, total: number) => void): Promise<Uint32Array[]> {
  const matcher = await FeatureMatcher.create(ctx);
  const uploaded = new Map<number, GpuDescriptors>();
  const on = (i: number) => {
    if (!Number.isInteger(i) || i < 0 || i >= images.length) throw new Error(`match: pair names image ${i}, but there are ${images.length}`);
    let d = uploaded.get(i);
    if (!d) uploaded.set(i, (d = matcher.upload(images[i].descriptors, `match.image${i}`)));
    return d;
  };
  try {
    const out: Uint32Array[] = [];
    for (const [i, j] of pairs) {
      out.push(await matcher.match(on(i), on(j), options));
      onPair?.(out.length, pairs.length);
    }
    return out;
  } finally {
    for (const d of uploaded.values()) d.buffer.destroy();
  }
}
