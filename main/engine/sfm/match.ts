/**
 * Brute-force descriptor matching on the GPU (kernels/match-nearest.wgsl): for each descriptor of
 * one image the two nearest of the other's by dot product, both directions from one pass over the
 * dot products (each query's row and each train's column of the same products); then on the host
 * (O(n), from the two small read-backs) COLMAP's tests on the angle between unit descriptors,
 * d = acos(dot): keep i -> j when d_best <= maxDistance and d_best < ratio d_second, and (mutual
 * check) when j's own best is i.
 *
 * Work is split by blocks of queries so that no dispatch holds more than MAX_DOTS_PER_DISPATCH
 * dot products (2^22: ~80 ms on this machine's llvmpipe, well under a driver's watchdog; an
 * H200 does one in ~0.1 ms), each block submitted on its own.
 */
import { bindGroup, createStorage, createUniform, poisonBuffer, readBuffer, uploadStorage } from '../gpu/buffers.js';
import type { GpuContext } from '../gpu/context.js';
import type { CompiledPipeline, KernelVariant } from '../gpu/kernels.js';
import { UniformStruct } from '../gpu/uniforms.js';
import { DESCRIPTOR_BYTE_SCALE, DESCRIPTOR_SIZE } from './sift-options.js';

export const MAX_DOTS_PER_DISPATCH = 1 << 22;
/** Byte dot products over this are the unit descriptors' cosines. */
const DOT_SCALE = DESCRIPTOR_BYTE_SCALE * DESCRIPTOR_BYTE_SCALE;
/** Queries of one nearest_two workgroup (kernels/match-nearest.wgsl QUERIES_PER_WORKGROUP): a dispatch's block is a multiple. */
export const QUERIES_PER_WORKGROUP = 512;
/** Trains staged at a time (kernels/match-nearest.wgsl TRAIN_TILE): a train block is a multiple. */
const TRAIN_TILE = 8;
const MERGE_WORKGROUP = 64;
const NONE = 0xffffffff;

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
    private readonly nearestPipeline: CompiledPipeline,
    private readonly mergePipeline: CompiledPipeline,
    /** Dot products one dispatch may hold (tests lower it to split small sets). */
    readonly maxDotsPerDispatch: number,
  ) {}

  static async create(ctx: GpuContext, variant?: KernelVariant, maxDotsPerDispatch = MAX_DOTS_PER_DISPATCH): Promise<FeatureMatcher> {
    const [nearest, merge] = await ctx.kernels.preload(['nearest_two', 'merge_columns'].map((entryPoint) => ({ kernel: 'match-nearest', entryPoint, variant })));
    return new FeatureMatcher(ctx, nearest, merge, maxDotsPerDispatch);
  }

  /** Queries per dispatch against `trains` descriptors: whole workgroups, at least one. */
  queryBlock(trains: number): number {
    return Math.max(QUERIES_PER_WORKGROUP, Math.floor(this.maxDotsPerDispatch / Math.max(1, trains) / QUERIES_PER_WORKGROUP) * QUERIES_PER_WORKGROUP);
  }

  /** Trains per dispatch: all of them, unless one workgroup of queries against all would pass the cap. */
  trainBlock(trains: number): number {
    if (QUERIES_PER_WORKGROUP * trains <= this.maxDotsPerDispatch) return trains;
    return Math.max(TRAIN_TILE, Math.floor(this.maxDotsPerDispatch / QUERIES_PER_WORKGROUP / TRAIN_TILE) * TRAIN_TILE);
  }

  upload(descriptors: Uint8Array, label = 'match.descriptors'): GpuDescriptors {
    if (descriptors.length % DESCRIPTOR_SIZE) throw new Error(`match: ${descriptors.length} descriptor bytes is not a multiple of ${DESCRIPTOR_SIZE}`);
    // bytes packed 4 to a little-endian u32 word: byte c of a descriptor is byte c % 4 of word c / 4
    const words = new Uint32Array(descriptors.buffer.slice(descriptors.byteOffset, descriptors.byteOffset + descriptors.byteLength));
    return { buffer: uploadStorage(this.ctx.device, label, words), count: descriptors.length / DESCRIPTOR_SIZE };
  }

  /** The two nearest `train` descriptors of every `query` one. */
  async nearest(query: GpuDescriptors, train: GpuDescriptors): Promise<Nearest> {
    return (await this.nearestBoth(query, train)).forward;
  }

  /**
   * Both directions from one pass: `forward`, the two nearest `train` descriptors of every `query`
   * one; `backward`, the two nearest `query` descriptors of every `train` one. The query blocks
   * (each one dispatch) leave a partial per workgroup and train, merged by one small dispatch; one
   * read-back holds both answers. `poison`: fill the outputs with a bit pattern first (parity
   * tests: an answer left unwritten shows).
   */
  async nearestBoth(query: GpuDescriptors, train: GpuDescriptors, poison = false): Promise<{ forward: Nearest; backward: Nearest }> {
    const { device } = this.ctx;
    const n = query.count;
    const m = train.count;
    if (!n || !m) return { forward: noNeighbours(n), backward: noNeighbours(m) };
    const out = createStorage(device, 'match.best', (n + m) * 16);
    const rows = Math.ceil(n / QUERIES_PER_WORKGROUP);
    const columns = createStorage(device, 'match.columns', rows * m * 16);
    const struct = UniformStruct.of('match-nearest', 'MatchParams');
    const block = this.queryBlock(m);
    const trainBlock = this.trainBlock(m);
    const owned: GPUBuffer[] = [out, columns];
    if (poison) for (const b of owned) poisonBuffer(device, b);
    const params = (values: Record<string, number>) => {
      const buffer = createUniform(device, 'match.params', struct.size);
      owned.push(buffer);
      device.queue.writeBuffer(buffer, 0, struct.pack({ query_first: 0, query_count: 0, train_count: m, column_rows: 0, train_first: 0, train_end: m, answer_first: 0, ...values }));
      return buffer;
    };
    try {
      for (let first = 0; first < n; first += block) {
        const count = Math.min(block, n - first);
        // train blocks in order: each merges its rows into what the earlier ones left in `out`
        for (let trainFirst = 0; trainFirst < m; trainFirst += trainBlock) {
          const commands = this.ctx.commands('match.nearest');
          const group = bindGroup(device, this.nearestPipeline, { 0: params({ query_first: first, query_count: count, train_first: trainFirst, train_end: Math.min(m, trainFirst + trainBlock) }), 1: query.buffer, 2: train.buffer, 3: out, 4: columns });
          commands.dispatch(this.nearestPipeline, [group], Math.ceil(count / QUERIES_PER_WORKGROUP));
          await commands.submit();
        }
      }
      const commands = this.ctx.commands('match.merge');
      commands.dispatch(this.mergePipeline, [bindGroup(device, this.mergePipeline, { 0: params({ column_rows: rows, answer_first: n }), 3: out, 4: columns })], Math.ceil(m / MERGE_WORKGROUP));
      await commands.submit();
      const raw = await readBuffer(device, out, (n + m) * 16);
      this.ctx.assertNoErrors('descriptor matching');
      return { forward: unpackNearest(raw, 0, n), backward: unpackNearest(raw, n, m) };
    } finally {
      for (const b of owned) b.destroy();
    }
  }

  /** Matches (i in a, j in b) as [i0, j0, i1, j1, ...], ascending in i. */
  async match(a: GpuDescriptors, b: GpuDescriptors, options: Partial<MatchOptions> = {}): Promise<Uint32Array> {
    const o = { ...MATCH_DEFAULTS, ...options };
    const { forward, backward } = await this.nearestBoth(a, b);
    return acceptMatches(forward, o.mutual ? backward : undefined, o);
  }
}

