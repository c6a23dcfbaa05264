/**
 * What a capture produced, measured from the model itself (never from COLMAP's printed summary,
 * whose wording changes between versions): registered images, points, reprojection error, and the
 * diagnostics that say which images or clips failed and what to try.
 *
 * Mean reprojection error follows COLMAP's definition (model_analyzer, Reconstruction::
 * ComputeMeanReprojectionError): each point's error is the mean over its observations, and the
 * figure is the mean over points. We recompute every observation's error by projecting through the
 * camera (with its distortion), so the number is checked rather than copied.
 */
import type { ColmapCamera, ColmapModel } from '../dataset/colmap-model.js';
import { distortNormalized, LENS_MODELS, lensOf, type Lens } from '../dataset/lens.js';
import { worldToCameraFromQuaternion } from '../dataset/pose.js';

export interface ModelStats {
  registered: number;
  points: number;
  observations: number;
  /** COLMAP's figure: mean over points of the mean error over each point's observations. */
  meanReprojectionErrorPx: number;
  /** Mean over all observations. */
  meanObservationErrorPx: number;
  meanTrackLength: number;
  /** Mean observation error per registered image. */
  imageErrorPx: Record<string, number>;
  /** 3D points seen per registered image. */
  imagePoints: Record<string, number>;
}

function lensOfCamera(camera: ColmapCamera): Lens | null {
  const p = camera.params;
  switch (camera.model) {
    case 'SIMPLE_PINHOLE':
      return lensOf({ model: 'SIMPLE_RADIAL', params: [p[0], p[1], p[2], 0] });
    case 'PINHOLE':
      return lensOf({ model: 'OPENCV', params: [p[0], p[1], p[2], p[3], 0, 0, 0, 0] });
    default:
      // other models are not projected (their error is left out)
      return (LENS_MODELS as readonly string[]).includes(camera.model) ? lensOf({ model: camera.model, params: p }) : null;
  }
}

export function modelStats(model: ColmapModel): ModelStats {
  const pointIndex = new Map<number, number>();
  for (let i = 0; i < model.points.ids.length; i++) pointIndex.set(model.points.ids[i], i);
  const errorSum = new Float64Array(model.points.ids.length);
  const errorCount = new Uint32Array(model.points.ids.length);
  const imageErrorPx: Record<string, number> = {};
  const imagePoints: Record<string, number> = {};
  let observationSum = 0;
  let observations = 0;
  const positions = model.points.positions;
  for (const image of model.images) {
    const lens = lensOfCamera(model.cameras.get(image.cameraId)!);
    const m = worldToCameraFromQuaternion(image.qvec, image.tvec);
    let sum = 0;
    let count = 0;
    for (let k = 0; k < image.point3DIds.length; k++) {
      const id = image.point3DIds[k];
      if (id < 0) continue;
      const p = pointIndex.get(id);
      if (p === undefined) continue;
      count++;
      if (!lens) continue;
      const [X, Y, Z] = [positions[3 * p], positions[3 * p + 1], positions[3 * p + 2]];
      const xc = m[0] * X + m[1] * Y + m[2] * Z + m[3];
      const yc = m[4] * X + m[5] * Y + m[6] * Z + m[7];
      const zc = m[8] * X + m[9] * Y + m[10] * Z + m[11];
      const [xd, yd] = distortNormalized(lens, xc / zc, yc / zc);
      const error = Math.hypot(lens.fx * xd + lens.cx - image.xy[2 * k], lens.fy * yd + lens.cy - image.xy[2 * k + 1]);
      errorSum[p] += error;
      errorCount[p]++;
      sum += error;
    }
    imagePoints[image.name] = count;
    if (lens && count > 0) imageErrorPx[image.name] = sum / count;
    observationSum += sum;
    observations += count;
  }
  let pointErrorSum = 0;
  let pointsWithError = 0;
  for (let p = 0; p < errorSum.length; p++) {
    if (errorCount[p] === 0) continue;
    pointErrorSum += errorSum[p] / errorCount[p];
    pointsWithError++;
  }
  return {
    registered: model.images.length,
    points: model.points.ids.length,
    observations,
    meanReprojectionErrorPx: pointsWithError ? pointErrorSum / pointsWithError : NaN,
    meanObservationErrorPx: observations ? observationSum / observations : NaN,
    meanTrackLength: model.points.ids.length ? observations / model.points.ids.length : 0,
    imageErrorPx,
    imagePoints,
  };
}

