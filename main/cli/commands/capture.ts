import path from 'node:path';
import { paramsForCommand } from '../../../shared/params/index.js';
import { captureOptionsFromParams, captureToDataset, type CaptureOptions, type CaptureReport } from '../../engine/capture/capture.js';
import { UsageError } from '../args.js';
import { JSON_OPTION, type CommandContext, type CommandSpec } from '../command.js';

/** Capture options from the registry's `capture.*` values (the import command reuses this). */
export function captureOptionsOf(context: CommandContext): Omit<CaptureOptions, 'signal' | 'onProgress' | 'onLog'> {
  return captureOptionsFromParams(context.params);
}

/** The result line's fields, snake_case like the other commands' JSON. */
export function captureResultOf(report: CaptureReport): Record<string, unknown> {
  return {
    dataset: report.datasetDir,
    registered: report.registered,
    total: report.total,
    points: report.points,
    mean_reprojection_error_px: report.meanReprojectionErrorPx,
    mean_track_length: report.meanTrackLength,
    models: report.models,
    matcher: report.matcher,
    sfm: report.sfm,
    inputs: report.inputs.map((i) => ({ name: i.name, kind: i.kind, images: i.images, registered: i.registered, unregistered: i.unregistered })),
    timings_s: report.timingsS,
    resumed: report.resumed,
    diagnostics: report.diagnostics,
    report: path.join(report.datasetDir, 'capture', 'report.json'),
  };
}

/** Progress and log lines of a capture on the terminal; shared with `import`. */
export function captureCallbacks(context: CommandContext): Pick<CaptureOptions, 'onProgress' | 'onLog'> {
  const { out } = context;
  return {
    onProgress: (p) => out.progress({ stage: p.stage, step: Math.round(p.percent), total: 100, percent: p.percent, message: [p.input, p.skipped ? '(done earlier)' : '', p.message].filter(Boolean).join(' '), ...(p.input ? { input: p.input } : {}), ...(p.skipped ? { skipped: true } : {}) }, p.skipped || p.percent >= 100),
    onLog: (level, message) => {
      out.event('log', { level, message });
      if (!out.json && level === 'warn') out.warn(message);
    },
  };
}

/** Runs a capture with progress and log lines on the terminal. */
export async function captureWithProgress(context: CommandContext, inputs: string[], outDir: string) {
  const masks = context.options.masks as string | undefined;
  return captureToDataset(inputs, outDir, { ...captureOptionsOf(context), ...(masks ? { masks: path.resolve(context.cwd, masks) } : {}), signal: context.signal, ...captureCallbacks(context) });
}

export const captureCommand: CommandSpec = {
  name: 'capture',
  summary: 'video clips and photo folders -> a posed dataset (frame selection, structure from motion: ours, or COLMAP)',
  usage: 'capture <video|images-dir>... --out DIR [--masks DIR] [--frames N] [--max-size PX] [--sfm argonaut|colmap] [--matcher auto|sequential|exhaustive] [--features auto|gpu|colmap] [--json]',
  options: [
    JSON_OPTION,
    { flag: 'out', type: 'string', help: 'dataset folder to create (or an earlier capture to resume): images/, sparse/0, capture/report.json', valueName: 'dir' },
    { flag: 'masks', type: 'string', help: "photo folders only: a mask per photo (IMG_1.jpg.png or IMG_1.png, the photo's size; zero = ignore), resized with the photos into the dataset's masks/ and given to COLMAP's feature extraction", valueName: 'dir' },
  ],
  params: () => paramsForCommand('capture').filter((p) => !p.commands.includes('*')),
  async run(context) {
    const { positionals, options, out, cwd } = context;
    if (positionals.length === 0) throw new UsageError('capture needs at least one video file or photo folder');
    if (!options.out) throw new UsageError('capture needs --out DIR');
    const outDir = path.resolve(cwd, options.out as string);
    const { report } = await captureWithProgress(context, positionals.map((p) => path.resolve(cwd, p)), outDir);
    const error = Number.isFinite(report.meanReprojectionErrorPx) ? `${report.meanReprojectionErrorPx.toFixed(2)} px` : 'n/a';
    out.result(
      captureResultOf(report),
      [
        `registered ${report.registered}/${report.total} images, ${report.points.toLocaleString()} points, mean reprojection error ${error} (${report.sfm.method === 'argonaut' ? 'our SfM' : "COLMAP's mapper"}${report.sfm.fallback ? `, after ours: ${report.sfm.fallback}` : ''}) -> ${outDir}`,
        ...report.inputs.map((i) => `  ${i.kind} ${i.name}: ${i.registered}/${i.images} registered`),
        `  timings: ${Object.entries(report.timingsS).map(([k, s]) => `${k} ${s.toFixed(1)} s`).join(', ')}`,
        `train with: argonaut --no-gui train ${outDir} --out <dir>`,
      ].join('\n'),
    );
  },
};
