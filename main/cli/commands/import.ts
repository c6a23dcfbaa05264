import path from 'node:path';
import { allParams } from '../../../shared/params/index.js';
import { projectParamDefs } from '../../../shared/project/manifest.js';
import { importCapture, importRoute } from '../../engine/project/import-capture.js';
import { splatFormatOf } from '../../engine/formats/splat-files.js';
import { createSampleProject, createSplatProject, importDataset } from '../../engine/project/import.js';
import { sampleViews } from '../../engine/train/sample-scene.js';
import { UsageError } from '../args.js';
import { JSON_OPTION, type CommandSpec } from '../command.js';
import { captureCallbacks, captureOptionsOf, captureResultOf } from './capture.js';

/**
 * `import <dataset> --project p.argo`: a project from an existing dataset, validated first (every
 * image decoded); `import <video|photos-dir>... --project p.argo`: capture (frames, structure from motion) into
 * the project's data folder first (import-capture.ts); also `import <splats.ply|.splat|.spz|.sog|.glb> --project p.argo`
 * and `import --sample --project p.argo`. Training parameters given here become the project's own
 * (e.g. --downscale 4 --iterations 7000); capture parameters (--frames, --max-size, ...) apply to
 * video and photos.
 */
export const importCommand: CommandSpec = {
  name: 'import',
  summary: 'create a project (.argo) from video clips or photo folders (captured by our structure from motion, or COLMAP), a dataset folder (COLMAP, transforms.json, NeRF-synthetic), a splat file (PLY, .splat, SPZ, SOG, glTF) or the sample scene',
  usage: 'import <video|photos-dir>... | <dataset-dir|splats.ply|.splat|.spz|.sog|.glb|--sample> --project p.argo [--frames N] [--copy] [--downscale F] [--iterations N] [--json] ...',
  options: [
    JSON_OPTION,
    { flag: 'project', type: 'string', help: 'the project file to create (must end in .argo; never overwritten)', valueName: 'p.argo' },
    { flag: 'copy', type: 'bool', help: 'copy the dataset into the project\'s data folder (default: reference it by a relative path)' },
    { flag: 'sample', type: 'bool', help: 'a project on the built-in procedural sample scene' },
    { flag: 'verify-images', type: 'bool', help: 'decode every image now (default true; --verify-images=false skips; also fills the image cache)' },
  ],
  params: () => [...projectParamDefs(), ...allParams().filter((p) => p.key.startsWith('capture.'))],
  async run(context) {
    const { positionals, options, params, out, cwd } = context;
    const [input, ...extra] = positionals;
    if (!options.project) throw new UsageError('import needs --project p.argo');
    const file = path.resolve(cwd, options.project as string);
    if (options.sample) {
      if (input) throw new UsageError('--sample takes no dataset');
      const project = await createSampleProject(file, params);
      const views = sampleViews();
      const train = views.filter((v) => v.split === 'train').length;
      out.result({ project: project.file, name: project.manifest.name, format: 'sample', views: views.length, train, test: views.length - train }, `created ${project.file} on the sample scene`);
      return;
    }
    if (!input) throw new UsageError('import needs a video, a photo folder, a dataset folder, a splat file or --sample');
    const route = await importRoute(positionals.map((p) => path.resolve(cwd, p)));
    if (route !== 'capture' && extra.length) throw new UsageError(`unexpected arguments: ${extra.join(' ')} (several inputs are video clips and photo folders captured together)`);
    const capturing = Object.keys(params).filter((k) => k.startsWith('capture.'));
    if (route !== 'capture' && capturing.length) throw new UsageError(`${capturing.join(', ')} apply to video and photo inputs only; ${input} is ${route === 'splat' ? 'a splat file' : 'a dataset'}`);
    if (route === 'capture') {
      const { project, report } = await importCapture(positionals.map((p) => path.resolve(cwd, p)), file, {
        ...captureOptionsOf(context),
        params,
        verifyImages: options['verify-images'] !== false,
        signal: context.signal,
        ...captureCallbacks(context),
        onImportProgress: (stage, done, total) => out.progress({ stage, step: done, total }, done === 0 || done === total),
        warn: (m) => out.warn(m),
      });
      const ref = project.manifest.dataset;
      if (!ref || ref.kind !== 'folder') throw new Error('import: the captured project has no dataset reference');
      const error = Number.isFinite(report.meanReprojectionErrorPx) ? `${report.meanReprojectionErrorPx.toFixed(2)} px` : 'n/a';
      out.result(
        { ...captureResultOf(report), project: project.file, name: project.manifest.name, format: ref.format, views: ref.views, train: ref.train, test: ref.test, width: ref.width, height: ref.height, copied: ref.copied },
        [
          `created ${project.file}: registered ${report.registered}/${report.total} images, ${report.points.toLocaleString()} points, mean reprojection error ${error}`,
          ...report.inputs.map((i) => `  ${i.kind} ${i.name}: ${i.registered}/${i.images} registered`),
          ...report.diagnostics.filter((d) => d.level === 'warn').map((d) => `  warning: ${d.message}`),
          `train with: argonaut --no-gui train ${project.file}`,
        ].join('\n'),
      );
      return;
    }
    const source = path.resolve(cwd, input);
    if (route === 'splat') {
      const project = await createSplatProject(source, file);
      out.result({ project: project.file, name: project.manifest.name, format: splatFormatOf(source), splats: project.manifest.runs[0]?.outputs.splatCount ?? 0, views: 0, train: 0, test: 0 }, `created ${project.file} from ${source}`);
      return;
    }
    const { project, dataset } = await importDataset(source, file, {
      params,
      copy: Boolean(options.copy),
      verifyImages: options['verify-images'] !== false,
      onProgress: (stage, done, total) => out.progress({ stage, step: done, total }, done === 0 || done === total),
      warn: (m) => out.warn(m),
    });
    const ref = project.manifest.dataset;
    if (!ref || ref.kind !== 'folder') throw new Error('import: the project has no dataset reference');
    out.result(
      { project: project.file, name: project.manifest.name, format: dataset.format, views: ref.views, train: ref.train, test: ref.test, width: ref.width, height: ref.height, points: ref.points, dataset: project.resolve(ref.path), copied: ref.copied },
      `created ${project.file}: ${dataset.format} dataset, ${ref.views} views (${ref.train} train, ${ref.test} test) of ${ref.width}x${ref.height}, ${ref.points.toLocaleString()} SfM points${ref.copied ? ' (copied)' : ''}`,
    );
  },
};
