import path from 'node:path';
import { paramsForCommand } from '../../../shared/params/index.js';
import { writeMesh, meshFormatOf } from '../../engine/formats/mesh-file.js';
import { openGpu } from '../../engine/gpu/context.js';
import { extractMesh, type MeshInput, type MeshOptions, type MeshResult } from '../../engine/mesh/extract.js';
import { meshOptionsFromParams } from '../../engine/mesh/params.js';
import { loadMeshInput, resolveMeshSource } from '../../engine/mesh/source.js';
import { loadProjectMeshInput } from '../../engine/project/mesh-input.js';
import { ArgonautError } from '../../../shared/rpc/errors.js';
import { UsageError } from '../args.js';
import { benchStamp } from '../bench-result.js';
import { JSON_OPTION, type CommandContext, type CommandSpec } from '../command.js';
import { meshSummary, resolveMeshParams } from '../mesh-options.js';
import { isProjectFile } from '../../../shared/project/manifest.js';

/** Extracts with progress on the terminal (shared by `mesh` and `bench mesh`); the GPU is opened and closed here. */
export async function extractWithProgress(context: CommandContext, input: MeshInput, options: MeshOptions): Promise<{ result: MeshResult; gpu: { info: Awaited<ReturnType<typeof openGpu>>['info'] } }> {
  const gpu = await openGpu(context.engineOptions);
  try {
    const result = await extractMesh(gpu, input, {
      ...options,
      signal: context.signal,
      onProgress: (stage, step, total) => context.out.progress({ stage: `mesh.${stage}`, step, total }, step === total),
    });
    return { result, gpu: { info: gpu.info } };
  } finally {
    gpu.destroy();
  }
}

export const meshCommand: CommandSpec = {
  name: 'mesh',
  summary: 'extract a coloured triangle mesh from trained splats (TSDF fusion and marching cubes on the GPU) to GLB, PLY or OBJ',
  usage: 'mesh <file.argo|train-output-dir|splats.ply> [--data <dataset-dir>] --out mesh.glb|mesh.ply|mesh.obj [--resolution N] [--target-triangles N] [--json]',
  options: [
    JSON_OPTION,
    { flag: 'data', type: 'string', help: 'the dataset the splats were trained on (its training cameras are the views fused); default: the one a training folder recorded in metrics.json', valueName: 'dir' },
    { flag: 'out', type: 'string', help: 'the mesh to write; the extension picks the format: .glb (glTF binary), .ply (binary) or .obj', valueName: 'file' },
  ],
  params: () => paramsForCommand('mesh').filter((p) => !p.commands.includes('*')),
  async run(context) {
    const { positionals, options, cwd, out } = context;
    const [input, ...extra] = positionals;
    if (!input || extra.length) throw new UsageError('mesh needs exactly one input: a project (.argo), a training output folder or a splats .ply');
    if (!options.out) throw new UsageError('mesh needs --out mesh.glb|mesh.ply|mesh.obj');
    const outFile = path.resolve(cwd, options.out as string);
    try {
      meshFormatOf(outFile);
    } catch (error) {
      throw new UsageError(`--out: ${(error as ArgonautError).message}`);
    }
    let meshInput: MeshInput;
    let described: Record<string, unknown>;
    let antialiased = false;
    const params = resolveMeshParams(context);
    const imageAlpha = params['mesh.imageAlpha'];
    if (isProjectFile(input)) {
      if (options.data) throw new UsageError('--data does not apply to a project (it knows its dataset)');
      const loaded = await loadProjectMeshInput(path.resolve(cwd, input), (m) => out.warn(m), { imageAlpha });
      meshInput = loaded;
      antialiased = loaded.antialiased;
      described = loaded.described;
    } else {
      const source = await resolveMeshSource(path.resolve(cwd, input), options.data ? path.resolve(cwd, options.data as string) : undefined);
      out.progress({ stage: 'load', message: `${source.splatsFile}, cameras of ${source.datasetDir}` }, true);
      meshInput = await loadMeshInput(source, { imageAlpha, warn: (m) => out.warn(m) });
      described = { dataset: source.datasetDir, source: source.splatsFile };
    }
    const { result, gpu } = await extractWithProgress(context, meshInput, { ...meshOptionsFromParams(params), antialiased });
    if (result.stats.triangles === 0) {
      const unseen = result.stats.unseenTrianglesRemoved;
      out.warn(
        unseen > 0 && unseen >= result.stats.rawTriangles - result.stats.outsideCamerasRemoved
          ? `mesh: the visibility pass removed every triangle (${unseen.toLocaleString('en-US')}): no surface is seen by --min-views ${params['mesh.minViews']} of the ${result.stats.views} views; writing an empty mesh. Lower --min-views (0 turns the pass off).`
          : `mesh: no surface found (no pixel of any view reached alpha 0.5 inside the grid, or every piece was removed); writing an empty mesh. Is the model trained, and are these its cameras?`,
      );
    }
    const format = await writeMesh(outFile, result.mesh);
    const summary = { out: outFile, format, splats: meshInput.splats.count, ...described, ...meshSummary(result), ...benchStamp(gpu) };
    const t = result.stats.timings;
    out.result(
      summary,
      `${result.stats.triangles.toLocaleString()} triangles, ${result.stats.vertices.toLocaleString()} vertices (grid ${result.stats.grid.dims.join('x')}, ${result.stats.views} views) -> ${outFile}\n` +
        `fuse ${t.fuse_s.toFixed(2)} s, marching cubes ${t.march_s.toFixed(2)} s, visibility ${t.visibility_s.toFixed(2)} s, clean-up ${t.clean_s.toFixed(2)} s, simplify ${t.simplify_s.toFixed(2)} s`,
    );
  },
};
