import type { ParamDef, ParamValuesOf } from './types.js';
import { BACKENDS } from '../contract/gpu.js';

/**
 * THE parameter table. Add a parameter here and it appears in the CLI (`--flag`, `--help`),
 * in the UI panels, in the project file's schema and in docs/parameters.md (generated).
 * A parameter is added when the feature that reads it lands, never before.
 */
export const PARAMS = [
  {
    key: 'system.backend', flag: 'backend', type: 'enum', choices: BACKENDS, default: 'auto',
    group: 'GPU', label: 'Backend', commands: ['*'], env: 'ARGONAUT_BACKEND',
    help: "GPU API: 'auto' picks the platform's native one (Vulkan, Metal, D3D12) and falls back to OpenGL on Mesa llvmpipe (CPU).",
  },
  {
    key: 'system.adapter', flag: 'adapter', type: 'string', default: '',
    group: 'GPU', label: 'Adapter', commands: ['*'], env: 'ARGONAUT_ADAPTER',
    help: 'Use the adapter whose name contains this text (case-insensitive), e.g. "nvidia" or "llvmpipe".',
  },
  {
    key: 'system.kernelVariant', flag: 'kernel-variant', type: 'enum', choices: ['auto', 'subgroup', 'portable'], default: 'auto',
    group: 'GPU', label: 'Kernel variant', commands: ['*'], env: 'ARGONAUT_KERNEL_VARIANT', advanced: true,
    help: "Capability variant of the kernels: 'subgroup' needs the subgroups feature; 'portable' runs everywhere. 'auto' picks the fastest the device supports.",
  },
  {
    key: 'system.profile', flag: 'profile', type: 'bool', default: false,
    group: 'GPU', label: 'Profile kernels', commands: ['*'], env: 'ARGONAUT_PROFILE', advanced: true,
    help: 'Time every kernel with GPU timestamps (one compute pass per kernel) and print a per-kernel table. Costs nothing when off.',
  },
  // ---- training ----
  {
    key: 'train.iterations', flag: 'iterations', type: 'int', min: 1, max: 10_000_000, default: 30_000, unit: 'steps',
    presets: { fast: 7000, balanced: 30_000, quality: 30_000 },
    group: 'Training', label: 'Iterations', commands: ['train', 'bench'], help: 'Training steps (one image each).',
  },
  {
    key: 'train.strategy', flag: 'strategy', type: 'enum', choices: ['adc', 'mcmc'], default: 'adc',
    group: 'Training', label: 'Densification', commands: ['train', 'bench'],
    help: "How splats are added and removed: 'adc' is 3DGS adaptive density control (clone, split, prune); 'mcmc' relocates dead splats and grows to --max-splats.",
  },
  {
    key: 'train.maxSplats', flag: 'max-splats', type: 'int', min: 1000, max: 50_000_000, default: 3_000_000,
    presets: { fast: 500_000, balanced: 3_000_000, quality: 6_000_000 },
    group: 'Training', label: 'Max splats', commands: ['train', 'bench'], help: 'Upper bound on the number of splats (MCMC grows to it; ADC stops growing there).',
  },
  {
    key: 'train.downscale', flag: 'downscale', type: 'float', min: 1, max: 64, default: 1,
    group: 'Data', label: 'Downscale', commands: ['train', 'bench', 'import'], help: 'Divide image width and height by this factor (area-averaged).',
  },
  {
    key: 'train.background', flag: 'background', type: 'enum', choices: ['auto', 'black', 'white'], default: 'auto',
    group: 'Data', label: 'Background', commands: ['train', 'bench', 'render'],
    help: "Background colour behind the splats; 'auto' is white for NeRF-synthetic scenes and black otherwise. Transparent images are composited over it.",
  },
  {
    key: 'train.evalEvery', flag: 'eval-every', type: 'int', min: 0, max: 10_000_000, default: 0, unit: 'steps',
    group: 'Training', label: 'Evaluate every', commands: ['train'], help: 'Evaluate PSNR/SSIM on the test views every N steps (0: only at the end).',
  },
  {
    key: 'train.checkpointEvery', flag: 'checkpoint-every', type: 'int', min: 0, max: 10_000_000, default: 1000, unit: 'steps',
    group: 'Training', label: 'Checkpoint every', commands: ['train'], help: 'Save a checkpoint every N steps (and at least every 5 minutes); 0 disables periodic checkpoints.',
  },
  {
    key: 'train.shDegree', flag: 'sh-degree', type: 'int', min: 0, max: 3, default: 3,
    group: 'Model', label: 'SH degree', commands: ['train', 'bench'], advanced: true, help: 'Highest spherical-harmonics degree (view-dependent colour); it grows by one every 1000 steps.',
  },
  {
    key: 'train.antialiased', flag: 'antialiased', type: 'bool', default: false,
    group: 'Model', label: 'Anti-aliased', commands: ['train', 'bench', 'render'], advanced: true,
    help: "Mip-Splatting's 2D filter with opacity compensation instead of the classic 0.3-pixel dilation.",
  },
  {
    key: 'train.ssimPadding', flag: 'ssim-padding', type: 'enum', choices: ['same', 'valid'], default: 'valid',
    group: 'Training', label: 'SSIM borders', commands: ['train', 'bench'], advanced: true,
    help: "Border handling of the loss's SSIM term: 'same' averages over every pixel with zero padding (3DGS); 'valid' over the pixels whose 11x11 window lies inside the image (gsplat's trainer).",
  },
  {
    key: 'train.seed', flag: 'seed', type: 'int', min: 0, max: 2 ** 31 - 1, default: 0,
    group: 'Training', label: 'Seed', commands: ['train', 'bench'], advanced: true, help: 'Seed of every random choice (initialization, image order, densification noise).',
  },
  {
    key: 'train.initPoints', flag: 'init-points', type: 'int', min: 1, max: 10_000_000, default: 100_000,
    group: 'Model', label: 'Random init points', commands: ['train', 'bench'], advanced: true,
    help: 'Splats to start from when the dataset has no SfM points (uniform in a box around the scene).',
  },
  {
    key: 'train.absgrad', flag: 'absgrad', type: 'bool', default: false,
    group: 'Densification', label: 'Absolute gradients', commands: ['train', 'bench'], advanced: true,
    help: 'Densify on the sum of absolute screen-space gradients (AbsGS) instead of their norm; raise --grow-grad2d to about 0.0008 with it.',
  },
  {
    key: 'train.growGrad2d', flag: 'grow-grad2d', type: 'float', min: 0, max: 1, default: 0.0002,
    group: 'Densification', label: 'Grow gradient', commands: ['train', 'bench'], advanced: true, help: 'Screen-space gradient above which a splat is cloned or split (ADC).',
  },
  {
    key: 'train.refineStart', flag: 'refine-start', type: 'int', min: 0, max: 10_000_000, default: 500, unit: 'steps',
    group: 'Densification', label: 'Refine from', commands: ['train', 'bench'], advanced: true, help: 'First step of densification (clone, split, prune).',
  },
  {
    key: 'train.refineEvery', flag: 'refine-every', type: 'int', min: 1, max: 1_000_000, default: 100, unit: 'steps',
    group: 'Densification', label: 'Refine every', commands: ['train', 'bench'], advanced: true, help: 'Steps between densification rounds.',
  },
  {
    key: 'train.refineStop', flag: 'refine-stop', type: 'int', min: 0, max: 10_000_000, default: 15_000, unit: 'steps',
    group: 'Densification', label: 'Refine until', commands: ['train', 'bench'], advanced: true, help: 'Last step of densification (ADC uses the smaller of this and half the iterations).',
  },
  // ---- geometry-aware training (2DGS-style regularizers; for meshes) ----
  {
    key: 'train.geometry', flag: 'geometry', type: 'bool', default: false,
    group: 'Geometry', label: 'Geometry-aware', commands: ['train', 'bench', 'mesh'],
    help: 'Depth-distortion and normal-consistency losses (2DGS style) so the splats form surfaces: better meshes, slightly slower training.',
  },
  {
    key: 'train.distortionWeight', flag: 'distortion-weight', type: 'float', min: 0, max: 1e4, default: 1,
    group: 'Geometry', label: 'Distortion weight', commands: ['train', 'bench', 'mesh'], advanced: true, help: 'Weight of the depth-distortion loss, depths measured in scene scales (with --geometry).',
  },
  {
    key: 'train.distortionStart', flag: 'distortion-start', type: 'int', min: 0, max: 10_000_000, default: 3000, unit: 'steps',
    group: 'Geometry', label: 'Distortion from', commands: ['train', 'bench', 'mesh'], advanced: true, help: 'First step of the depth-distortion loss (at most a quarter of the iterations).',
  },
  {
    key: 'train.normalWeight', flag: 'normal-weight', type: 'float', min: 0, max: 1e4, default: 0.1,
    group: 'Geometry', label: 'Normal weight', commands: ['train', 'bench', 'mesh'], advanced: true, help: 'Weight of the normal-consistency loss (with --geometry).',
  },
  {
    key: 'train.normalStart', flag: 'normal-start', type: 'int', min: 0, max: 10_000_000, default: 7000, unit: 'steps',
    group: 'Geometry', label: 'Normals from', commands: ['train', 'bench', 'mesh'], advanced: true, help: 'First step of the normal-consistency loss (at most a quarter of the iterations).',
  },
  // ---- capture (video and photos -> posed dataset) ----
  {
    key: 'capture.frames', flag: 'frames', type: 'int', min: 2, max: 100_000, default: 150, unit: 'frames',
    group: 'Capture', label: 'Frames', commands: ['capture', 'import'],
    help: 'Frames taken from the video clips (all clips together, shared by duration): the sharpest of each equal time segment; blurry and duplicate picks are dropped.',
  },
  {
    key: 'capture.maxSize', flag: 'max-size', type: 'int', min: 64, max: 16_384, default: 1600, unit: 'px',
    group: 'Capture', label: 'Max image size', commands: ['capture', 'import'],
    help: 'Long side of the captured images (frames and photos are downscaled to it, never upscaled). Smaller is faster for structure from motion.',
  },
  {
    key: 'capture.matcher', flag: 'matcher', type: 'enum', choices: ['auto', 'sequential', 'exhaustive'], default: 'auto',
    group: 'Capture', label: 'Matching', commands: ['capture', 'import'],
    help: "Which image pairs COLMAP matches: 'sequential' neighbours in time (video), 'exhaustive' every pair (small photo sets, several clips). 'auto' picks sequential for one clip or more than 100 images.",
  },
  {
    key: 'capture.cameraModel', flag: 'camera-model', type: 'enum', choices: ['SIMPLE_RADIAL', 'RADIAL', 'OPENCV', 'PINHOLE', 'SIMPLE_PINHOLE'], default: 'SIMPLE_RADIAL',
    group: 'Capture', label: 'Camera model', commands: ['capture', 'import'], advanced: true,
    help: 'COLMAP camera model: SIMPLE_RADIAL (one focal length, one distortion term) suits most phones; OPENCV for wide or strongly distorted lenses.',
  },
  {
    key: 'capture.maxFeatures', flag: 'max-features', type: 'int', min: 256, max: 65_536, default: 8192,
    group: 'Capture', label: 'SIFT features', commands: ['capture', 'import'], advanced: true,
    help: 'Most SIFT features per image. Fewer match faster on the CPU (matching time grows with the square) but register fewer images.',
  },
  {
    key: 'capture.bundleAdjust', flag: 'bundle-adjust', type: 'bool', default: false,
    group: 'Capture', label: 'Final bundle adjustment', commands: ['capture', 'import'], advanced: true,
    help: "Run COLMAP's bundle_adjuster on the kept model after mapping (the mapper already adjusts globally; this polishes).",
  },
  {
    key: 'capture.blurRatio', flag: 'blur-ratio', type: 'float', min: 0, max: 1, default: 0.35,
    group: 'Capture', label: 'Blur threshold', commands: ['capture', 'import'], advanced: true,
    help: "A video frame is dropped as blurry when its sharpness (variance of the Laplacian) is below this fraction of the clip's median; 0 keeps every pick.",
  },
  // ---- mesh extraction (main/engine/mesh, docs/mesh.md) ----
  {
    key: 'mesh.resolution', flag: 'resolution', type: 'int', min: 16, max: 1024, default: 256, unit: 'voxels',
    group: 'Mesh', label: 'Resolution', commands: ['mesh', 'bench'],
    help: 'Voxels of the TSDF grid along the longest side of the scene bounds; GPU memory grows with the cube (12 B a voxel: 256 -> 0.2 GB, 512 -> 1.6 GB).',
  },
  {
    key: 'mesh.truncation', flag: 'truncation', type: 'float', min: 0.5, max: 32, default: 4, unit: 'voxels',
    group: 'Mesh', label: 'Truncation', commands: ['mesh', 'bench'], advanced: true,
    help: 'How far behind and in front of the rendered surface a view updates the signed distance, in voxels: larger closes holes and smooths noise, smaller keeps thin parts apart.',
  },
  {
    key: 'mesh.targetTriangles', flag: 'target-triangles', type: 'int', min: 0, max: 100_000_000, default: 0, unit: 'triangles',
    group: 'Mesh', label: 'Target triangles', commands: ['mesh', 'bench'],
    help: 'Simplify the mesh to about this many triangles (meshoptimizer, colour-aware); 0 keeps every triangle marching cubes makes.',
  },
  {
    key: 'mesh.minComponent', flag: 'min-component', type: 'float', min: 0, max: 1, default: 0.3,
    group: 'Mesh', label: 'Smallest piece', commands: ['mesh', 'bench'], advanced: true,
    help: 'Remove disconnected pieces with fewer triangles than this fraction of the largest piece (floaters); 0 keeps all, 1 only the largest.',
  },
  {
    key: 'mesh.depth', flag: 'mesh-depth', type: 'enum', choices: ['auto', 'surface', 'ray', 'expected', 'median'], default: 'auto',
    group: 'Mesh', label: 'Depth', commands: ['mesh', 'bench'], advanced: true,
    help: "Depth fused per view: 'auto' (median for models trained with --geometry, else expected), 'surface' (where the pixel's ray enters each splat's visible extent: fat and flat splats), 'ray' (each splat's densest point on the ray: flat splats), 'expected' (splat centres, weighted: in front of slanted surfaces) or 'median' (for models trained with --geometry).",
  },
] as const satisfies readonly ParamDef[];

