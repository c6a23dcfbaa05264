/**
 * The GPU selection (kernels/edit-select.wgsl): a scene's splats uploaded once, then each request
 * (a shape, a mode, the current selection) is one dispatch and one readback of the new bitmask and
 * its count. 10M splats: 440 MB on the GPU (means, log scales, opacity logits, DC colours) and
 * 1.25 MB of mask each way per request.
 */
import { shCoefficientCount, type SplatSet } from '../../../shared/scene/splats.js';
import type { SelectionMode, SelectionShapeKind } from '../../../shared/contract/edit-select.js';
import { bindGroup, createStorage, createUniform, poisonBuffer, readBuffer, uploadStorage } from '../gpu/buffers.js';
import type { GpuCommands } from '../gpu/commands.js';
import type { GpuContext } from '../gpu/context.js';
import type { CompiledPipeline, KernelVariant } from '../gpu/kernels.js';
import { UniformStruct } from '../gpu/uniforms.js';
import { checkMask, maskWords } from '../../../shared/edits/selection-mask.js';
import { checkSelectRequest, DEFAULT_SELECT_NEAR, isScreenShape, modeUsesShape, screenBounds, solidFrame, type SelectRequest } from './select-shape.js';
import type { SelectResult } from './select-reference.js';

/** The kernel's shape and mode codes (kernels/edit-select.wgsl's SHAPE_ and MODE_ constants). */
const SHAPE_CODES: Readonly<Record<SelectionShapeKind | 'none', number>> = { none: 0, rect: 1, lasso: 2, brush: 3, box: 4, ellipsoid: 5, opacity: 6, size: 7, colour: 8 };
const MODE_CODES: Readonly<Record<SelectionMode, number>> = { replace: 0, add: 1, subtract: 2, intersect: 3, invert: 4, all: 5, none: 6 };

/** Lasso and brush bounds are a reject test only: widened by this many pixels so float32 rounding of the bounds never rejects a splat the exact test would keep. */
const BOUNDS_SLACK_PX = 1e-3;

export interface GpuSelectionOptions {
  /** Threads a workgroup: a multiple of 32, at most 256 (default 256). */
  workgroupSize?: number;
  variant?: KernelVariant;
}

const selectParams = () => UniformStruct.of('edit-select', 'SelectParams');

/** Packs SelectParams for a request over `count` splats (checked before). */
export function packSelectParams(request: SelectRequest, count: number, bands?: ShapeBands): ArrayBuffer {
  const shape = modeUsesShape(request.mode) ? request.shape : undefined;
  const camera = shape && isScreenShape(shape) ? request.camera : undefined;
  const m = camera?.worldToCamera ?? [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0];
  let bounds = [0, 0, 0, 0];
  let points = 0;
  const solid = { centre: [0, 0, 0, 0], axes: [[1, 0, 0, 1], [0, 1, 0, 1], [0, 0, 1, 1]] };
  let colour = [0, 0, 0, 0];
  let range = [0, 0];
  if (shape) {
    if (isScreenShape(shape)) {
      bounds = screenBounds(shape);
      if (shape.kind !== 'rect') bounds = [bounds[0] - BOUNDS_SLACK_PX, bounds[1] - BOUNDS_SLACK_PX, bounds[2] + BOUNDS_SLACK_PX, bounds[3] + BOUNDS_SLACK_PX];
      points = shape.kind === 'lasso' ? shape.points.length : shape.kind === 'brush' ? shape.circles.length : 0;
    } else if (shape.kind === 'box' || shape.kind === 'ellipsoid') {
      const f = solidFrame(shape.kind === 'box' ? shape.box : shape.ellipsoid);
      solid.centre = [...f.centre, 0];
      solid.axes = f.axes.map((a, k) => [...a, f.half[k]]);
    } else if (shape.kind === 'colour') colour = [...shape.rgb, shape.distance];
    else if (shape.kind === 'opacity' || shape.kind === 'size') range = [shape.min, shape.max];
  }
  return selectParams().pack({
    r0: m.slice(0, 4),
    r1: m.slice(4, 8),
    r2: m.slice(8, 12),
    focal: [camera?.fx ?? 1, camera?.fy ?? 1],
    principal: [camera?.cx ?? 0, camera?.cy ?? 0],
    bounds,
    solid_centre: solid.centre,
    solid_axis0: solid.axes[0],
    solid_axis1: solid.axes[1],
    solid_axis2: solid.axes[2],
    colour,
    range,
    near: request.near ?? DEFAULT_SELECT_NEAR,
    count,
    words: maskWords(count),
    shape: SHAPE_CODES[shape?.kind ?? 'none'],
    mode: MODE_CODES[request.mode],
    points,
    bands: bands?.bands ?? 0,
    band_y0: bands?.y0 ?? 0,
    band_scale: bands?.scale ?? 0,
    _pad0: 0,
  });
}

