/**
 * Selections as the engine's `edits.select` returns them: u32 words, one bit per BASE splat
 * (bit i of word i >> 5 is splat i of the edit list's base). The viewer shows the edited splats
 * (`projects.splats`), so each shown splat's base index comes from the engine's map (or is its
 * own index while nothing was deleted). The mask helpers are shared/edits/selection-mask.ts's.
 *
 * Highlighting tints the selected splats' colour in a copy of the buffer handed to `setSplats`
 * (not a second overlay mesh): one mesh, one depth sort, the tint exactly where the splat is and
 * blended as it is, and a selection of millions costs one pass over the colours instead of a second
 * mesh of the same size to sort every frame.
 */

/** RGBA bytes 0..255. */
export type Rgba = readonly [number, number, number, number];
export const SELECTION_TINT: Rgba = [255, 196, 0, 255];
export const CLEAN_PREVIEW_TINT: Rgba = [255, 40, 60, 255];

/**
 * A copy of `buffer` (32-byte layout: colour bytes at 24..27) whose splats selected in `mask` are
 * tinted: colour moved `amount` of the way to `tint`, opacity raised to at least 0.4 so faint
 * floaters show. `baseIndex[i]` is shown splat i's base index (undefined: the identity). Returns
 * the buffer itself when nothing is selected (no copy).
 */
export function tintSelected(buffer: ArrayBuffer, count: number, mask: Uint32Array, baseIndex: Uint32Array | undefined, tint: Rgba = SELECTION_TINT, amount = 0.65): { buffer: ArrayBuffer; tinted: number } {
  if (baseIndex && baseIndex.length < count) throw new RangeError(`selection highlight: ${count} splats shown but ${baseIndex.length} base indices`);
  let tinted = 0;
  let out: Uint8Array | undefined;
  for (let i = 0; i < count; i++) {
    const base = baseIndex ? baseIndex[i] : i;
    if (((mask[base >>> 5] >>> (base & 31)) & 1) === 0) continue;
    out ??= new Uint8Array(buffer.slice(0, count * 32));
    const o = i * 32 + 24;
    for (let c = 0; c < 3; c++) out[o + c] = Math.round(out[o + c] + (tint[c] - out[o + c]) * amount);
    out[o + 3] = Math.max(out[o + 3], 102);
    tinted++;
  }
  return { buffer: out ? (out.buffer as ArrayBuffer) : buffer, tinted };
}

/** Centres (engine frame) of the shown splats selected in `mask`: the ground-plane tool's input. */
export function selectedCentres(buffer: ArrayBuffer, count: number, mask: Uint32Array, baseIndex: Uint32Array | undefined): Float64Array {
  const floats = new Float32Array(buffer, 0, count * 8);
  const out: number[] = [];
  for (let i = 0; i < count; i++) {
    const base = baseIndex ? baseIndex[i] : i;
    if (((mask[base >>> 5] >>> (base & 31)) & 1) === 0) continue;
    out.push(floats[i * 8], floats[i * 8 + 1], floats[i * 8 + 2]);
  }
  return Float64Array.from(out);
}

/**
 * The highlight kept up to date incrementally: one working copy of the shown splats per splat
 * buffer (a copy of 1M splats costs ~70 ms here), then per selection change only the splats whose
 * bit changed are tinted or restored (words compared, then bits), so a brush stroke on millions
 * of splats costs what it changed, not a pass over every colour. `update` returns the working
 * buffer (the same ArrayBuffer each time, mutated in place: the viewer hands it on to Babylon,
 * which copies what it draws).
 */
export class SelectionHighlighter {
  private source: ArrayBuffer | undefined;
  private sourceBytes: Uint8Array | undefined;
  private working: Uint8Array | undefined;
  /** Base index -> shown index (-1: not shown), when the shown splats are not the base. */
  private shownOf: Int32Array | undefined;
  private count = 0;
  private applied = new Uint32Array(0);
  private appliedTint: Rgba | undefined;
  /** Splats tinted or restored by the last update (tests, the status line). */
  lastChanged = 0;

  update(splats: { buffer: ArrayBuffer; count: number; baseIndex?: Uint32Array }, mask: Uint32Array, tint: Rgba = SELECTION_TINT, amount = 0.65): ArrayBuffer {
    if (splats.buffer !== this.source || splats.count !== this.count) this.reset(splats);
    const working = this.working!;
    const source = this.sourceBytes!;
    let changed = 0;
    const set = (shown: number, on: boolean) => {
      const o = shown * 32 + 24;
      if (on) {
        for (let c = 0; c < 3; c++) working[o + c] = Math.round(source[o + c] + (tint[c] - source[o + c]) * amount);
        working[o + 3] = Math.max(source[o + 3], 102);
      } else for (let c = 0; c < 4; c++) working[o + c] = source[o + c];
      changed++;
    };
    const visit = (base: number, on: boolean) => {
      const shown = this.shownOf ? (base < this.shownOf.length ? this.shownOf[base] : -1) : base < this.count ? base : -1;
      if (shown >= 0) set(shown, on);
    };
    const sameTint = this.appliedTint !== undefined && this.appliedTint.every((v, i) => v === tint[i]);
    const words = Math.max(mask.length, this.applied.length);
    for (let w = 0; w < words; w++) {
      const before = this.applied[w] ?? 0;
      const after = mask[w] ?? 0;
      // A new tint colour re-tints every selected splat; otherwise only the bits that changed.
      let diff = sameTint ? before ^ after : before | after;
      while (diff !== 0) {
        const bit = 31 - Math.clz32(diff & -diff);
        diff &= diff - 1;
        visit(w * 32 + bit, ((after >>> bit) & 1) === 1);
      }
    }
    this.applied = mask.slice();
    this.appliedTint = tint;
    this.lastChanged = changed;
    return working.buffer as ArrayBuffer;
  }

  private reset(splats: { buffer: ArrayBuffer; count: number; baseIndex?: Uint32Array }) {
    this.source = splats.buffer;
    this.count = splats.count;
    this.sourceBytes = new Uint8Array(splats.buffer, 0, splats.count * 32);
    this.working = new Uint8Array(splats.buffer.slice(0, splats.count * 32));
    this.applied = new Uint32Array(0);
    this.appliedTint = undefined;
    if (splats.baseIndex) {
      if (splats.baseIndex.length < splats.count) throw new RangeError(`selection highlight: ${splats.count} splats shown but ${splats.baseIndex.length} base indices`);
      let max = 0;
      for (let i = 0; i < splats.count; i++) max = Math.max(max, splats.baseIndex[i]);
      this.shownOf = new Int32Array(max + 1).fill(-1);
      for (let i = 0; i < splats.count; i++) this.shownOf[splats.baseIndex[i]] = i;
    } else this.shownOf = undefined;
  }
}
