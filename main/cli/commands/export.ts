import { stat } from 'node:fs/promises';
import path from 'node:path';
import { EXPORT_FORMATS, type ExportFormat } from '../../../shared/project/manifest.js';
import { exportDataset } from '../../engine/dataset/export.js';
import { readSplatsFile } from '../../engine/formats/splat-files.js';
import { exportProject, exportSplats } from '../../engine/project/export.js';
import { exportProjectWeb, exportWebViewer, type WebExportResult } from '../../engine/project/web-export.js';
import { Project } from '../../engine/project/project.js';
import { refinedCamera, runCameraCorrections } from '../../engine/project/refined-cameras.js';
import { badInput } from '../../../shared/rpc/errors.js';
import { UsageError } from '../args.js';
import { JSON_OPTION, type CommandSpec } from '../command.js';
import { isProjectFile } from '../../../shared/project/manifest.js';

const DATASET_FORMATS = ['transforms', 'colmap'] as const;
const WEB_FORMAT = 'web';
const ALL_FORMATS = [...EXPORT_FORMATS, WEB_FORMAT, ...DATASET_FORMATS];

/**
 * `export <file.argo|splat file> --format ply|splat|spz|sog|glb --out PATH` writes splats (the input file
 * in any format `import` reads);
 * `export <file.argo|splat file> --format web --out DIR [--single-file] [--force]` writes the web viewer
 * (main/engine/project/web-export.ts) with the project's camera paths;
 * `export <file.argo|dataset> --format transforms|colmap --out PATH` writes a posed dataset's cameras.
 */
export const exportCommand: CommandSpec = {
  name: 'export',
  summary: "write a project's newest splats (or a splat file) as PLY, .splat, SPZ v4, SOG, glTF (KHR_gaussian_splatting) or a web viewer, or a posed dataset's cameras as nerfstudio transforms.json or a COLMAP text model",
  usage: 'export <file.argo|splats.ply|.splat|.spz|.sog|.glb|dataset> --format ply|splat|spz|sog|glb|web|transforms|colmap --out PATH [--single-file] [--force] [--images copy|reference] [--json]',
  options: [
    JSON_OPTION,
    {
      flag: 'format', type: 'string', valueName: ALL_FORMATS.join('|'),
      help: 'splats: ply (standard 3DGS PLY), splat (32-byte records, sorted by importance), spz (Niantic SPZ v4), sog (PlayCanvas SOG bundle: WebP textures in a zip), glb (glTF binary, KHR_gaussian_splatting) or web (a folder with index.html that shows the splats and the camera paths saved in the project in any browser, from disk or a static host); cameras: transforms (transforms.json, camera-to-world, OpenGL axes) or colmap (sparse/0/*.txt)',
    },
    { flag: 'out', type: 'string', help: 'splats: the file to write (atomically; its folder must exist); web: the folder to write (new or empty; atomically), or with --single-file the HTML file; transforms: a folder (transforms.json inside) or a .json file; colmap: a folder (sparse/0 and images/ inside)', valueName: 'path' },
    { flag: 'single-file', type: 'bool', help: 'web only: one HTML file with the viewer and the scene inline (--out names the file)' },
    { flag: 'force', type: 'bool', help: 'web only: replace a folder that is not empty' },
    { flag: 'images', type: 'string', help: "cameras only: copy (default) puts the images beside the export; reference makes transforms.json point at the dataset's own images", valueName: 'copy|reference' },
  ],
  async run({ positionals, options, out, cwd }) {
    const [input, ...extra] = positionals;
    if (!input || extra.length) throw new UsageError('export needs exactly one file.argo, splat file or dataset folder');
    const format = options.format as string | undefined;
    if (!format || !(ALL_FORMATS as readonly string[]).includes(format)) throw new UsageError(`--format: expected ${ALL_FORMATS.join(', ')}${format ? `, got "${format}"` : ''}`);
    if (!options.out) throw new UsageError('export needs --out PATH');
    const target = path.resolve(cwd, options.out as string);
    const source = path.resolve(cwd, input);

    if ((DATASET_FORMATS as readonly string[]).includes(format)) {
      const images = (options.images as string | undefined) ?? 'copy';
      if (images !== 'copy' && images !== 'reference') throw new UsageError(`--images: expected copy or reference, got "${images}"`);
      let datasetPath = source;
      let corrections: Awaited<ReturnType<typeof runCameraCorrections>>;
      if (isProjectFile(input)) {
        const project = await Project.open(source);
        const found = await project.datasetPath();
        if (!found) throw badInput(source, 'the project has no dataset folder to export cameras from (it was made from a splat file or the sample scene)');
        datasetPath = found;
        // a run that refined its cameras exports the refined ones (what its splats were trained with)
        corrections = await runCameraCorrections(project);
      }
      const result = await exportDataset(datasetPath, target, { format: format as (typeof DATASET_FORMATS)[number], images, ...(corrections ? { camera: (v) => refinedCamera(corrections, v.name, v.camera) } : {}) });
      out.result(
        { out: result.out, format: result.format, views: result.views, points: result.points, images_copied: result.imagesCopied, source },
        `exported ${result.views} views${result.points ? ` and ${result.points.toLocaleString()} points` : ''} as ${result.format} -> ${result.out}`,
      );
      return;
    }
    if (options.images !== undefined) throw new UsageError('--images applies to --format transforms or colmap only');
    if (format !== WEB_FORMAT && (options['single-file'] || options.force)) throw new UsageError(`${options['single-file'] ? '--single-file' : '--force'} applies to --format web only`);
    if (!isProjectFile(input) && (await stat(source).then((st) => st.isDirectory(), () => false))) {
      throw new UsageError(`--format ${format} writes splats: give a project (.argo) or a splat file; ${source} is a folder (for a dataset's cameras use --format ${DATASET_FORMATS.join(' or ')})`);
    }
    if (format === WEB_FORMAT) {
      const webOptions = { singleFile: Boolean(options['single-file']), force: Boolean(options.force) };
      const web: WebExportResult = isProjectFile(input)
        ? await exportProjectWeb(await Project.open(source), target, webOptions, (m) => out.warn(m))
        : await readSplatsFile(source).then((read) => exportWebViewer({ name: path.basename(source, path.extname(source)), splats: read.splats, cameraPaths: [], cameras: [], antialiased: read.antialiased }, target, webOptions));
      if (web.clamped) out.warn(`${target}: ${web.clamped} coordinates lay outside SPZ's range (+-2048) and were clamped`);
      out.result(
        { ...web, out: web.path, source },
        `exported ${web.splats.toLocaleString()} splats and ${web.cameraPaths} camera path(s) as a web viewer (${web.bytes.toLocaleString()} bytes${web.singleFile ? ', one file' : `: ${web.files.join(', ')}`}) -> ${web.path}`,
      );
      return;
    }
    const result = isProjectFile(input)
      ? await exportProject(await Project.open(source), format as ExportFormat, target, (m) => out.warn(m))
      : await readSplatsFile(source).then((read) => exportSplats(read.splats, format as ExportFormat, target, { antialiased: read.antialiased }));
    if (result.clamped) out.warn(`${target}: ${result.clamped} coordinates lay outside SPZ's range (+-2048) and were clamped`);
    out.result({ ...result, out: result.path, source }, `exported ${result.splats.toLocaleString()} splats as ${format} (${result.bytes.toLocaleString()} bytes) -> ${result.path}`);
  },
};
