import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { badInput } from '../../../shared/rpc/errors.js';
import type { PinholeCamera } from '../../../shared/scene/camera.js';
import type { SplatSet } from '../../../shared/scene/splats.js';
import { writeFileAtomic } from '../../engine/formats/atomic-file.js';
import { readPly } from '../../engine/formats/ply.js';
import { encodePngRgb } from '../../engine/formats/images.js';
import { openGpu } from '../../engine/gpu/context.js';
import { Project } from '../../engine/project/project.js';
import { projectSplats } from '../../engine/project/splats.js';
import { pickView, projectViews } from '../../engine/project/views.js';
import { renderImage } from '../../engine/render/render-image.js';
import { renderVideoCommand } from './render-video.js';
import { UsageError } from '../args.js';
import { JSON_OPTION, type CommandSpec } from '../command.js';
import { isProjectFile } from '../../../shared/project/manifest.js';

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

export const renderCommand: CommandSpec = {
  name: 'render',
  summary: "render a splat PLY from a camera, or a project's newest splats from one of its views, to a PNG; or a project along a camera path to an MP4",
  usage: 'render <splats.ply> --camera cam.json --out image.png | render <file.argo> --view K --out image.png | render <file.argo> --path path.json|--orbit --out video.mp4 [--width W --height H] [--fps N] [--duration S]  [--background black|white] [--antialiased] [--sh-degree N]',
  options: [
    JSON_OPTION,
    { flag: 'camera', type: 'string', help: 'camera file: {"width","height","fx","fy","cx","cy","world_to_camera": 4x4 row-major, OpenCV axes}', valueName: 'cam.json' },
    { flag: 'view', type: 'int', help: "projects: view K of the project's dataset (0-based, dataset order; train and test views), at the run's resolution", valueName: 'K' },
    { flag: 'out', type: 'string', help: 'the PNG to write', valueName: 'image.png' },
    { flag: 'path', type: 'string', help: 'projects: a camera path file (docs/paths.md) to render to an MP4 (H.264, needs ffmpeg)', valueName: 'path.json' },
    { flag: 'orbit', type: 'bool', help: "projects: render an orbit around the scene (its training cameras' centre, height and field of view) to an MP4" },
    { flag: 'width', type: 'int', help: 'video: frame width, even (default: the training views\' width, else 1280)', valueName: 'W' },
    { flag: 'height', type: 'int', help: 'video: frame height, even (default: the training views\' height, else 720)', valueName: 'H' },
    { flag: 'fps', type: 'int', help: 'video: frames per second (default 30)', valueName: 'N' },
    { flag: 'duration', type: 'float', help: '--orbit: seconds for one turn (default 4)', valueName: 'S' },
    { flag: 'turns', type: 'float', help: '--orbit: turns around the scene (default 1)', valueName: 'N' },
    { flag: 'background', type: 'string', help: "black or white (default: black; projects: the run's background)", valueName: 'colour' },
    { flag: 'antialiased', type: 'bool', help: "Mip-Splatting's 2D filter with opacity compensation (projects: the run's setting)" },
    { flag: 'sh-degree', type: 'int', help: 'SH degree to evaluate (default: the file\'s)' },
  ],
  async run(context) {
    const { positionals, options, out, engineOptions, cwd } = context;
    const [input, ...extra] = positionals;
    if (!input || extra.length) throw new UsageError('render needs exactly one splats.ply or file.argo');
    if (!options.out) throw new UsageError('render needs --out image.png');
    const background = options.background as string | undefined;
    if (background !== undefined && background !== 'black' && background !== 'white') throw new UsageError(`--background: expected black or white, got "${background}"`);
    const project = isProjectFile(input) ? await Project.open(path.resolve(cwd, input)) : undefined;
    const video = options.path !== undefined || Boolean(options.orbit);
    if (video && !project) throw new UsageError('--path and --orbit render a project (file.argo) to a video');
    if (video) return renderVideoCommand(project!, context);
    for (const flag of ['width', 'height', 'fps', 'duration', 'turns']) if (options[flag] !== undefined) throw new UsageError(`--${flag} is for videos (--path or --orbit)`);
    if (options.view !== undefined && options.camera !== undefined) throw new UsageError('give --view or --camera, not both');
    if (options.view !== undefined && !project) throw new UsageError('--view needs a project (file.argo); a PLY needs --camera cam.json');
    if (options.view === undefined && !options.camera) throw new UsageError(project ? 'render needs --view K or --camera cam.json' : 'render needs --camera cam.json');
    let splats: SplatSet;
    let camera: PinholeCamera;
    let rgb: [number, number, number] = background === 'white' ? [1, 1, 1] : [0, 0, 0];
    let antialiased = Boolean(options.antialiased);
    const described: Record<string, unknown> = {};
    if (project) {
      const found = await projectSplats(project, (m) => out.warn(m));
      splats = found.splats;
      Object.assign(described, { project: project.file, run: found.run.id, step: found.step, source: found.file });
      antialiased ||= Boolean(found.run.params['train.antialiased']);
      if (options.view !== undefined) {
        const views = await projectViews(project);
        const view = pickView(project, views, options.view as number);
        camera = view.camera;
        if (background === undefined) rgb = [...views.background];
        Object.assign(described, { view: options.view, view_name: view.name, split: view.split });
      } else camera = await readCameraFile(path.resolve(cwd, options.camera as string));
    } else {
      splats = await readPly(path.resolve(cwd, input));
      camera = await readCameraFile(path.resolve(cwd, options.camera as string));
    }
    const degree = (options['sh-degree'] as number | undefined) ?? splats.shDegree;
    if (degree < 0 || degree > splats.shDegree) throw new UsageError(`--sh-degree: the splats have degree ${splats.shDegree}`);
    const outFile = path.resolve(cwd, options.out as string);
    const gpu = await openGpu(engineOptions);
    try {
      const image = await renderImage(gpu, splats, camera, { background: rgb, antialiased, shDegree: degree });
      await writeFileAtomic(outFile, await encodePngRgb(image.rgba, camera.width, camera.height)); // errors name the file and why
      out.result({ out: outFile, width: camera.width, height: camera.height, splats: splats.count, visible: image.visible, intersections: image.intersections, ...described }, `rendered ${splats.count.toLocaleString()} splats (${image.visible.toLocaleString()} visible) -> ${outFile}`);
    } finally {
      gpu.destroy();
    }
  },
};
