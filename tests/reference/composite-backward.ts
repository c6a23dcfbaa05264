/**
 * Analytic backward of the compositing stage (composite.ts), the standard 3DGS reverse pass:
 * each pixel replays `walkPixel`, then goes back to front over its composited splats, recovering
 * T before each splat from the final T (T_k = T_{k+1} / (1 - alpha_k)).
 *
 * With gw_k = dL/dw_k (colour, depth, normal and distortion terms) and the final transmittance
 * entering as rgb += T bg, alpha = 1 - T:
 *   dL/dalpha_k = gw_k T_k - (sum_{j>k} gw_j w_j + dL/dT_final * T_final) / (1 - alpha_k).
 * alpha = o exp(-power) unless clamped at 0.99 (then no gradient to o, conic or mean2d).
 * The median depth passes its gradient to the depth of the splat it picked.
 */
import {
  binSplats,
  PixelWalk,
  walkPixel,
  type CompositeGradients,
  type CompositeInput,
  type CompositeOutputGradients,
} from './composite.js';

export function compositeBackward(input: CompositeInput, grads: CompositeOutputGradients): CompositeGradients {
  const { width, height, count } = input;
  const out: CompositeGradients = {
    mean2d: new Float64Array(2 * count),
    absMean2d: new Float64Array(2 * count),
    conic: new Float64Array(3 * count),
    opacity: new Float64Array(count),
    colour: new Float64Array(3 * count),
    depth: new Float64Array(count),
    normal: new Float64Array(3 * count),
  };
  const bins = binSplats(input);
  const walk = new PixelWalk();
  let gw = new Float64Array(16);
  const bg = input.background;
  const at = (a: ArrayLike<number> | undefined, k: number): number => (a ? a[k] : 0);
  for (let v = 0; v < height; v++) {
    for (let u = 0; u < width; u++) {
      const p = v * width + u;
      walkPixel(input, bins, u, v, walk);
      const n = walk.n;
      if (n === 0) continue;
      if (gw.length < n) gw = new Float64Array(2 * n);
      const gR = at(grads.rgb, 3 * p);
      const gG = at(grads.rgb, 3 * p + 1);
      const gB = at(grads.rgb, 3 * p + 2);
      const gDepth = at(grads.depth, p);
      const gNx = at(grads.normals, 3 * p);
      const gNy = at(grads.normals, 3 * p + 1);
      const gNz = at(grads.normals, 3 * p + 2);
      const gDist = at(grads.distortion, p);
      const gMedian = at(grads.medianDepth, p);

      // Totals for the distortion terms.
      let weightTotal = 0;
      let weightedDepthTotal = 0;
      for (let k = 0; k < n; k++) {
        const w = walk.alpha[k] * walk.tBefore[k];
        weightTotal += w;
        weightedDepthTotal += w * input.depth[walk.index[k]];
      }
      // Direct gradients and dL/dw_k, front to back.
      let weightBefore = 0;
      let weightedDepthBefore = 0;
      let medianFound = false;
      for (let k = 0; k < n; k++) {
        const i = walk.index[k];
        const w = walk.alpha[k] * walk.tBefore[k];
        const z = input.depth[i];
        const weightAfter = weightTotal - weightBefore - w;
        const weightedDepthAfter = weightedDepthTotal - weightedDepthBefore - w * z;
        gw[k] =
          gR * input.colour[3 * i] +
          gG * input.colour[3 * i + 1] +
          gB * input.colour[3 * i + 2] +
          gDepth * z +
          gNx * input.normal[3 * i] +
          gNy * input.normal[3 * i + 1] +
          gNz * input.normal[3 * i + 2] +
          gDist * 2 * (z * weightBefore - weightedDepthBefore + weightedDepthAfter - z * weightAfter);
        out.colour[3 * i] += gR * w;
        out.colour[3 * i + 1] += gG * w;
        out.colour[3 * i + 2] += gB * w;
        out.normal[3 * i] += gNx * w;
        out.normal[3 * i + 1] += gNy * w;
        out.normal[3 * i + 2] += gNz * w;
        out.depth[i] += gDepth * w + gDist * 2 * w * (weightBefore - weightAfter);
        weightBefore += w;
        weightedDepthBefore += w * z;
        const tAfter = k + 1 < n ? walk.tBefore[k + 1] : walk.finalT;
        if (!medianFound && tAfter <= 0.5) {
          out.depth[i] += gMedian;
          medianFound = true;
        }
      }

      // Back to front.
      const gFinalT = gR * bg[0] + gG * bg[1] + gB * bg[2] - at(grads.alpha, p);
      let T = walk.finalT;
      let behind = gFinalT * T; // sum_{j>k} gw_j w_j + dL/dT_final T_final
      for (let k = n - 1; k >= 0; k--) {
        const i = walk.index[k];
        const alpha = walk.alpha[k];
        T /= 1 - alpha;
        const gAlpha = gw[k] * T - behind / (1 - alpha);
        behind += gw[k] * alpha * T;
        if (walk.clamped[k]) continue;
        out.opacity[i] += gAlpha * walk.gauss[k];
        const gPower = -gAlpha * alpha;
        const dx = walk.dx[k];
        const dy = walk.dy[k];
        out.conic[3 * i] += 0.5 * gPower * dx * dx;
        out.conic[3 * i + 1] += gPower * dx * dy;
        out.conic[3 * i + 2] += 0.5 * gPower * dy * dy;
        const gx = gPower * (input.conic[3 * i] * dx + input.conic[3 * i + 1] * dy);
        const gy = gPower * (input.conic[3 * i + 1] * dx + input.conic[3 * i + 2] * dy);
        out.mean2d[2 * i] += gx;
        out.mean2d[2 * i + 1] += gy;
        out.absMean2d[2 * i] += Math.abs(gx);
        out.absMean2d[2 * i + 1] += Math.abs(gy);
      }
    }
  }
  return out;
}
