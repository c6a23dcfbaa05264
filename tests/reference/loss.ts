/**
 * Float64 reference of the training loss: L = 0.8 mean|I - T| + 0.2 (1 - mean SSIM(I, T)) over
 * RGB, SSIM with an 11x11 Gaussian window (sigma 1.5), zero padding (conv2d padding=5), C1 = 0.01^2,
 * C2 = 0.03^2: the 3DGS definition. With padding 'valid' the SSIM mean is over the pixels whose
 * window lies inside the image ((W - 10) x (H - 10), fused-ssim's padding="valid" as gsplat's
 * trainer uses it; the padded mean for images of 10 px or less on a side). Gradient by the
 * adjoint of each step. Tests only.
 */
const SIGMA = 1.5;
const WINDOW = 11;
const HALF = 5;

export function gaussianWindow(): Float64Array {
  const w = Float64Array.from({ length: WINDOW }, (_, i) => Math.exp(-((i - HALF) ** 2) / (2 * SIGMA * SIGMA)));
  const s = w.reduce((a, b) => a + b, 0);
  return w.map((x) => x / s);
}

/** Separable blur with zero padding of one channel (H x W). */
export function blur(src: Float64Array, width: number, height: number): Float64Array {
  const g = gaussianWindow();
  const tmp = new Float64Array(width * height);
  const out = new Float64Array(width * height);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      let s = 0;
      for (let k = 0; k < WINDOW; k++) {
        const xx = x + k - HALF;
        if (xx >= 0 && xx < width) s += g[k] * src[y * width + xx];
      }
      tmp[y * width + x] = s;
    }
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      let s = 0;
      for (let k = 0; k < WINDOW; k++) {
        const yy = y + k - HALF;
        if (yy >= 0 && yy < height) s += g[k] * tmp[yy * width + x];
      }
      out[y * width + x] = s;
    }
  return out;
}

export interface LossResult {
  loss: number;
  ssim: number;
  l1: number;
  /** dL/dI, H*W*3 */
  grad: Float64Array;
}

/** image, target: H*W*3 in [0,1]; mask: H*W, 0 = the pixel is ignored (default: none). */
export function lossReference(image: ArrayLike<number>, target: ArrayLike<number>, width: number, height: number, padding: 'same' | 'valid' = 'same', mask?: ArrayLike<number>): LossResult {
  const P = width * height;
  const kept = (i: number) => !mask || mask[i] !== 0;
  const valid = padding === 'valid' && width > 2 * HALF && height > 2 * HALF;
  const interior = (i: number) => !valid || (i % width >= HALF && i % width < width - HALF && Math.floor(i / width) >= HALF && Math.floor(i / width) < height - HALF);
  const counted = (i: number) => interior(i) && kept(i);
  let keptPixels = 0;
  let countedPixels = 0;
  for (let i = 0; i < P; i++) {
    if (kept(i)) keptPixels++;
    if (counted(i)) countedPixels++;
  }
  const n = Math.max(1, keptPixels * 3);
  const nSsim = Math.max(1, countedPixels * 3);
  const grad = new Float64Array(P * 3);
  let ssimSum = 0;
  let l1Sum = 0;
  const C1 = 0.01 ** 2;
  const C2 = 0.03 ** 2;
  for (let c = 0; c < 3; c++) {
    const x = new Float64Array(P);
    const y = new Float64Array(P);
    for (let i = 0; i < P; i++) {
      // a masked pixel is a zero in every window (kernels/loss.wgsl)
      x[i] = kept(i) ? image[3 * i + c] : 0;
      y[i] = kept(i) ? target[3 * i + c] : 0;
    }
    const mx = blur(x, width, height);
    const my = blur(y, width, height);
    const exx = blur(x.map((v) => v * v), width, height);
    const eyy = blur(y.map((v) => v * v), width, height);
    const exy = blur(x.map((v, i) => v * y[i]), width, height);
    const pMu = new Float64Array(P);
    const pXx = new Float64Array(P);
    const pXy = new Float64Array(P);
    const dS = -0.2 / nSsim;
    for (let i = 0; i < P; i++) {
      if (!counted(i)) continue;
      const a = 2 * mx[i] * my[i] + C1;
      const b = 2 * (exy[i] - mx[i] * my[i]) + C2;
      const cc = mx[i] ** 2 + my[i] ** 2 + C1;
      const d = exx[i] - mx[i] ** 2 + eyy[i] - my[i] ** 2 + C2;
      const s = (a * b) / (cc * d);
      ssimSum += s;
      // no division by b (it reaches 0 for anticorrelated patches)
      pMu[i] = dS * ((2 * my[i] * (b - a)) / (cc * d) - 2 * mx[i] * s * (1 / cc - 1 / d));
      pXx[i] = dS * (-s / d);
      pXy[i] = dS * ((2 * a) / (cc * d));
    }
    const bMu = blur(pMu, width, height);
    const bXx = blur(pXx, width, height);
    const bXy = blur(pXy, width, height);
    for (let i = 0; i < P; i++) {
      if (!kept(i)) continue; // dL/dx = 0: x enters only as m x
      const diff = x[i] - y[i];
      l1Sum += Math.abs(diff);
      grad[3 * i + c] = bMu[i] + 2 * x[i] * bXx[i] + y[i] * bXy[i] + (0.8 * Math.sign(diff)) / n;
    }
  }
  const ssim = ssimSum / nSsim;
  const l1 = l1Sum / n;
  return { loss: 0.8 * l1 + 0.2 * (1 - ssim), ssim, l1, grad };
}
