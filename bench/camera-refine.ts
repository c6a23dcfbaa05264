/**
 * Camera refinement's recovery on the perturbed sample scene (issue 14 item 2), one configuration
 * per run: the training test's scene and perturbation (tests/main/engine/train/camera-refine-training.test.ts:
 * 1.5 degrees, 2% of the scene scale, focal x1.05, Random(11)), with the size, steps and refinement
 * settings from a JSON argument, printing the rig errors every `every` steps and the held-out PSNR
 * at the end (and of the unrefined and exact runs with "baselines": true). With "scene": "refine"
 * it runs the well-posed scene and the issue's perturbation instead (tests/helpers/refine-scene.ts,
 * refine-criterion.ts: the fractions of each camera's perturbation left, and the held-out PSNR
 * after test-time pose alignment); docs/architecture.md has the table.
 *   node -e "import('esbuild').then(async (e) => e.build({ entryPoints: ['bench/camera-refine.ts'], bundle: true, platform: 'node', format: 'esm', outfile: 'out/tmp/camera-refine.mjs', external: ['webgpu', 'sharp', 'sql.js'], plugins: [(await import('./scripts/wgsl-plugin.mjs')).wgslEsbuild] }))"
 *   && nice node out/tmp/camera-refine.mjs '{"steps":600}'
 */
import type { TrainingData } from '../main/engine/train/data.js';
import { sampleScene } from '../main/engine/train/sample-scene.js';
import { defaultTrainerConfig, Trainer } from '../main/engine/train/trainer.js';
import { CAMERA_REFINE_DEFAULTS, type CameraRefineConfig } from '../main/engine/train/camera-refine.js';
import type { PinholeCamera } from '../shared/scene/camera.js';
import { Random } from '../shared/random.js';
import { openGpu } from '../main/engine/gpu/context.js';
import { perturbedCamera, PERTURB_SHIFT } from '../tests/helpers/perturb-cameras.js';
import { rigErrors } from '../tests/helpers/rig-alignment.js';
import { refineScene } from '../tests/helpers/refine-scene.js';
import { describeRecovery, perturbTraining, recovery } from '../tests/helpers/refine-criterion.js';
import { evaluateWithPoseAlignment } from '../main/engine/train/pose-alignment.js';

interface Options {
  steps: number;
  width: number;
  height: number;
  views: number;
  splats: number;
  every: number;
  baselines: boolean;
  /** Skip the refined run (only the baselines). */
  baselinesOnly: boolean;
  refine: Partial<CameraRefineConfig>;
  /** 'sample': the torus knot (the old CI test); 'refine': tests/helpers/refine-scene.ts with refine-criterion.ts's perturbation. */
  scene: 'sample' | 'refine';
  /** ADC's refine stop as a fraction of the run; learning rates of the splats' means (x the default) for the refine scene. */
  refineStop: number;
  initPoints: number;
  /** The refine scene's SfM-like points (0: random init). */
  points: number;
  /** The refine scene's focal perturbation (refine-criterion.ts: 0.05). */
  focal: number;
  /** The refine scene's perturbation seed (refine-criterion.ts: 11). */
  perturbSeed: number;
}
const options: Options = { steps: 600, width: 64, height: 48, views: 12, splats: 1500, every: 100, baselines: false, baselinesOnly: false, refine: {}, scene: 'sample', refineStop: 0.6, initPoints: 1500, points: 0, focal: 0.05, perturbSeed: 11, ...JSON.parse(process.argv[2] ?? '{}') };
/** The training test's refinement settings, which `refine` overrides. */
const TEST_REFINE: CameraRefineConfig = { ...CAMERA_REFINE_DEFAULTS, mode: 'poses+intrinsics', start: 100, ramp: 100, rates: { rotation: 5e-3, translation: 5e-3, logFocal: 1e-3, principal: 3e-4 } };

const mean = (v: number[]) => v.reduce((s, x) => s + x, 0) / v.length;
const deg = (r: number) => ((r * 180) / Math.PI).toFixed(3);

const ctx = await openGpu();
const isRefine = options.scene === 'refine';
const truth = isRefine ? await refineScene(ctx, { width: options.width, height: options.height, views: options.views, points: options.points }) : await sampleScene(ctx, { width: options.width, height: options.height, views: options.views, splats: options.splats });
const random = new Random(11);
const perturbation = isRefine ? perturbTraining(truth, options.perturbSeed, options.focal) : undefined;
const given: TrainingData = perturbation?.given ?? { ...truth, views: truth.views.map((v) => (v.split === 'train' ? { ...v, camera: perturbedCamera(v.camera, random, PERTURB_SHIFT * truth.sceneScale) } : v)), posesEstimated: true };
const train = truth.views.flatMap((v, i) => (v.split === 'train' ? [i] : []));
const trueCameras = train.map((i) => truth.views[i].camera);

function errors(cameras: PinholeCamera[]): string {
  if (perturbation) return describeRecovery(recovery(truth, perturbation, cameras));
  const e = rigErrors(train.map((i) => cameras[i]), trueCameras, truth.sceneScale);
  const focal = mean(train.map((i) => cameras[i].fx / truth.views[i].camera.fx - 1));
  return `rot ${deg(mean(e.rotation))} deg, centre ${mean(e.centre).toFixed(4)}, focal ${(focal * 100).toFixed(2)}%, gauge scale ${(e.gauge.scale * 100).toFixed(2)}%`;
}

const cpuSeconds = (since: NodeJS.CpuUsage) => {
  const u = process.cpuUsage(since);
  return ((u.user + u.system) / 1e6).toFixed(0);
};

async function run(mode: 'off' | 'poses' | 'poses+intrinsics', data: TrainingData): Promise<number> {
  const config = defaultTrainerConfig({
    iterations: options.steps, shDegree: 0, initPoints: options.initPoints, seed: 3,
    cameraRefine: { ...TEST_REFINE, ...options.refine, mode },
    adc: { ...defaultTrainerConfig().adc, refineStart: 100, refineEvery: 100, refineStop: Math.round(options.steps * options.refineStop) },
  });
  const trainer = await Trainer.create(ctx, data, config);
  const started = Date.now();
  const cpu = process.cpuUsage();
  for (let i = 0; i < options.steps; i++) {
    await trainer.trainStep();
    if (mode !== 'off' && (i + 1) % options.every === 0) console.log(`  step ${i + 1} (${cpuSeconds(cpu)} s CPU): ${errors(trainer.refinedCameras()!)}`);
  }
  console.log(`  trained: ${cpuSeconds(cpu)} s CPU`);
  const { psnr } = await trainer.evaluate();
  const aligned = mode !== 'off' ? (await evaluateWithPoseAlignment(trainer)).evaluation.psnr : undefined;
  const used = process.cpuUsage(cpu);
  trainer.destroy();
  console.log(`${mode}${data === truth ? ' (exact cameras)' : ''}: held-out PSNR ${psnr.toFixed(2)} dB${aligned !== undefined ? `, aligned ${aligned.toFixed(2)} dB` : ''}, ${((Date.now() - started) / 1000).toFixed(0)} s wall, ${((used.user + used.system) / 1e6).toFixed(0)} s CPU`);
  return psnr;
}

console.log(JSON.stringify(options));
console.log(`given: ${errors(given.views.map((v) => v.camera))}`);
if (!options.baselinesOnly) await run((options.refine.mode as 'poses' | 'poses+intrinsics' | undefined) ?? 'poses+intrinsics', given);
if (options.baselines || options.baselinesOnly) {
  await run('off', given);
  await run('off', truth);
}
process.exit(0); // the device holds the event loop open
