import path from 'node:path';
import { badInput } from '../../../shared/rpc/errors.js';
import { findColmapModel, readColmapModel } from '../../engine/dataset/colmap.js';
import { worldToCameraFromQuaternion } from '../../engine/dataset/pose.js';
import { isFile } from '../../engine/dataset/source-view.js';
import { readJsonObject, readTransformsFrames } from '../../engine/dataset/transforms.js';
import { poseAccuracy, type NamedPose } from '../../engine/sfm/pose-accuracy.js';
import { BUILD_COMMIT } from '../../../shared/version.js';
import { UsageError } from '../args.js';
import { writeResult } from '../bench-result.js';
import type { CommandContext } from '../command.js';

/**
 * `bench sfm-accuracy <model> --reference <transforms.json | COLMAP model>`: a capture's recovered
 * poses against reference poses, after the best similarity (sfm/pose-accuracy.ts): median and max
 * rotation error in degrees, camera-centre error as a fraction of the scene size. Issue 15's mic
 * check is `capture` of mic's training views, then this against transforms_train.json; the statue's
 * sparse/0 serves as a reference model the same way.
 *
 * <model> is a COLMAP model folder (cameras/images .bin or .txt) or a folder holding sparse/0 or
 * sparse/ (a captured dataset). Cameras pair by file name without folder and extension (a capture
 * names "<input>/r_0.png", transforms.json "./train/r_0"): names that collide are refused.
 */

/** A pose's pairing key: the file name without folders and extension. */
export function poseKey(name: string): string {
  const base = name.split(/[\\/]/).pop()!;
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(0, dot) : base;
}

function keyed(file: string, poses: NamedPose[]): NamedPose[] {
  const seen = new Map<string, string>();
  return poses.map((p) => {
    const key = poseKey(p.name);
    const before = seen.get(key);
    if (before !== undefined) throw badInput(file, `${before} and ${p.name} pair by the same name ${key}: rename one`);
    seen.set(key, p.name);
    return { name: key, worldToCamera: p.worldToCamera };
  });
}

async function modelPoses(where: string): Promise<{ dir: string; poses: NamedPose[] }> {
  const dir = (await isFile(path.join(where, 'images.bin'))) || (await isFile(path.join(where, 'images.txt'))) ? where : (await findColmapModel(where))?.dir;
  if (!dir) throw badInput(where, 'no COLMAP model here (images.bin or images.txt, or sparse/0 or sparse/ holding one)');
  const model = await readColmapModel(dir);
  return { dir, poses: keyed(dir, model.images.map((im) => ({ name: im.name, worldToCamera: worldToCameraFromQuaternion(im.qvec, im.tvec) }))) };
}

export async function referencePoses(reference: string): Promise<NamedPose[]> {
  if (reference.toLowerCase().endsWith('.json')) {
    const views = await readTransformsFrames(reference, await readJsonObject(reference));
    return keyed(reference, views.map((v) => ({ name: v.name, worldToCamera: v.camera.worldToCamera })));
  }
  return (await modelPoses(reference)).poses;
}

export async function benchSfmAccuracy(context: CommandContext): Promise<void> {
  const { positionals, options, out } = context;
  if (positionals.length !== 1) throw new UsageError(`bench sfm-accuracy: expected one model folder, got ${positionals.length ? positionals.join(' ') : 'none'}`);
  if (typeof options.reference !== 'string') throw new UsageError('bench sfm-accuracy: --reference <transforms.json | COLMAP model folder> is required');
  const estimated = await modelPoses(path.resolve(context.cwd, positionals[0]));
  const referenceFile = path.resolve(context.cwd, options.reference);
  const reference = await referencePoses(referenceFile);
  let accuracy;
  try {
    accuracy = poseAccuracy(estimated.poses, reference);
  } catch (error) {
    throw badInput(estimated.dir, `${(error as Error).message} (reference ${referenceFile})`);
  }
  const result = {
    bench: 'sfm-accuracy',
    model: estimated.dir,
    reference: referenceFile,
    registered: estimated.poses.length,
    reference_cameras: reference.length,
    paired: accuracy.paired,
    missing: accuracy.missing,
    extra: accuracy.extra,
    rotation_deg: accuracy.rotationDeg,
    centre_error_of_scene: accuracy.centre,
    scene_size: accuracy.sceneSize,
    alignment_scale: accuracy.alignment.scale,
    cameras: accuracy.cameras,
    commit: BUILD_COMMIT,
    date: new Date().toISOString(),
  };
  await writeResult(options.out as string | undefined, result);
  const r = accuracy.rotationDeg;
  const c = accuracy.centre;
  const human = [
    `${accuracy.paired} of ${reference.length} reference cameras recovered (${estimated.poses.length} in the model${accuracy.extra.length ? `, ${accuracy.extra.length} not in the reference` : ''})`,
    `rotation error after a similarity alignment: median ${r.median.toFixed(3)} deg, mean ${r.mean.toFixed(3)}, max ${r.max.toFixed(3)}`,
    `centre error: median ${(100 * c.median).toFixed(2)}% of the scene size (${accuracy.sceneSize.toPrecision(4)}, RMS distance of the reference centres from their centroid), max ${(100 * c.max).toFixed(2)}%`,
    ...(accuracy.missing.length ? [`not recovered: ${accuracy.missing.join(', ')}`] : []),
  ].join('\n');
  out.result(result, human);
}
