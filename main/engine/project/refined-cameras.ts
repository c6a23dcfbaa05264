/**
 * A run's refined cameras (camera refinement, train/camera-refine.ts) as the project keeps them:
 * `cameras.json` beside the run's splats.ply, one correction per view by name. Corrections, not
 * absolute cameras: a pose correction (camera axes) and an intrinsics correction (focal scale,
 * principal shift in focal units) mean the same at every downscale, so the full-resolution export
 * and the downscaled mesh extraction apply the same file.
 *   { "format": "argonaut-refined-cameras", "version": 1,
 *     "views": [{ "name", "rotation": [3], "translation": [3], "logFocal": [2], "principal": [2] }] }
 */
import { readFile } from 'node:fs/promises';
import { badInput } from '../../../shared/rpc/errors.js';
import { correctCamera, type IntrinsicsCorrection, type PoseCorrection, type ViewCorrection } from '../../../shared/scene/camera-correction.js';
import type { PinholeCamera } from '../../../shared/scene/camera.js';
import type { ProjectRun } from '../../../shared/project/manifest.js';
import { writeFileAtomic } from '../formats/atomic-file.js';
import type { Project } from './project.js';

export type { ViewCorrection };

const FORMAT = 'argonaut-refined-cameras';

export async function writeRefinedCameras(file: string, views: readonly ViewCorrection[]): Promise<void> {
  const body = { format: FORMAT, version: 1, views: views.map((v) => ({ name: v.name, rotation: v.pose.rotation, translation: v.pose.translation, logFocal: v.intrinsics.logFocal, principal: v.intrinsics.principal })) };
  await writeFileAtomic(file, `${JSON.stringify(body, null, 1)}\n`);
}

export async function readRefinedCameras(file: string): Promise<Map<string, ViewCorrection>> {
  let body: { format?: unknown; views?: unknown };
  try {
    body = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw badInput(file, `cannot read the refined cameras (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  if (body.format !== FORMAT || !Array.isArray(body.views)) throw badInput(file, `not a refined-cameras file (format "${String(body.format)}")`);
  const numbers = (v: unknown, n: number) => Array.isArray(v) && v.length === n && v.every((x) => typeof x === 'number' && Number.isFinite(x));
  const out = new Map<string, ViewCorrection>();
  body.views.forEach((v: Record<string, unknown>, i: number) => {
    if (typeof v?.name !== 'string' || !numbers(v.rotation, 3) || !numbers(v.translation, 3) || !numbers(v.logFocal, 2) || !numbers(v.principal, 2)) {
      throw badInput(file, `views[${i}]: expected name, rotation[3], translation[3], logFocal[2] and principal[2] (finite numbers)`);
    }
    out.set(v.name, { name: v.name, pose: { rotation: v.rotation, translation: v.translation } as PoseCorrection, intrinsics: { logFocal: v.logFocal, principal: v.principal } as IntrinsicsCorrection });
  });
  return out;
}

/** `camera` of the view `name` with its refinement applied (unchanged when the file has no such view). */
export function refinedCamera<C extends PinholeCamera>(corrections: ReadonlyMap<string, ViewCorrection> | undefined, name: string, camera: C): C {
  const c = corrections?.get(name);
  return c ? correctCamera(camera, c.pose, c.intrinsics) : camera;
}

/**
 * The refined cameras of `run` (default: the newest run with finished splats, the ones
 * projectSplats shows), or undefined when that run did not refine its cameras.
 */
export async function runCameraCorrections(project: Project, run: ProjectRun | undefined = [...project.manifest.runs].reverse().find((r) => r.outputs.splats)): Promise<Map<string, ViewCorrection> | undefined> {
  const file = run?.outputs.cameras;
  return file ? readRefinedCameras(project.resolve(file)) : undefined;
}
