import { describe, expect, it } from 'vitest';
import { tooFewRegistered } from '../../../../main/engine/capture/capture-sfm.js';

describe('when COLMAP takes over from our SfM', () => {
  it('under half of the images registered while the view graph held more: a reason naming the counts', () => {
    expect(tooFewRegistered(4, 10, 9)).toBe('registered 4 of 10 images while 9 had a verified pair');
    expect(tooFewRegistered(0, 10, 10)).toBe('registered 0 of 10 images while 10 had a verified pair');
  });

  it('half or more registered, or nothing more to gain (the rest had no verified pair): ours stays', () => {
    expect(tooFewRegistered(5, 10, 10)).toBeUndefined();
    expect(tooFewRegistered(3, 10, 3)).toBeUndefined();
    expect(tooFewRegistered(2, 10, 1)).toBeUndefined();
  });
});
