/**
 * Pieces far from the splats' support: a surface the TSDF left where no opaque splat is (a fringe
 * fused from a few views' soft edges, the shell of a transparent haze) has vertices farther from
 * every opaque splat than that splat's own size. A connected piece with too few vertices near an
 * opaque splat is dropped whole; a piece of the object keeps its holes-free surface, whatever a
 * few of its vertices do.
 */
import type { SplatSet } from '../../../shared/scene/splats.js';
import { triangleComponents } from './cleanup.js';
import { compactMesh, vertexCount, type TriangleMesh } from './mesh.js';

export interface SupportOptions {
  /** A vertex is supported within this many of a splat's largest scales (sigma) of its centre. */
  radiusScales: number;
  /** Splats under this opacity support nothing. */
  minOpacity: number;
  /** Pieces with fewer than this fraction of their vertices supported are dropped. */
  minFraction: number;
}

/** A splat this many grid cells wide or wider is checked against every vertex instead of binned. */
const BIG_SPLAT_CELLS = 8;

const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

/**
 * Per vertex, whether an opaque splat's ball of radius radiusScales x its largest scale holds it.
 * Splats are binned in a hash grid of cells the size of the 90th-percentile radius (each in every
 * cell its ball's box touches); the few larger ones are kept in a list of their own.
 */
export function supportedVertices(positions: Float32Array, splats: SplatSet, options: Pick<SupportOptions, 'radiusScales' | 'minOpacity'>): Uint8Array {
  const count = positions.length / 3;
  const supported = new Uint8Array(count);
  const centres: number[] = [];
  const radii: number[] = [];
  for (let i = 0; i < splats.count; i++) {
    if (sigmoid(splats.opacityLogits[i]) < options.minOpacity) continue;
    const s = splats.logScales;
    const r = options.radiusScales * Math.exp(Math.max(s[3 * i], s[3 * i + 1], s[3 * i + 2]));
    if (!(r > 0) || !Number.isFinite(r)) continue;
    centres.push(splats.means[3 * i], splats.means[3 * i + 1], splats.means[3 * i + 2]);
    radii.push(r);
  }
  if (!radii.length) return supported;
  const sorted = Float64Array.from(radii).sort();
  const cell = sorted[Math.min(sorted.length - 1, Math.floor(0.9 * sorted.length))];
  // a 32-bit spatial hash: cells that collide share a bin, which only adds candidates (each is
  // tested by distance), and a number key costs no string per vertex (1M+ vertices at grid 512)
  const key = (x: number, y: number, z: number) => (Math.imul(x, 73856093) ^ Math.imul(y, 19349663) ^ Math.imul(z, 83492791)) | 0;
  const bins = new Map<number, number[]>();
  const big: number[] = [];
  for (let i = 0; i < radii.length; i++) {
    const r = radii[i];
    if (r > BIG_SPLAT_CELLS * cell) {
      big.push(i);
      continue;
    }
    const lo = [0, 1, 2].map((a) => Math.floor((centres[3 * i + a] - r) / cell));
    const hi = [0, 1, 2].map((a) => Math.floor((centres[3 * i + a] + r) / cell));
    for (let x = lo[0]; x <= hi[0]; x++) {
      for (let y = lo[1]; y <= hi[1]; y++) {
        for (let z = lo[2]; z <= hi[2]; z++) {
          const k = key(x, y, z);
          const bin = bins.get(k);
          if (bin) bin.push(i);
          else bins.set(k, [i]);
        }
      }
    }
  }
  const c = Float64Array.from(centres);
  const r2 = Float64Array.from(radii, (r) => r * r);
  const anyHolds = (list: readonly number[], x: number, y: number, z: number) => {
    for (const i of list) {
      const dx = x - c[3 * i];
      const dy = y - c[3 * i + 1];
      const dz = z - c[3 * i + 2];
      if (dx * dx + dy * dy + dz * dz <= r2[i]) return true;
    }
    return false;
  };
  for (let v = 0; v < count; v++) {
    const x = positions[3 * v];
    const y = positions[3 * v + 1];
    const z = positions[3 * v + 2];
    const bin = bins.get(key(Math.floor(x / cell), Math.floor(y / cell), Math.floor(z / cell)));
    if ((bin && anyHolds(bin, x, y, z)) || anyHolds(big, x, y, z)) supported[v] = 1;
  }
  return supported;
}

/** Drops the connected pieces with under options.minFraction of their vertices supported (supportedVertices); minFraction 0 keeps all. */
export function removeUnsupportedComponents(mesh: TriangleMesh, splats: SplatSet, options: SupportOptions): { mesh: TriangleMesh; removedComponents: number; removedTriangles: number } {
  if (!(options.minFraction > 0) || !vertexCount(mesh)) return { mesh, removedComponents: 0, removedTriangles: 0 };
  const supported = supportedVertices(mesh.positions, splats, options);
  const { component, sizes } = triangleComponents(mesh);
  // per piece: its vertices (each counted once) and how many of them are supported
  const vertices = new Float64Array(sizes.length);
  const held = new Float64Array(sizes.length);
  const pieceOf = new Int32Array(vertexCount(mesh)).fill(-1);
  for (let t = 0; t < component.length; t++) {
    for (let c = 0; c < 3; c++) {
      const v = mesh.indices[3 * t + c];
      if (pieceOf[v] >= 0) continue;
      pieceOf[v] = component[t];
      vertices[component[t]]++;
      held[component[t]] += supported[v];
    }
  }
  const keep = Array.from(sizes, (_, piece) => held[piece] >= options.minFraction * vertices[piece]);
  const out = compactMesh(mesh, (t) => keep[component[t]]);
  let removedTriangles = 0;
  sizes.forEach((size, piece) => (removedTriangles += keep[piece] ? 0 : size));
  return { mesh: out, removedComponents: keep.filter((k) => !k).length, removedTriangles };
}