/** One of the registry's definitions, with its literal key, type, choices and default. */
export type RegisteredParam = (typeof PARAMS)[number];
export type ParamKey = RegisteredParam['key'];
/** Every registered parameter's value, typed: `ParamValues['train.iterations']` is `number`. */
export type ParamValues = ParamValuesOf<RegisteredParam>;
/** The top-level groups of keys (`train.`, `mesh.`, ...). */
export type ParamPrefix = ParamKey extends `${infer Head}.${string}` ? `${Head}.` : never;
export type ParamsWithPrefix<P extends ParamPrefix> = Extract<RegisteredParam, { readonly key: `${P}${string}` }>;

const byKey = new Map<string, ParamDef>(PARAMS.map((p) => [p.key, p]));
const byFlag = new Map<string, ParamDef>(PARAMS.map((p) => [p.flag, p]));

export function getParam<K extends ParamKey>(key: K): Extract<RegisteredParam, { readonly key: K }>;
export function getParam(key: string): ParamDef | undefined;
export function getParam(key: string): ParamDef | undefined {
  return byKey.get(key);
}

export function getParamByFlag(flag: string): ParamDef | undefined {
  return byFlag.get(flag);
}

/** The registry's default of one parameter (no preset, no environment), typed by its key. */
export function paramDefault<K extends ParamKey>(key: K): ParamValues[K] {
  return getParam(key).default as ParamValues[K];
}

/** Parameters a CLI command accepts, in table order. */
export function paramsForCommand(command: string): ParamDef[] {
  return (PARAMS as readonly ParamDef[]).filter((p) => p.commands.includes('*') || p.commands.includes(command));
}

/** Parameters whose keys start with `prefix` (`'mesh.'`: every mesh parameter), in table order. */
export function paramsWithPrefix<P extends ParamPrefix>(prefix: P): ParamsWithPrefix<P>[] {
  return PARAMS.filter((p): p is ParamsWithPrefix<P> => p.key.startsWith(prefix));
}

export function allParams(): readonly ParamDef[] {
  return PARAMS;
}
