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
 * H200 does one in ~0.1 ms), each block submitted on its own. On a hardware GPU the cap is
 * MAX_DOTS_PER_DISPATCH_HARDWARE, and matchImagePairs batches many pairs into one dispatch up to
 * it (match-batch.ts): one pair is a few workgroups, far too few to fill such a GPU.
 */
import { bindGroup, createStorage, createUniform, poisonBuffer, readBuffer, uploadStorage } from '../gpu/buffers.js';
import type { GpuContext } from '../gpu/context.js';
import type { CompiledPipeline, KernelVariant } from '../gpu/kernels.js';
import { UniformStruct } from '../gpu/uniforms.js';
import { MERGE_WORKGROUP, planMatchBatches, QUERIES_PER_WORKGROUP } from './match-batch.js';
import { DESCRIPTOR_BYTE_SCALE, DESCRIPTOR_SIZE } from './sift-options.js';

export { QUERIES_PER_WORKGROUP } from './match-batch.js';

export const MAX_DOTS_PER_DISPATCH = 1 << 22;
/**
 * The cap on a hardware adapter: 2^29 dot products, ~13 ms on an H200 at its ~0.1 ms per 2^22
 * (a GPU 50x slower still finishes well inside a 2 s watchdog); ~70 pairs of 2,800 features.
 */
export const MAX_DOTS_PER_DISPATCH_HARDWARE = 1 << 29;
/** Byte dot products over this are the unit descriptors' cosines. */
const DOT_SCALE = DESCRIPTOR_BYTE_SCALE * DESCRIPTOR_BYTE_SCALE;
/** Trains staged at a time (kernels/match-nearest.wgsl TRAIN_TILE): a train block is a multiple. */
const TRAIN_TILE = 8;
const NONE = 0xffffffff;
/** u32 words of kernels/match-nearest.wgsl's Segment. */
const SEGMENT_WORDS = 12;

/** One pair of a dispatch, as kernels/match-nearest.wgsl's Segment (its header says what each field is). */
export interface Segment {
  queryFirst: number;
  queryCount: number;
  queryIndexFirst: number;
  trainFirst: number;
  trainCount: number;
  forwardFirst: number;
  backwardFirst: number;
  columnFirst: number;
  columnRows: number;
  rowFirst: number;
  mergeFirst: number;
}

