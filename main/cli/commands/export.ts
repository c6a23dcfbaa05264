import path from 'node:path';
import { EXPORT_FORMATS, type ExportFormat } from '../../../shared/project/manifest.js';
import { readPly } from '../../engine/formats/ply.js';
import { exportProject, exportSplats } from '../../engine/project/export.js';
import { Project } from '../../engine/project/project.js';
import { UsageError } from '../args.js';
import { JSON_OPTION, type CommandSpec } from '../command.js';
import { isProjectFile } from './train-project.js';

/** `export <file.argo|splats.ply> --format ply|splat|spz --out PATH`. */
export const exportCommand: CommandSpec = {
  name: 'export',
  summary: "write a project's newest splats (or a splat PLY) as a standard 3DGS PLY, an antimatter15 .splat or a Niantic SPZ (v2)",
  usage: 'export <file.argo|splats.ply> --format ply|splat|spz --out PATH [--json]',
  options: [
    JSON_OPTION,
    { flag: 'format', type: 'string', help: 'ply (standard 3DGS PLY), splat (32-byte records, sorted by importance) or spz (Niantic SPZ v2, gzip)', valueName: 'ply|splat|spz' },
    { flag: 'out', type: 'string', help: 'the file to write (atomically; its folder must exist)', valueName: 'path' },
  ],
  async run({ positionals, options, out, cwd }) {
    const [input, ...extra] = positionals;
    if (!input || extra.length) throw new UsageError('export needs exactly one file.argo or splats.ply');
    const format = options.format as string | undefined;
    if (!format || !(EXPORT_FORMATS as readonly string[]).includes(format)) throw new UsageError(`--format: expected ${EXPORT_FORMATS.join(', ')}${format ? `, got "${format}"` : ''}`);
    if (!options.out) throw new UsageError('export needs --out PATH');
    const target = path.resolve(cwd, options.out as string);
    const source = path.resolve(cwd, input);
    const result = isProjectFile(input)
      ? await exportProject(await Project.open(source), format as ExportFormat, target, (m) => out.warn(m))
      : await exportSplats(await readPly(source), format as ExportFormat, target);
    if (result.clamped) out.warn(`${target}: ${result.clamped} coordinates lay outside SPZ's range (+-2048) and were clamped`);
    out.result({ ...result, out: result.path, source }, `exported ${result.splats.toLocaleString()} splats as ${format} (${result.bytes.toLocaleString()} bytes) -> ${result.path}`);
  },
};