// ---- diagnostics ----

export interface Diagnostic {
  level: 'info' | 'warn';
  message: string;
}

export interface InputSummary {
  name: string;
  kind: 'video' | 'photos';
  /** Image names (as in the model: "<input>/<file>") in capture order, with their video time if any. */
  images: { name: string; timeS?: number }[];
}

export interface DiagnoseInput {
  inputs: InputSummary[];
  registered: ReadonlySet<string>;
  /** Registered image count of every model COLMAP produced, largest first. */
  modelSizes: number[];
  meanReprojectionErrorPx: number;
  /** SIFT features per image name, where known. */
  features: Readonly<Record<string, number>>;
  matcher: 'sequential' | 'exhaustive';
  cameraModel: string;
  /** The mapper reported that it found no initial pair. */
  noInitialPair?: boolean;
  /** Images with no geometrically verified pair (sfm-match-stats.ts), where known. */
  unmatched?: readonly string[];
  /** Who mapped: our mapper ('argonaut') or COLMAP's (default). */
  method?: 'argonaut' | 'colmap';
  /** Ours found no model and nothing took over: its reason, worded for the person (sfm-argonaut-mapping.ts). */
  failure?: string;
  /** Why COLMAP took over from ours. */
  fallback?: string;
  /** Ours: every image the mapper left out, with its reason (no verified pair, a separate group, a rotation that disagrees, ...). */
  unregisteredReasons?: readonly { name: string; reason: string }[];
}

const FEW_FEATURES = 500;
const HIGH_ERROR_PX = 1.5;

function runsOf<T>(items: readonly T[], member: (item: T) => boolean): T[][] {
  const runs: T[][] = [];
  let current: T[] = [];
  for (const item of items) {
    if (member(item)) current.push(item);
    else if (current.length) {
      runs.push(current);
      current = [];
    }
  }
  if (current.length) runs.push(current);
  return runs;
}

function listNames(names: readonly string[], limit = 8): string {
  return names.length <= limit ? names.join(', ') : `${names.slice(0, limit).join(', ')} and ${names.length - limit} more`;
}