function packSegments(segments: readonly Segment[]): Uint32Array {
  const words = new Uint32Array(SEGMENT_WORDS * segments.length);
  segments.forEach((g, k) => words.set([g.queryFirst, g.queryCount, g.queryIndexFirst, g.trainFirst, g.trainCount, g.forwardFirst, g.backwardFirst, g.columnFirst, g.columnRows, g.rowFirst, g.mergeFirst, 0], SEGMENT_WORDS * k));
  return words;
}

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

  /** `maxDotsPerDispatch`: by default MAX_DOTS_PER_DISPATCH on a software adapter, MAX_DOTS_PER_DISPATCH_HARDWARE on a GPU. */
  static async create(ctx: GpuContext, variant?: KernelVariant, maxDotsPerDispatch = ctx.info.adapter.software ? MAX_DOTS_PER_DISPATCH : MAX_DOTS_PER_DISPATCH_HARDWARE): Promise<FeatureMatcher> {
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
    const block = this.queryBlock(m);
    const trainBlock = this.trainBlock(m);
    // one segment a dispatch: every workgroup's table entry is 0
    const table = uploadStorage(device, 'match.table', new Uint32Array(Math.max(Math.ceil(Math.min(block, n) / QUERIES_PER_WORKGROUP), Math.ceil(m / MERGE_WORKGROUP))));
    const owned: GPUBuffer[] = [out, columns, table];
    if (poison) for (const b of [out, columns]) poisonBuffer(device, b);
    const whole: Segment = { queryFirst: 0, queryCount: n, queryIndexFirst: 0, trainFirst: 0, trainCount: m, forwardFirst: 0, backwardFirst: n, columnFirst: 0, columnRows: rows, rowFirst: 0, mergeFirst: 0 };
    const segment = (values: Partial<Segment>) => {
      const buffer = uploadStorage(device, 'match.segments', packSegments([{ ...whole, ...values }]));
      owned.push(buffer);
      return buffer;
    };
    try {
      for (let first = 0; first < n; first += block) {
        const count = Math.min(block, n - first);
        const blockSegment = segment({ queryFirst: first, queryCount: count, queryIndexFirst: first, forwardFirst: first });
        // train blocks in order: each merges its rows into what the earlier ones left in `out`
        for (let trainFirst = 0; trainFirst < m; trainFirst += trainBlock) {
          const commands = this.ctx.commands('match.nearest');
          const group = bindGroup(device, this.nearestPipeline, { 0: this.params(owned, { train_first: trainFirst, train_end: Math.min(m, trainFirst + trainBlock) }), 1: query.buffer, 2: train.buffer, 3: out, 4: columns, 5: blockSegment, 6: table });
          commands.dispatch(this.nearestPipeline, [group], Math.ceil(count / QUERIES_PER_WORKGROUP));
          await commands.submit();
        }
      }
      const commands = this.ctx.commands('match.merge');
      commands.dispatch(this.mergePipeline, [bindGroup(device, this.mergePipeline, { 0: this.params(owned, {}), 3: out, 4: columns, 5: segment({}), 6: table })], Math.ceil(m / MERGE_WORKGROUP));
      await commands.submit();
      const raw = await readBuffer(device, out, (n + m) * 16);
      this.ctx.assertNoErrors('descriptor matching');
      return { forward: unpackNearest(raw, 0, n), backward: unpackNearest(raw, n, m) };
    } finally {
      for (const b of owned) b.destroy();
    }
  }

  /**
   * Many pairs in one dispatch (and one merge, one read-back): `descriptors` holds every image of
   * the batch, and pair k's queries and trains are its [queryFirst, + queryCount) and
   * [trainFirst, + trainCount) (none empty). The answers are nearestBoth's for each pair alone.
   * The caller keeps the batch within the cap (match-batch.ts: dots, workgroups per dispatch).
   */
  async nearestBatch(descriptors: GPUBuffer, pairs: readonly { queryFirst: number; queryCount: number; trainFirst: number; trainCount: number }[], poison = false): Promise<{ forward: Nearest; backward: Nearest }[]> {
    const { device } = this.ctx;
    const segments: Segment[] = [];
    let answers = 0;
    let columnEntries = 0;
    let rowsTotal = 0;
    let mergeTotal = 0;
    for (const p of pairs) {
      if (!p.queryCount || !p.trainCount) throw new Error('match: a batched pair has no descriptors on one side (matchImagePairs matches those alone)');
      const rows = Math.ceil(p.queryCount / QUERIES_PER_WORKGROUP);
      segments.push({ ...p, queryIndexFirst: 0, forwardFirst: answers, backwardFirst: answers + p.queryCount, columnFirst: columnEntries, columnRows: rows, rowFirst: rowsTotal, mergeFirst: mergeTotal });
      answers += p.queryCount + p.trainCount;
      columnEntries += rows * p.trainCount;
      rowsTotal += rows;
      mergeTotal += Math.ceil(p.trainCount / MERGE_WORKGROUP);
    }
    const table = new Uint32Array(rowsTotal + mergeTotal);
    segments.forEach((g, k) => {
      table.fill(k, g.rowFirst, g.rowFirst + g.columnRows);
      table.fill(k, rowsTotal + g.mergeFirst, rowsTotal + g.mergeFirst + Math.ceil(g.trainCount / MERGE_WORKGROUP));
    });
    const out = createStorage(device, 'match.best', answers * 16);
    const columns = createStorage(device, 'match.columns', columnEntries * 16);
    const owned: GPUBuffer[] = [out, columns, uploadStorage(device, 'match.segments', packSegments(segments)), uploadStorage(device, 'match.table', table)];
    const [, , segmentBuffer, tableBuffer] = owned;
    if (poison) for (const b of [out, columns]) poisonBuffer(device, b);
    try {
      const commands = this.ctx.commands('match.batch');
      const bindings = { 1: descriptors, 2: descriptors, 3: out, 4: columns, 5: segmentBuffer, 6: tableBuffer };
      commands.dispatch(this.nearestPipeline, [bindGroup(device, this.nearestPipeline, { 0: this.params(owned, { train_first: 0, train_end: NONE }), ...bindings })], rowsTotal);
      commands.dispatch(this.mergePipeline, [bindGroup(device, this.mergePipeline, { 0: this.params(owned, { table_first: rowsTotal }), 3: out, 4: columns, 5: segmentBuffer, 6: tableBuffer })], mergeTotal);
      await commands.submit();
      const raw = await readBuffer(device, out, answers * 16);
      this.ctx.assertNoErrors('descriptor matching (batched)');
      return segments.map((g) => ({ forward: unpackNearest(raw, g.forwardFirst, g.queryCount), backward: unpackNearest(raw, g.backwardFirst, g.trainCount) }));
    } finally {
      for (const b of owned) b.destroy();
    }
  }

  /** The dispatch's MatchParams (a uniform the caller's `owned` list destroys). */
  private params(owned: GPUBuffer[], values: Record<string, number>): GPUBuffer {
    const struct = UniformStruct.of('match-nearest', 'MatchParams');
    const buffer = createUniform(this.ctx.device, 'match.params', struct.size);
    owned.push(buffer);
    this.ctx.device.queue.writeBuffer(buffer, 0, struct.pack({ train_first: 0, train_end: 0, table_first: 0, ...values }));
    return buffer;
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
 * Batches matched at once by matchImagePairs: the next batch's dispatches are queued while the
 * host waits for this one's read-back and applies its tests, so the GPU does not idle through a
 * round trip per batch.
 */
export const BATCHES_IN_FLIGHT = 2;

/**
 * Matches every pair of `pairs` (match-pairs.ts) among `images`, each image's descriptors uploaded
 * once and kept for all its pairs (1 MiB an image at 8192 features). Consecutive pairs are
 * matched together, one dispatch a batch (match-batch.ts), within the matcher's cap: on a
 * software adapter (its cap 2^22) pairs of thousands of features go one at a time as before.
 * Results in `pairs` order, the same bytes as matching each pair alone. `onPair`: after each
 * pair, in pair order: (done, total, that pair's matches), so a caller can start on a pair's
 * matches (capture verifies them) while the rest are matched. `maxDotsPerDispatch` overrides
 * the matcher's cap (tests, benchmarks).
 */
export async function matchImagePairs(ctx: GpuContext, images: readonly { descriptors: Uint8Array }[], pairs: readonly (readonly [number, number])[], options: Partial<MatchOptions> = {}, onPair?: (done: number, total: number, matches: Uint32Array) => void, maxDotsPerDispatch?: number): Promise<Uint32Array[]> {
  for (const pair of pairs) for (const i of pair) if (!Number.isInteger(i) || i < 0 || i >= images.length) throw new Error(`match: pair names image ${i}, but there are ${images.length}`);
  const o = { ...MATCH_DEFAULTS, ...options };
  const matcher = await FeatureMatcher.create(ctx, undefined, maxDotsPerDispatch);
  const { device } = ctx;
  const uploaded = new Map<number, GpuDescriptors>();
  const on = (i: number) => {
    let d = uploaded.get(i);
    if (!d) uploaded.set(i, (d = matcher.upload(images[i].descriptors, `match.image${i}`)));
    return d;
  };
  const counts = images.map((im) => im.descriptors.length / DESCRIPTOR_SIZE);
  const batches = planMatchBatches(pairs, counts, {
    maxDotsPerDispatch: matcher.maxDotsPerDispatch,
    maxDescriptorBytes: Math.min(device.limits.maxStorageBufferBindingSize, device.limits.maxBufferSize, 256 << 20),
    maxWorkgroups: device.limits.maxComputeWorkgroupsPerDimension,
  });
  const runBatch = async (batch: (typeof batches)[number]): Promise<Uint32Array[]> => {
    if (batch.kind === 'alone') {
      const [i, j] = pairs[batch.pair];
      return [await matcher.match(on(i), on(j), o)];
    }
    // the batch's images side by side in one buffer (GPU copies of their uploads)
    const first = new Map<number, number>();
    let total = 0;
    for (const image of batch.images) {
      first.set(image, total);
      total += counts[image];
    }
    const descriptors = createStorage(device, 'match.batch-descriptors', total * DESCRIPTOR_SIZE);
    try {
      const encoder = device.createCommandEncoder({ label: 'match.batch-gather' });
      for (const image of batch.images) encoder.copyBufferToBuffer(on(image).buffer, 0, descriptors, first.get(image)! * DESCRIPTOR_SIZE, counts[image] * DESCRIPTOR_SIZE);
      device.queue.submit([encoder.finish()]);
      const answers = await matcher.nearestBatch(descriptors, batch.pairs.map((k) => ({ queryFirst: first.get(pairs[k][0])!, queryCount: counts[pairs[k][0]], trainFirst: first.get(pairs[k][1])!, trainCount: counts[pairs[k][1]] })));
      return answers.map(({ forward, backward }) => acceptMatches(forward, o.mutual ? backward : undefined, o));
    } finally {
      descriptors.destroy();
    }
  };
  const inFlight: Promise<Uint32Array[]>[] = [];
  try {
    const out: Uint32Array[] = [];
    const settleOldest = async () => {
      for (const matches of await inFlight.shift()!) {
        out.push(matches);
        onPair?.(out.length, pairs.length, matches);
      }
    };
    for (const batch of batches) {
      const pending = runBatch(batch);
      pending.catch(() => {}); // a failure is thrown where it is awaited, not as an unhandled rejection
      inFlight.push(pending);
      if (inFlight.length >= BATCHES_IN_FLIGHT) await settleOldest();
    }
    while (inFlight.length) await settleOldest();
    return out;
  } finally {
    await Promise.allSettled(inFlight); // nothing still reads the buffers destroyed below
    for (const d of uploaded.values()) d.buffer.destroy();
  }
}
