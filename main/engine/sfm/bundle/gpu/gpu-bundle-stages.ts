/**
 * The GPU bundle adjuster's buffers and stages (kernels/bundle-*.wgsl): one object per GPU
 * context, its buffers grown to the largest problem loaded so far. Each stage records its
 * dispatches into a GpuCommands; nothing here reads back except the read* helpers (tests, and the
 * solver's one read-back per LM iteration, readStep).
 *
 * Stages of one LM iteration: linearise (skipped after a rejected step: the point is the same),
 * blocks (V_j and its damped inverse, the camera blocks and the preconditioner, at lambda), the
 * right-hand side b, PCG (pcg_init, then per step S p by the two schur kernels and pcg_step),
 * back-substitution (dp), the candidate (applyStep) and the step's statistics.
 */
import { bindGroup, createStorage, createUniform, poisonBuffer, readBuffer, writeRange } from '../../../gpu/buffers.js';
import type { GpuCommands } from '../../../gpu/commands.js';
import type { GpuContext } from '../../../gpu/context.js';
import type { CompiledPipeline, KernelVariant } from '../../../gpu/kernels.js';
import { UniformStruct } from '../../../gpu/uniforms.js';
import type { BaOptions, BaProblem } from '../problem.js';
import { buildGpuLayout, CHUNK_SUMS, LIN_STRIDE, packModel, packObservations, POINT_STRIDE, SEG_STRIDE, SEG_VALUES, VEC, VEC_SLOTS, type GpuBundleLayout } from './gpu-layout.js';

const WG = 64;
const TOTAL_WG = 256;
const SCALARS = 16;
const LOSS_ID = { trivial: 0, huber: 1, cauchy: 2 } as const;

const ENTRY_POINTS = {
  linearise: 'bundle-linearise',
  point_blocks: 'bundle-blocks',
  camera_chunks: 'bundle-blocks',
  camera_blocks: 'bundle-blocks',
  schur_points: 'bundle-schur',
  schur_chunks: 'bundle-schur',
  schur_segments: 'bundle-schur',
  back_substitute: 'bundle-schur',
  pcg_init: 'bundle-pcg',
  pcg_step: 'bundle-pcg',
  apply_step: 'bundle-update',
  step_partials: 'bundle-update',
  step_total: 'bundle-update',
} as const;
type EntryPoint = keyof typeof ENTRY_POINTS;

/** What the solver reads back once per LM iteration (bundle-pcg / bundle-update scalars). */
export interface StepReadback {
  /** The candidate parameters (model layout). */
  candidate: Float32Array;
  pcgIterations: number;
  /** |r| / |b| after the last PCG step. */
  pcgRelativeResidual: number;
  /** The weighted linear model's decrease (float32). */
  predictedReduction: number;
  /** The robust cost at the linearisation point, float32 (1/2 sum rho). */
  linearisedCost: number;
  stepNorm: number;
  maxGradient: number;
}

type Buffers = Record<'model' | 'candidate' | 'topo' | 'obsXY' | 'lin' | 'pblocks' | 'blocks' | 'vectors' | 'obsF' | 'partials' | 'scalars', GPUBuffer>;

export class GpuBundleStages {
  private buffers: Partial<Buffers> = {};
  private readonly uniforms = new Map<string, GPUBuffer>();
  private uniformValues: Record<string, number> = {};
  private layoutValue: GpuBundleLayout | undefined;

  private constructor(
    readonly ctx: GpuContext,
    private readonly pipelines: Readonly<Record<EntryPoint, CompiledPipeline>>,
  ) {}

  static async create(ctx: GpuContext, variant?: KernelVariant): Promise<GpuBundleStages> {
    const names = Object.keys(ENTRY_POINTS) as EntryPoint[];
    const compiled = await ctx.kernels.preload(names.map((entryPoint) => ({ kernel: ENTRY_POINTS[entryPoint], entryPoint, variant })));
    return new GpuBundleStages(ctx, Object.fromEntries(names.map((n, i) => [n, compiled[i]])) as Record<EntryPoint, CompiledPipeline>);
  }

  get layout(): GpuBundleLayout {
    if (!this.layoutValue) throw new Error('bundle/gpu: no problem loaded (call load first)');
    return this.layoutValue;
  }

