import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PNG } from 'pngjs';
import { z } from 'zod';
import { ArgonautError, badInput } from '../../../shared/rpc/errors.js';
import type { PinholeCamera } from '../../../shared/scene/camera.js';
import { readPly } from '../../engine/formats/ply.js';
import { readBuffer } from '../../engine/gpu/buffers.js';
import { openGpu } from '../../engine/gpu/context.js';
import { GpuSplats } from '../../engine/render/gpu-splats.js';
import { Rasterizer } from '../../engine/render/rasterizer.js';
import { UsageError } from '../args.js';
import { JSON_OPTION, type CommandSpec } from '../command.js';

const finite = z.number().finite();
const CameraFile = z.object({
  width: z.number().int().min(1).max(16384),
  height: z.number().int().min(1).max(16384),
  fx: finite.positive(),
  fy: finite.positive(),
  cx: finite,
  cy: finite,
  world_to_camera: z.array(z.array(finite).length(4)).length(4),
});

/** Reads and validates cam.json: {width, height, fx, fy, cx, cy, world_to_camera (4x4 row-major, OpenCV axes)}. */
export async function readCameraFile(file: string): Promise<PinholeCamera> {
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw badInput(file, code === 'ENOENT' ? 'file not found' : code ? `cannot read (${code})` : `not valid JSON (${(error as Error).message})`);
  }
  const parsed = CameraFile.safeParse(raw);
  if (!parsed.success) throw badInput(file, parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; '));
  const c = parsed.data;
  const m = c.world_to_camera;
  if (Math.abs(m[3][0]) + Math.abs(m[3][1]) + Math.abs(m[3][2]) > 1e-6 || Math.abs(m[3][3] - 1) > 1e-6) throw badInput(file, 'world_to_camera: the last row must be 0 0 0 1');
  return { width: c.width, height: c.height, fx: c.fx, fy: c.fy, cx: c.cx, cy: c.cy, worldToCamera: m.flat() };
}

/** RGBA floats (vec4 per pixel) to an 8-bit RGB PNG (alpha dropped: the background is composited). */
export function encodePng(rgba: Float32Array, width: number, height: number): Buffer {
  const png = new PNG({ width, height, colorType: 2 });
  for (let p = 0; p < width * height; p++) {
    for (let c = 0; c < 3; c++) png.data[4 * p + c] = Math.round(Math.min(1, Math.max(0, rgba[4 * p + c])) * 255);
    png.data[4 * p + 3] = 255;
  }
  return PNG.sync.write(png, { colorType: 2 });
}

export const renderCommand: CommandSpec = {
  name: 'render',
  summary: 'render a splat PLY from a camera to a PNG',
  usage: 'render <splats.ply> --camera cam.json --out image.png [--background black|white] [--antialiased] [--sh-degree N]',
  options: [
    JSON_OPTION,
    { flag: 'camera', type: 'string', help: 'camera file: {"width","height","fx","fy","cx","cy","world_to_camera": 4x4 row-major, OpenCV axes}', valueName: 'cam.json' },
    { flag: 'out', type: 'string', help: 'the PNG to write', valueName: 'image.png' },
    { flag: 'background', type: 'string', help: 'black (default) or white', valueName: 'colour' },
    { flag: 'antialiased', type: 'bool', help: "Mip-Splatting's 2D filter with opacity compensation" },
    { flag: 'sh-degree', type: 'int', help: 'SH degree to evaluate (default: the file\'s)' },
  ],
  async run({ positionals, options, out, engineOptions, cwd }) {
    const [input, ...extra] = positionals;
    if (!input || extra.length) throw new UsageError('render needs exactly one splats.ply');
    if (!options.camera) throw new UsageError('render needs --camera cam.json');
    if (!options.out) throw new UsageError('render needs --out image.png');
    const background = (options.background as string | undefined) ?? 'black';
    if (background !== 'black' && background !== 'white') throw new UsageError(`--background: expected black or white, got "${background}"`);
    const splats = await readPly(path.resolve(cwd, input));
    const camera = await readCameraFile(path.resolve(cwd, options.camera as string));
    const degree = (options['sh-degree'] as number | undefined) ?? splats.shDegree;
    if (degree < 0 || degree > splats.shDegree) throw new UsageError(`--sh-degree: the file has degree ${splats.shDegree}`);
    const outFile = path.resolve(cwd, options.out as string);
    const gpu = await openGpu(engineOptions);
    try {
      const rasterizer = await Rasterizer.create(gpu);
      const gpuSplats = GpuSplats.fromHost(gpu, splats);
      let capacity = Math.max(1 << 16, splats.count * 4);
      for (;;) {
        const frame = await rasterizer.createFrame(gpuSplats, camera.width, camera.height, capacity);
        const commands = gpu.commands('render');
        rasterizer.encodeForward(commands, frame, camera, { background: background === 'white' ? [1, 1, 1] : [0, 0, 0], antialiased: Boolean(options.antialiased), shDegree: degree });
        await commands.submit();
        const counts = await rasterizer.readCounts(frame);
        if (counts.overflow) {
          frame.destroy();
          capacity = Math.ceil(counts.intersections * 1.05);
          continue;
        }
        const rgba = new Float32Array(await readBuffer(gpu.device, frame.image, camera.width * camera.height * 16));
        try {
          await writeFile(outFile, encodePng(rgba, camera.width, camera.height));
        } catch (error) {
          throw new ArgonautError('bad_input', `${outFile}: cannot write the image (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
        }
        out.result({ out: outFile, width: camera.width, height: camera.height, splats: splats.count, visible: counts.visible, intersections: counts.intersections }, `rendered ${splats.count.toLocaleString()} splats (${counts.visible.toLocaleString()} visible) -> ${outFile}`);
        frame.destroy();
        break;
      }
      gpuSplats.destroy();
    } finally {
      gpu.destroy();
    }
  },
};