/** Most bands a lasso's or brush's bounding box is cut into (about one per 2 items: a few each). */
const MAX_BANDS = 256;
/** How far (in bands) an item's y range is widened before it is listed: float32's band of a point may differ from float64's by far less. */
const BAND_SLACK = 0.01;

export interface ShapeBands {
  bands: number;
  y0: number;
  /** Bands per pixel. */
  scale: number;
  /** Per band: its first entry in `items` and its entry count. */
  ranges: Uint32Array;
  /** Lasso: edge j runs from vertex j to vertex j + 1 (mod n); brush: circle j. */
  items: Uint32Array;
}

/**
 * Cuts the shape's bounding box into horizontal bands, each listing every item (a lasso edge, a
 * brush circle) whose y range, widened by BAND_SLACK, reaches it. An edge that does not reach a
 * point's row never toggles the even-odd test, and a circle that does not reach it cannot hold
 * it, so testing a band's items gives the same answer as testing them all.
 */
export function shapeBands(yRanges: readonly (readonly [number, number])[]): ShapeBands {
  const n = yRanges.length;
  let y0 = Infinity;
  let y1 = -Infinity;
  for (const [lo, hi] of yRanges) {
    y0 = Math.min(y0, lo);
    y1 = Math.max(y1, hi);
  }
  const bands = y1 > y0 ? Math.max(1, Math.min(MAX_BANDS, Math.ceil(n / 2))) : 1;
  const scale = y1 > y0 ? bands / (y1 - y0) : 0;
  const lists: number[][] = Array.from({ length: bands }, () => []);
  yRanges.forEach(([lo, hi], j) => {
    const first = Math.max(0, Math.floor((lo - y0) * scale - BAND_SLACK));
    const last = Math.min(bands - 1, Math.floor((hi - y0) * scale + BAND_SLACK));
    for (let band = first; band <= last; band++) lists[band].push(j);
  });
  const ranges = new Uint32Array(2 * bands);
  const items: number[] = [];
  lists.forEach((list, band) => {
    ranges[2 * band] = items.length;
    ranges[2 * band + 1] = list.length;
    for (const j of list) items.push(j);
  });
  return { bands, y0, scale, ranges, items: Uint32Array.from(items) };
}

/** The bands of a lasso (its edges' y ranges) or a brush (its circles'); none for other shapes. */
function bandsOf(request: SelectRequest): ShapeBands | undefined {
  const shape = modeUsesShape(request.mode) ? request.shape : undefined;
  if (shape?.kind === 'lasso') {
    const p = shape.points;
    return shapeBands(p.map(([, a], j) => {
      const b = p[(j + 1) % p.length][1];
      return [Math.min(a, b), Math.max(a, b)] as const;
    }));
  }
  if (shape?.kind === 'brush') return shapeBands(shape.circles.map((c) => [c.centre[1] - c.radius, c.centre[1] + c.radius] as const));
  return undefined;
}

/** The shape's points as the kernel reads them (vec4 each: lasso x, y; brush x, y, radius), then its bands and their items. */
function shapePoints(request: SelectRequest, bands?: ShapeBands): Float32Array {
  const shape = modeUsesShape(request.mode) ? request.shape : undefined;
  const items = shape?.kind === 'lasso' ? shape.points.map(([x, y]) => [x, y, 0, 0]) : shape?.kind === 'brush' ? shape.circles.map((c) => [c.centre[0], c.centre[1], c.radius, 0]) : [];
  if (!items.length) return new Float32Array(4);
  const n = items.length;
  const out = new Float32Array(4 * (n + (bands ? bands.bands + Math.ceil(bands.items.length / 4) : 0)));
  items.forEach((v, i) => out.set(v, 4 * i));
  if (bands) {
    const bits = new Uint32Array(out.buffer);
    for (let b = 0; b < bands.bands; b++) bits.set([bands.ranges[2 * b], bands.ranges[2 * b + 1]], 4 * (n + b));
    bits.set(bands.items, 4 * (n + bands.bands));
  }
  return out;
}

export class GpuSelection {
  private readonly owned: GPUBuffer[] = [];
  private readonly means: GPUBuffer;
  private readonly logScales: GPUBuffer;
  private readonly opacityLogits: GPUBuffer;
  private readonly dc: GPUBuffer;
  private readonly current: GPUBuffer;
  private readonly exclude: GPUBuffer;
  /** The new mask's words, then its count. */
  readonly out: GPUBuffer;
  private readonly uniform: GPUBuffer;
  private points: GPUBuffer;
  private pointsCapacity = 1;
  private group: GPUBindGroup;
  readonly words: number;