  /**
   * Uploads a problem (already in its normalised frame): topology, observations, the model.
   * `poison`: every output buffer filled with NaN first (parity tests: what a stage leaves
   * unwritten shows).
   */
  load(problem: BaProblem, options: BaOptions, poison = false): GpuBundleLayout {
    const layout = buildGpuLayout(problem, options);
    this.layoutValue = layout;
    const sizes: Record<keyof Buffers, number> = {
      model: 4 * layout.modelFloats,
      candidate: 4 * layout.modelFloats,
      topo: 4 * layout.topology.length,
      obsXY: 8 * layout.observations,
      lin: 4 * LIN_STRIDE * layout.observations,
      pblocks: 4 * POINT_STRIDE * layout.points,
      blocks: 4 * (SEG_STRIDE * layout.segments + SEG_VALUES * layout.chunks),
      vectors: 4 * (VEC_SLOTS * layout.variables + 3 * layout.points + CHUNK_SUMS * layout.chunks),
      obsF: 8 * layout.observations,
      partials: 16 * this.partialCount(),
      scalars: 4 * SCALARS,
    };
    for (const [name, size] of Object.entries(sizes) as [keyof Buffers, number][]) {
      const current = this.buffers[name];
      if (current && current.size >= size) continue;
      current?.destroy();
      // grown by half again, so a sequence of growing problems reallocates rarely
      this.buffers[name] = createStorage(this.ctx.device, `bundle.${name}`, Math.ceil(size * (current ? 1.5 : 1)));
    }
    const device = this.ctx.device;
    const b = this.buffers as Buffers;
    if (poison) for (const name of ['candidate', 'lin', 'pblocks', 'blocks', 'vectors', 'obsF', 'partials', 'scalars'] as const) poisonBuffer(device, b[name]);
    writeRange(device, b.topo, layout.topology);
    writeRange(device, b.obsXY, packObservations(problem, layout));
    writeRange(device, b.model, packModel(problem, layout));
    this.uniformValues = {
      observations: layout.observations,
      points: layout.points,
      images: layout.images,
      cameras: layout.cameras,
      segments: layout.segments,
      variables: layout.variables,
      loss: LOSS_ID[options.loss],
      loss_scale: options.lossScalePx,
      pcg_tolerance: options.pcgTolerance,
      lambda: 0,
      partials: this.partialCount(),
      chunks: layout.chunks,
      ...layout.offsets,
    };
    this.writeUniforms();
    return layout;
  }

  /** The damping for the stages recorded next (written to every uniform before the next submit). */
  setLambda(lambda: number): void {
    this.uniformValues.lambda = lambda;
    this.writeUniforms();
  }

  private partialCount(): number {
    const l = this.layoutValue!;
    return Math.max(1, Math.ceil((l.observations + l.points + l.variables) / TOTAL_WG));
  }

  private uniform(mode: 0 | 1 | 2, vecIn: number, vecOut: number): GPUBuffer {
    const key = `${mode}:${vecIn}:${vecOut}`;
    let buffer = this.uniforms.get(key);
    if (!buffer) {
      buffer = createUniform(this.ctx.device, `bundle.params ${key}`, UniformStruct.of('bundle-common', 'BaParams').size);
      this.uniforms.set(key, buffer);
      this.writeUniform(key, buffer);
    }
    return buffer;
  }

  private writeUniforms() {
    for (const [key, buffer] of this.uniforms) this.writeUniform(key, buffer);
  }

  private writeUniform(key: string, buffer: GPUBuffer) {
    const [mode, vec_in, vec_out] = key.split(':').map(Number);
    this.ctx.device.queue.writeBuffer(buffer, 0, UniformStruct.of('bundle-common', 'BaParams').pack({ ...this.uniformValues, mode, vec_in, vec_out, _pad0: 0, _pad1: 0, _pad2: 0 }));
  }

  private dispatch(commands: GpuCommands, entry: EntryPoint, groups: number, uniform = this.uniform(0, VEC.p, VEC.q)) {
    const pipeline = this.pipelines[entry];
    const b = this.buffers as Buffers;
    const group = bindGroup(this.ctx.device, pipeline, { 0: uniform, ...this.bindingsOf(entry, b) });
    const x = Math.min(Math.max(groups, 1), this.ctx.device.limits.maxComputeWorkgroupsPerDimension);
    commands.dispatch(pipeline, [group], x, Math.ceil(Math.max(groups, 1) / x), 1, `bundle.${entry}`);
  }

  private bindingsOf(entry: EntryPoint, b: Buffers): Record<number, GPUBuffer> {
    switch (ENTRY_POINTS[entry]) {
      case 'bundle-linearise':
        return { 1: b.model, 2: b.topo, 3: b.obsXY, 4: b.lin };
      case 'bundle-blocks':
        return { 1: b.topo, 2: b.lin, 3: b.pblocks, 4: b.blocks, 5: b.vectors };
      case 'bundle-schur':
        return { 1: b.topo, 2: b.lin, 3: b.pblocks, 4: b.blocks, 5: b.vectors, 6: b.obsF, 7: b.scalars };
      case 'bundle-pcg':
        return { 1: b.topo, 2: b.blocks, 3: b.vectors, 4: b.scalars };
      case 'bundle-update':
        return { 1: b.topo, 2: b.model, 3: b.candidate, 4: b.vectors, 5: b.lin, 6: b.pblocks, 7: b.partials, 8: b.scalars };
    }
  }

  linearise(commands: GpuCommands): void {
    this.dispatch(commands, 'linearise', Math.ceil(this.layout.observations / WG));
  }

  blocks(commands: GpuCommands): void {
    this.dispatch(commands, 'point_blocks', Math.ceil(this.layout.points / WG));
    this.dispatch(commands, 'camera_chunks', this.layout.chunks);
    this.dispatch(commands, 'camera_blocks', Math.ceil(this.layout.segments / WG));
  }

