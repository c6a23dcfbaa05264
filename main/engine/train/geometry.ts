import { bindGroup, createStorage, createUniform, type GpuRegion } from '../gpu/buffers.js';
import type { GpuCommands } from '../gpu/commands.js';
import type { GpuContext } from '../gpu/context.js';
import type { CompiledPipeline } from '../gpu/kernels.js';
import { UniformStruct } from '../gpu/uniforms.js';
import type { RasterFrame } from '../render/rasterizer.js';
import type { PinholeCamera } from '../../../shared/scene/camera.js';

const TS = 16;

/** Weights of the geometry regularizers at one step (0 before their start step). */
export interface GeometryWeights {
  distortion: number;
  normal: number;
}

/**
 * The 2DGS-style geometry regularizers (kernels/geometry.wgsl): depth distortion and normal
 * consistency. Writes the rasterizer backward's auxiliary inputs (dL/d distortion, dL/d normals).
 */
export class GeometryLoss {
  /** The frame's pixelGrads.aux and .normals, which this writes. */
  readonly vAux: GpuRegion;
  readonly vNormals: GpuRegion;
  /** vec2 per 16x16 tile: (sum distortion, sum (1 - N . S)). */
  readonly sums: GPUBuffer;
  private readonly params: GPUBuffer;
  private readonly group: GPUBindGroup;
  private readonly tilesX: number;
  /** Tiles of the last encoded image. */
  active = { width: 0, height: 0, tiles: 0 };

  private constructor(private readonly ctx: GpuContext, private readonly pipeline: CompiledPipeline, frame: RasterFrame) {
    const { device } = ctx;
    this.tilesX = Math.ceil(frame.width / TS);
    if (!frame.pixelGrads) throw new Error('GeometryLoss: the frame has no backward (a forward-only rasterizer)');
    this.vAux = frame.pixelGrads.aux;
    this.vNormals = frame.pixelGrads.normals;
    this.sums = createStorage(device, 'geometry.sums', this.tilesX * Math.ceil(frame.height / TS) * 8);
    this.params = createUniform(device, 'geometry.params', 48);
    this.group = bindGroup(device, pipeline, { 0: this.params, 1: frame.normals, 2: frame.geometry, 3: frame.image, 4: this.vAux, 5: this.vNormals, 6: this.sums });
  }

  static async create(ctx: GpuContext, frame: RasterFrame): Promise<GeometryLoss> {
    const [pipeline] = await ctx.kernels.preload([{ kernel: 'geometry', entryPoint: 'geometry_loss' }]);
    return new GeometryLoss(ctx, pipeline, frame);
  }

  /** Records the regularizers' gradients for the frame's last forward (of `camera`). */
  encode(commands: GpuCommands, camera: PinholeCamera, weights: GeometryWeights): void {
    const tx = Math.ceil(camera.width / TS);
    const ty = Math.ceil(camera.height / TS);
    this.active = { width: camera.width, height: camera.height, tiles: tx * ty };
    const params = UniformStruct.of('geometry', 'GeometryParams').pack({
      width: camera.width,
      height: camera.height,
      tiles_x: tx,
      fx: camera.fx,
      fy: camera.fy,
      cx: camera.cx,
      cy: camera.cy,
      lambda_distortion: weights.distortion,
      lambda_normal: weights.normal,
    });
    this.ctx.device.queue.writeBuffer(this.params, 0, params);
    commands.dispatch(this.pipeline, [this.group], tx, ty);
  }

  /** Mean distortion and mean normal inconsistency from the read-back sums. */
  static value(sums: Float32Array, width: number, height: number): { distortion: number; normal: number } {
    let d = 0;
    let n = 0;
    for (let i = 0; i + 1 < sums.length; i += 2) {
      d += sums[i];
      n += sums[i + 1];
    }
    const p = width * height;
    return { distortion: d / p, normal: n / p };
  }

  get activeSumsBytes(): number {
    return this.active.tiles * 8;
  }

  destroy(): void {
    for (const b of [this.sums, this.params]) b.destroy();
  }
}