  private constructor(
    private readonly ctx: GpuContext,
    readonly count: number,
    splats: SplatSet,
    private readonly pipeline: CompiledPipeline,
    private readonly workgroupSize: number,
  ) {
    const { device } = ctx;
    this.words = maskWords(count);
    const own = (b: GPUBuffer) => (this.owned.push(b), b);
    const stride = shCoefficientCount(splats.shDegree) * 3;
    const dc = new Float32Array(count * 3);
    for (let i = 0; i < count; i++) for (let c = 0; c < 3; c++) dc[3 * i + c] = splats.sh[i * stride + c];
    this.means = own(uploadStorage(device, 'select.means', splats.means.subarray(0, 3 * count)));
    this.logScales = own(uploadStorage(device, 'select.logScales', splats.logScales.subarray(0, 3 * count)));
    this.opacityLogits = own(uploadStorage(device, 'select.opacityLogits', splats.opacityLogits.subarray(0, count)));
    this.dc = own(uploadStorage(device, 'select.dc', dc));
    this.current = own(createStorage(device, 'select.current', this.words * 4));
    this.exclude = own(createStorage(device, 'select.exclude', this.words * 4));
    this.out = own(createStorage(device, 'select.out', (this.words + 1) * 4));
    this.uniform = own(createUniform(device, 'select.params', selectParams().size));
    this.points = createStorage(device, 'select.points', 16);
    this.group = this.bind();
  }

  /** Uploads the scene's splats (only what selection reads: 40 B a splat). */
  static async create(ctx: GpuContext, splats: SplatSet, options: GpuSelectionOptions = {}): Promise<GpuSelection> {
    const WG = options.workgroupSize ?? 256;
    if (WG % 32 !== 0 || WG < 32 || WG > 256) throw new RangeError(`select: workgroupSize must be a multiple of 32 in [32, 256] (got ${WG})`);
    const pipeline = await ctx.kernels.get({ kernel: 'edit-select', entryPoint: 'select_splats', constants: { WG }, variant: options.variant });
    return new GpuSelection(ctx, splats.count, splats, pipeline, WG);
  }

  private bind(): GPUBindGroup {
    return bindGroup(this.ctx.device, this.pipeline, { 0: this.uniform, 1: this.means, 2: this.logScales, 3: this.opacityLogits, 4: this.dc, 5: this.points, 6: this.current, 7: this.exclude, 8: this.out });
  }

  /** Splats never selected from now on (hidden, deleted); none clears it. */
  setExclude(mask?: Uint32Array): void {
    if (mask) checkMask(mask, this.count, 'select: exclude mask');
    const { queue } = this.ctx.device;
    if (mask) queue.writeBuffer(this.exclude, 0, mask);
    else queue.writeBuffer(this.exclude, 0, new Uint32Array(this.words));
  }

  /**
   * Writes the request's uniforms, points and current mask and records its dispatch (and the
   * count's clear). Writes happen at once (queue.writeBuffer): submit before encoding another.
   */
  encodeSelect(commands: GpuCommands, request: SelectRequest): void {
    checkSelectRequest(request);
    if (request.exclude) throw new RangeError('select: GpuSelection takes the exclude mask through setExclude, once per scene state');
    const { device } = this.ctx;
    if (request.current) checkMask(request.current, this.count, 'select: current selection');
    const bands = bandsOf(request);
    const points = shapePoints(request, bands);
    if (points.length / 4 > this.pointsCapacity) {
      this.points.destroy();
      this.pointsCapacity = points.length / 4;
      this.points = createStorage(device, 'select.points', points.byteLength);
      this.group = this.bind();
    }
    device.queue.writeBuffer(this.points, 0, points);
    device.queue.writeBuffer(this.uniform, 0, packSelectParams(request, this.count, bands));
    if (request.current) device.queue.writeBuffer(this.current, 0, request.current);
    else device.queue.writeBuffer(this.current, 0, new Uint32Array(this.words));
    commands.clearBuffer(this.out, this.words * 4, 4);
    const groups = Math.max(1, Math.ceil(this.count / this.workgroupSize));
    const x = Math.min(groups, device.limits.maxComputeWorkgroupsPerDimension);
    commands.dispatch(this.pipeline, [this.group], x, Math.ceil(groups / x));
  }

  /** One request: the new mask and its count. `poison` fills the output first (parity tests). */
  async select(request: SelectRequest, options: { poison?: boolean } = {}): Promise<SelectResult> {
    if (options.poison) poisonBuffer(this.ctx.device, this.out);
    const commands = this.ctx.commands('select');
    this.encodeSelect(commands, request);
    await commands.submit();
    const bytes = new Uint32Array(await readBuffer(this.ctx.device, this.out, (this.words + 1) * 4));
    return { mask: bytes.slice(0, this.words), count: bytes[this.words] };
  }

  destroy(): void {
    for (const b of this.owned) b.destroy();
    this.points.destroy();
  }
}
