/**
 * How many visible splats the training frame's depth-ranked arrays hold (issue 18: the frame's
 * per-splat working set sized by the visible count, not the splat capacity). Pure numbers; the
 * trainer asks at fixed steps, with every readback drained, so the size never depends on when a
 * readback landed. The size changes no result while no view overflows it: a view with more
 * visible splats than the frame holds renders only the first by index (kernels/intersect.wgsl),
 * counted in `overflows` (as the intersections' are) and grown after.
 *
 * Sizing: 1.5x the most visible splats any view had (the set-up counts up to 64 views, as for
 * the intersections; each step reads its count back), grown when a check finds 85% of it used.
 * A refine adds splats between two checks: the splats it added since the last check are counted
 * as visible too (a refine clones and splits splats that were visible, so its new splats mostly
 * are), which is why the trainer also checks on the step after each refine.
 */

/** Headroom over the most visible splats seen, and the share of the size that triggers growth. */
export const VISIBLE_HEADROOM = 1.5;
export const VISIBLE_GROW_AT = 0.85;

export class VisibleCapacity {
  /** Steps whose view had more visible splats than the frame held (they rendered without the rest). */
  overflows = 0;
  /** The most visible splats a view had since the last check. */
  private seen = 0;
  /** The splat count at the last check. */
  private countAtCheck: number;

  constructor(splatCount: number) {
    this.countAtCheck = splatCount;
  }

  /** A step's readback: its view had `needed` visible splats, its frame held `held`. */
  report(needed: number, held: number): void {
    this.seen = Math.max(this.seen, needed);
    if (needed > held) this.overflows += 1;
  }

  /**
   * At a check (readbacks drained): the size the frame should have for `splatCount` splats within
   * `capacity`, or `held` when it holds enough. Starts the next period.
   */
  check(held: number, capacity: number, splatCount: number): number {
    const needed = this.seen + Math.max(0, splatCount - this.countAtCheck);
    this.seen = 0;
    this.countAtCheck = splatCount;
    return visibleCapacityFor(needed, held, capacity);
  }
}

/** `held`, or 1.5x `needed` (at most `capacity`) when `needed` is over 85% of `held`. */
export function visibleCapacityFor(needed: number, held: number, capacity: number): number {
  if (needed <= VISIBLE_GROW_AT * held) return Math.min(held, capacity);
  return Math.min(capacity, Math.max(held, Math.ceil(needed * VISIBLE_HEADROOM)));
}
