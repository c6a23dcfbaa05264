/**
 * Every WGSL source in kernels/, by name (the file name without .wgsl). Bundled as text, so a
 * packaged app or the GPU machine needs no kernels/ folder at run time.
 */
import adam from '../../../kernels/adam.wgsl';
import adamCommon from '../../../kernels/adam-common.wgsl';
import appearance from '../../../kernels/appearance.wgsl';
import appearanceCommon from '../../../kernels/appearance-common.wgsl';
import appearanceGrad from '../../../kernels/appearance-grad.wgsl';
import bigSplats from '../../../kernels/big-splats.wgsl';
import bundleBlocks from '../../../kernels/bundle-blocks.wgsl';
import bundleCommon from '../../../kernels/bundle-common.wgsl';
import bundleLinearise from '../../../kernels/bundle-linearise.wgsl';
import bundlePcg from '../../../kernels/bundle-pcg.wgsl';
import bundleSchur from '../../../kernels/bundle-schur.wgsl';
import bundleUpdate from '../../../kernels/bundle-update.wgsl';
import cameraGrads from '../../../kernels/camera-grads.wgsl';
import colourCorrect from '../../../kernels/colour-correct.wgsl';
import compositeForward from '../../../kernels/composite-forward.wgsl';
import densify from '../../../kernels/densify.wgsl';
import dispatch from '../../../kernels/dispatch.wgsl';
import editSelect from '../../../kernels/edit-select.wgsl';
import gather from '../../../kernels/gather.wgsl';
import geometry from '../../../kernels/geometry.wgsl';
import intersect from '../../../kernels/intersect.wgsl';
import loss from '../../../kernels/loss.wgsl';
import lossTarget from '../../../kernels/loss-target.wgsl';
import marchingCubes from '../../../kernels/marching-cubes.wgsl';
import matchNearest from '../../../kernels/match-nearest.wgsl';
import mcmc from '../../../kernels/mcmc.wgsl';
import meshDepth from '../../../kernels/mesh-depth.wgsl';
import moments from '../../../kernels/moments.wgsl';
import project from '../../../kernels/project.wgsl';
import radixSort from '../../../kernels/radix-sort.wgsl';
import random from '../../../kernels/random.wgsl';
import rasterize from '../../../kernels/rasterize.wgsl';
import scan from '../../../kernels/scan.wgsl';
import sh from '../../../kernels/sh.wgsl';
import shAdam from '../../../kernels/sh-adam.wgsl';
import siftDescribe from '../../../kernels/sift-describe.wgsl';
import siftDetect from '../../../kernels/sift-detect.wgsl';
import siftPyramid from '../../../kernels/sift-pyramid.wgsl';
import splatCommon from '../../../kernels/splat-common.wgsl';
import tsdfCommon from '../../../kernels/tsdf-common.wgsl';
import tsdf from '../../../kernels/tsdf.wgsl';
import wgScan from '../../../kernels/wg-scan.wgsl';

export const KERNEL_SOURCES: Readonly<Record<string, string>> = {
  adam,
  'adam-common': adamCommon,
  appearance,
  'appearance-common': appearanceCommon,
  'appearance-grad': appearanceGrad,
  'big-splats': bigSplats,
  'bundle-blocks': bundleBlocks,
  'bundle-common': bundleCommon,
  'bundle-linearise': bundleLinearise,
  'bundle-pcg': bundlePcg,
  'bundle-schur': bundleSchur,
  'bundle-update': bundleUpdate,
  'camera-grads': cameraGrads,
  'colour-correct': colourCorrect,
  'composite-forward': compositeForward,
  densify,
  dispatch,
  'edit-select': editSelect,
  gather,
  geometry,
  intersect,
  loss,
  'loss-target': lossTarget,
  'marching-cubes': marchingCubes,
  'match-nearest': matchNearest,
  mcmc,
  'mesh-depth': meshDepth,
  moments,
  project,
  'radix-sort': radixSort,
  random,
  rasterize,
  scan,
  sh,
  'sh-adam': shAdam,
  'sift-describe': siftDescribe,
  'sift-detect': siftDetect,
  'sift-pyramid': siftPyramid,
  'splat-common': splatCommon,
  'tsdf-common': tsdfCommon,
  tsdf,
  'wg-scan': wgScan,
};