  /** vec_out = S vec_in (mode 0; 2: inside PCG, skipped once it converged) or b (mode 1, into VEC.b). */
  schur(commands: GpuCommands, mode: 0 | 1 | 2, vecIn: number = VEC.p, vecOut: number = mode ? VEC.b : VEC.q): void {
    const uniform = this.uniform(mode, vecIn, vecOut);
    this.dispatch(commands, 'schur_points', Math.ceil(this.layout.points / WG), uniform);
    this.dispatch(commands, 'schur_chunks', this.layout.chunks, uniform);
    this.dispatch(commands, 'schur_segments', Math.ceil(this.layout.segments / WG), uniform);
  }

  /** pcg_init then `iterations` steps (each a no-op once converged): dc in VEC.x. */
  pcg(commands: GpuCommands, iterations: number): void {
    this.dispatch(commands, 'pcg_init', 1);
    for (let k = 0; k < iterations; k++) {
      this.schur(commands, 2, VEC.p, VEC.q);
      this.dispatch(commands, 'pcg_step', 1);
    }
  }

  /** dp from dc in slot `vecIn`. */
  backSubstitute(commands: GpuCommands, vecIn: number = VEC.x): void {
    this.dispatch(commands, 'back_substitute', Math.ceil(this.layout.points / WG), this.uniform(0, vecIn, VEC.q));
  }

  /** The candidate model from dc (VEC.x) and dp, and the step's statistics into the scalars. */
  applyStep(commands: GpuCommands): void {
    const l = this.layout;
    this.dispatch(commands, 'apply_step', Math.ceil((l.images + l.cameras + l.points) / WG));
    this.dispatch(commands, 'step_partials', this.partialCount());
    this.dispatch(commands, 'step_total', 1);
  }

  /** An accepted step: the candidate becomes the model. */
  acceptCandidate(commands: GpuCommands): void {
    const b = this.buffers as Buffers;
    commands.copyBuffer(b.candidate, 0, b.model, 0, 4 * this.layout.modelFloats);
  }

  /** The one read-back of an LM iteration: the candidate and the scalars, copied into one staging buffer. */
  async readStep(): Promise<StepReadback> {
    const b = this.buffers as Buffers;
    const modelBytes = 4 * this.layout.modelFloats;
    const staging = this.ctx.device.createBuffer({ label: 'bundle.step readback', size: modelBytes + 4 * SCALARS, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
    const encoder = this.ctx.device.createCommandEncoder({ label: 'bundle.step readback' });
    encoder.copyBufferToBuffer(b.candidate, 0, staging, 0, modelBytes);
    encoder.copyBufferToBuffer(b.scalars, 0, staging, modelBytes, 4 * SCALARS);
    this.ctx.device.queue.submit([encoder.finish()]);
    await staging.mapAsync(GPUMapMode.READ);
    const raw = staging.getMappedRange().slice(0);
    staging.unmap();
    staging.destroy();
    const scalars = new Float32Array(raw, modelBytes, SCALARS);
    return {
      candidate: new Float32Array(raw, 0, this.layout.modelFloats),
      pcgIterations: scalars[3],
      pcgRelativeResidual: scalars[1] > 0 ? Math.sqrt(scalars[4] / scalars[1]) : 0,
      predictedReduction: scalars[8],
      linearisedCost: 0.5 * scalars[9],
      stepNorm: Math.sqrt(scalars[10]),
      maxGradient: scalars[11],
    };
  }

  // Read-backs and writes for tests (never inside a solve).
  async read(name: keyof Buffers, floats: number): Promise<Float32Array> {
    return new Float32Array(await readBuffer(this.ctx.device, (this.buffers as Buffers)[name], 4 * floats));
  }

  readLinearisation(): Promise<Float32Array> {
    return this.read('lin', LIN_STRIDE * this.layout.observations);
  }

  readPointBlocks(): Promise<Float32Array> {
    return this.read('pblocks', POINT_STRIDE * this.layout.points);
  }

  readCameraBlocks(): Promise<Float32Array> {
    return this.read('blocks', SEG_STRIDE * this.layout.segments);
  }

  async readVector(slot: number): Promise<Float32Array> {
    const n = this.layout.variables;
    return new Float32Array(await readBuffer(this.ctx.device, (this.buffers as Buffers).vectors, 4 * n, 4 * n * slot));
  }

  async readPointStep(): Promise<Float32Array> {
    const offset = 4 * VEC_SLOTS * this.layout.variables;
    return new Float32Array(await readBuffer(this.ctx.device, (this.buffers as Buffers).vectors, 12 * this.layout.points, offset));
  }

  writeVector(slot: number, values: ArrayLike<number>): void {
    writeRange(this.ctx.device, (this.buffers as Buffers).vectors, Float32Array.from(values), 4 * this.layout.variables * slot);
  }

  readScalars(): Promise<Float32Array> {
    return this.read('scalars', SCALARS);
  }

  destroy(): void {
    for (const buffer of Object.values(this.buffers)) buffer?.destroy();
    for (const buffer of this.uniforms.values()) buffer.destroy();
    this.buffers = {};
    this.uniforms.clear();
  }
}