/** Which images or inputs failed to register, and what to try; empty when everything registered cleanly. */
export function diagnose(d: DiagnoseInput): Diagnostic[] {
  const out: Diagnostic[] = [];
  const total = d.inputs.reduce((s, i) => s + i.images.length, 0);
  const registered = d.inputs.reduce((s, i) => s + i.images.filter((im) => d.registered.has(im.name)).length, 0);
  const mapper = d.method === 'argonaut' ? 'Our mapper' : 'COLMAP';
  if (d.fallback) out.push({ level: 'warn', message: `${d.fallback}; COLMAP's mapper built this model instead.` });
  if (d.modelSizes.length === 0 && d.failure) {
    out.push({ level: 'warn', message: `${mapper} could not build any model from the ${total} images: ${d.failure}.` });
  } else if (d.modelSizes.length === 0) {
    out.push({
      level: 'warn',
      message: `${mapper} could not build any model from the ${total} images${d.noInitialPair ? ' (no initial image pair with enough matches and parallax)' : ''}. Try: more overlap between consecutive views (move slower, or raise --frames), less blur (more light, a steadier hand), a textured scene (plain or shiny surfaces have no features), moving around the object rather than turning on the spot (parallax), and --matcher exhaustive.`,
    });
  }
  for (const input of d.inputs) {
    const missing = input.images.filter((im) => !d.registered.has(im.name));
    if (missing.length === 0 || d.modelSizes.length === 0) continue; // no model at all: said once above
    const what = input.kind === 'video' ? `clip "${input.name}"` : `photo folder "${input.name}"`;
    if (missing.length === input.images.length) {
      out.push({ level: 'warn', message: `${what}: none of its ${input.images.length} images registered: it shares too few features with the rest of the capture. Film or photograph views that overlap the other inputs (the same object from nearby angles), or capture it separately.` });
      continue;
    }
    if (input.kind === 'video') {
      for (const run of runsOf(input.images, (im) => !d.registered.has(im.name))) {
        const from = run[0];
        const to = run[run.length - 1];
        const times = from.timeS !== undefined && to.timeS !== undefined ? ` (${from.timeS.toFixed(1)}-${to.timeS.toFixed(1)} s)` : '';
        out.push({ level: 'warn', message: `${what}: ${run.length === 1 ? `frame ${from.name}` : `${run.length} frames ${from.name} .. ${to.name}`}${times} did not register: the camera moved too fast or the frames were blurry there. Move slower, add light (shorter exposure), or raise --frames so neighbouring frames overlap more.` });
      }
    } else {
      out.push({ level: 'warn', message: `${what}: ${missing.length} of ${input.images.length} photos did not register (${listNames(missing.map((m) => m.name))}). Each photo should share most of its view with another one: take more photos between these viewpoints.` });
    }
    const weak = missing.filter((m) => d.features[m.name] !== undefined && d.features[m.name] < FEW_FEATURES);
    if (weak.length) out.push({ level: 'warn', message: `${weak.length} unregistered images have fewer than ${FEW_FEATURES} SIFT features (${listNames(weak.map((m) => `${m.name}: ${d.features[m.name]}`), 4)}): they are blurry, dark or show plain surfaces. Add texture or light, or hold the camera steadier.` });
  }
  const reasons = (d.unregisteredReasons ?? []).filter((u) => !d.registered.has(u.name));
  if (reasons.length > 0 && d.modelSizes.length > 0) {
    // one line per reason (a separate group's images share one), naming its images
    const byReason = new Map<string, string[]>();
    for (const u of reasons) byReason.set(u.reason, [...(byReason.get(u.reason) ?? []), u.name]);
    for (const [reason, names] of byReason) out.push({ level: 'warn', message: `${names.length} image(s) not registered (${listNames(names)}): ${reason}.` });
  }
  const unmatched = d.unmatched ?? [];
  if (unmatched.length > 0) {
    out.push({ level: 'warn', message: `${unmatched.length} of ${total} images have no verified match with any other image (${listNames([...unmatched])}): they share too few features with the rest (blur, plain surfaces, or a view nothing else sees)${d.matcher === 'sequential' ? '; --matcher exhaustive tries every pair' : ''}.` });
  }
  if (d.modelSizes.length > 1 && d.modelSizes[1] >= 3) {
    out.push({ level: 'warn', message: `${mapper} split the capture into ${d.modelSizes.length} separate models (${d.modelSizes.join(', ')} images); only the largest is kept. The views between them overlap too little: capture the transitions more densely (more --frames, a slower move)${d.matcher === 'sequential' ? ', or try --matcher exhaustive' : ''}.` });
  }
  if (Number.isFinite(d.meanReprojectionErrorPx) && d.meanReprojectionErrorPx > HIGH_ERROR_PX) {
    out.push({ level: 'warn', message: `Mean reprojection error is ${d.meanReprojectionErrorPx.toFixed(2)} px (usually below 1): motion blur, rolling shutter or a lens the ${d.cameraModel} model cannot describe.${d.cameraModel === 'OPENCV' ? '' : ' Try --camera-model OPENCV;'} steadier, sharper footage helps most.` });
  }
  if (d.matcher === 'sequential' && d.inputs.length > 1) {
    out.push({ level: 'info', message: 'Sequential matching links inputs only where they meet in name order; with several clips or folders, --matcher exhaustive matches every pair (slower).' });
  }
  if (total > 0 && registered < total && registered / total < 0.9 && d.modelSizes.length > 0) {
    out.push({ level: 'warn', message: `Only ${registered} of ${total} images registered (${((100 * registered) / total).toFixed(0)}%).` });
  }
  return out;
}
