/**
 * Marching-cubes tables, generated (not typed in): 256 cases, each a list of triangles over the
 * 12 cube edges. One source of truth for the GPU kernel (uploaded as a storage buffer) and the
 * CPU reference.
 *
 * Numbering: corner c = x + 2y + 4z (x, y, z in {0, 1}); edge e = 4 * axis + the two other
 * corner bits (for axis x: y + 2z; axis y: x + 2z; axis z: x + 2y), from its low corner (the
 * axis bit 0) to its high corner. A case's bit c is set when corner c is inside (value < 0).
 *
 * Construction: on each face the crossing edges (2 or 4) are joined by segments; with 4 (the
 * ambiguous diagonal face) each inside corner is cut off on its own. The decision depends only on
 * the face's four corners, so the two cells sharing a face cut it the same way: no cracks. Every
 * crossing edge then has exactly two segments (one per face it lies on), so the segments form
 * closed loops; each loop becomes a triangle fan, wound so that its normal points from inside
 * (negative) to outside (positive).
 */

/** [low corner, high corner, axis] of each edge. */
export const MC_EDGES: readonly (readonly [number, number, number])[] = (() => {
  const edges: [number, number, number][] = [];
  for (let axis = 0; axis < 3; axis++) {
    for (let rest = 0; rest < 4; rest++) {
      const others = [0, 1, 2].filter((a) => a !== axis);
      let low = 0;
      others.forEach((a, i) => {
        if ((rest >> i) & 1) low |= 1 << a;
      });
      edges.push([low, low | (1 << axis), axis]);
    }
  }
  return edges;
})();

/** Entries per case in MC_TRIANGLES: up to MC_MAX_TRIANGLES triangles, then -1. */
export const MC_ROW = 16;
export const MC_MAX_TRIANGLES = 5;

const corner = (c: number) => [c & 1, (c >> 1) & 1, (c >> 2) & 1];

function edgeBetween(a: number, b: number): number {
  const e = MC_EDGES.findIndex(([lo, hi]) => (lo === a && hi === b) || (lo === b && hi === a));
  if (e < 0) throw new Error(`corners ${a} and ${b} share no edge`);
  return e;
}

/** The six faces as their corners in cyclic order. */
const FACES: readonly (readonly number[])[] = (() => {
  const faces: number[][] = [];
  for (let axis = 0; axis < 3; axis++) {
    const [u, v] = [0, 1, 2].filter((a) => a !== axis);
    for (const side of [0, 1]) {
      const base = side << axis;
      faces.push([base, base | (1 << u), base | (1 << u) | (1 << v), base | (1 << v)]);
    }
  }
  return faces;
})();

function triangulateCase(inside: number): number[][] {
  const isIn = (c: number) => ((inside >> c) & 1) === 1;
  // segments on each face
  const links = new Map<number, number[]>();
  const link = (a: number, b: number) => {
    links.set(a, [...(links.get(a) ?? []), b]);
    links.set(b, [...(links.get(b) ?? []), a]);
  };
  for (const face of FACES) {
    const crossing: number[] = [];
    for (let i = 0; i < 4; i++) {
      const a = face[i];
      const b = face[(i + 1) % 4];
      if (isIn(a) !== isIn(b)) crossing.push(edgeBetween(a, b));
    }
    if (crossing.length === 2) link(crossing[0], crossing[1]);
    else if (crossing.length === 4) {
      // cut off each inside corner: join its two face edges
      for (let i = 0; i < 4; i++) {
        if (!isIn(face[i])) continue;
        link(edgeBetween(face[(i + 3) % 4], face[i]), edgeBetween(face[i], face[(i + 1) % 4]));
      }
    }
  }
  // loops
  const seen = new Set<number>();
  const triangles: number[][] = [];
  const midpoint = (e: number) => {
    const [a, b] = MC_EDGES[e];
    const pa = corner(a);
    const pb = corner(b);
    return [0, 1, 2].map((i) => (pa[i] + pb[i]) / 2);
  };
  for (const start of [...links.keys()].sort((a, b) => a - b)) {
    if (seen.has(start)) continue;
    const loop = [start];
    seen.add(start);
    let previous = -1;
    let current = start;
    for (;;) {
      const [x, y] = links.get(current)!;
      const next = x === previous ? y : x;
      if (next === start) break;
      loop.push(next);
      seen.add(next);
      previous = current;
      current = next;
    }
    // orientation: Newell normal of the loop against the inside -> outside direction
    const pts = loop.map(midpoint);
    const n = [0, 0, 0];
    for (let i = 0; i < pts.length; i++) {
      const p = pts[i];
      const q = pts[(i + 1) % pts.length];
      n[0] += (p[1] - q[1]) * (p[2] + q[2]);
      n[1] += (p[2] - q[2]) * (p[0] + q[0]);
      n[2] += (p[0] - q[0]) * (p[1] + q[1]);
    }
    const out = [0, 0, 0];
    for (const e of loop) {
      const [a, b] = MC_EDGES[e];
      const [pin, pout] = isIn(a) ? [corner(a), corner(b)] : [corner(b), corner(a)];
      for (let i = 0; i < 3; i++) out[i] += pout[i] - pin[i];
    }
    if (n[0] * out[0] + n[1] * out[1] + n[2] * out[2] < 0) loop.reverse();
    for (let i = 1; i + 1 < loop.length; i++) triangles.push([loop[0], loop[i], loop[i + 1]]);
  }
  return triangles;
}

/** 256 x MC_ROW edge indices: a case's triangles (three edges each), then -1 up to the row's end. */
export const MC_TRIANGLES: Int32Array = (() => {
  const table = new Int32Array(256 * MC_ROW).fill(-1);
  for (let c = 0; c < 256; c++) {
    const tris = triangulateCase(c);
    if (tris.length > MC_MAX_TRIANGLES) throw new Error(`marching cubes case ${c}: ${tris.length} triangles`);
    tris.flat().forEach((e, i) => (table[c * MC_ROW + i] = e));
  }
  return table;
})();

/** Triangles of each case. */
export const MC_TRIANGLE_COUNT: Uint8Array = (() => {
  const counts = new Uint8Array(256);
  for (let c = 0; c < 256; c++) {
    let n = 0;
    while (n < MC_ROW && MC_TRIANGLES[c * MC_ROW + n] >= 0) n++;
    counts[c] = n / 3;
  }
  return counts;
})();