function noNeighbours(count: number): Nearest {
  return { index: new Uint32Array(count).fill(NONE), best: new Float64Array(count).fill(-1), second: new Float64Array(count).fill(-1) };
}

/** `count` answers from answer `first` of the kernel's vec4u (index, best dot, second dot as i32 bits, 0). */
function unpackNearest(raw: ArrayBuffer, first: number, count: number): Nearest {
  const u = new Uint32Array(raw, first * 16, count * 4);
  const f = new Int32Array(raw, first * 16, count * 4);
  const nearest: Nearest = { index: new Uint32Array(count), best: new Float64Array(count), second: new Float64Array(count) };
  for (let i = 0; i < count; i++) {
    nearest.index[i] = u[4 * i];
    nearest.best[i] = f[4 * i + 1] / DOT_SCALE;
    nearest.second[i] = f[4 * i + 2] < 0 ? -1 : f[4 * i + 2] / DOT_SCALE;
  }
  return nearest;
}

/** The matches `forward` (a -> b) passes, and where `backward` (b -> a) is given, only mutual ones. */
export function acceptMatches(forward: Nearest, backward: Nearest | undefined, options: MatchOptions): Uint32Array {
  const pairs: number[] = [];
  for (let i = 0; i < forward.index.length; i++) {
    const j = forward.index[i];
    if (j === NONE || !passesRatioTest(forward.best[i], forward.second[i], options)) continue;
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
 * Pairs matched at once by matchImagePairs: the next pair's dispatches are queued while the host
 * waits for this one's read-back and applies its tests, so the GPU does not idle through a round
 * trip per pair (on a GPU that finishes a pair in well under a millisecond, the round trips are the cost).
 */
export const PAIRS_IN_FLIGHT = 2;

/**
 * Matches every pair of `pairs` (match-pairs.ts) among `images`, each image's descriptors uploaded
 * once and kept for all its pairs (1 MiB an image at 8192 features). Results in `pairs` order.
 * `onPair`: after each pair, in pair order: (done, total, that pair's matches), so a caller can
 * start on a pair's matches (capture verifies them) while the rest are matched.
 */
export async function matchImagePairs(ctx: GpuContext, images: readonly { descriptors: Uint8Array }[], pairs: readonly (readonly [number, number])[], options: Partial<MatchOptions> = {}, onPair?: (done: number, total: number, matches: Uint32Array) => void): Promise<Uint32Array[]> {
  const matcher = await FeatureMatcher.create(ctx);
  const uploaded = new Map<number, GpuDescriptors>();
  const on = (i: number) => {
    if (!Number.isInteger(i) || i < 0 || i >= images.length) throw new Error(`match: pair names image ${i}, but there are ${images.length}`);
    let d = uploaded.get(i);
    if (!d) uploaded.set(i, (d = matcher.upload(images[i].descriptors, `match.image${i}`)));
    return d;
  };
  const inFlight: Promise<Uint32Array>[] = [];
  try {
    const out: Uint32Array[] = [];
    const settleOldest = async () => {
      const matches = await inFlight.shift()!;
      out.push(matches);
      onPair?.(out.length, pairs.length, matches);
    };
    for (const [i, j] of pairs) {
      const pending = matcher.match(on(i), on(j), options);
      pending.catch(() => {}); // a failure is thrown where it is awaited, not as an unhandled rejection
      inFlight.push(pending);
      if (inFlight.length >= PAIRS_IN_FLIGHT) await settleOldest();
    }
    while (inFlight.length) await settleOldest();
    return out;
  } finally {
    await Promise.allSettled(inFlight); // nothing still reads the buffers destroyed below
    for (const d of uploaded.values()) d.buffer.destroy();
  }
}
