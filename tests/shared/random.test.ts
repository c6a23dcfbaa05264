import { describe, expect, it } from 'vitest';
import { Random, seededRandom } from '../../shared/random.js';

describe('the seeded generator (mulberry32)', () => {
  it("draws mulberry32's sequence: checkpoints, sample scenes and recorded test seeds depend on it", () => {
    // Values of the reference mulberry32 (Tommy Ettinger's, as every copy here had it before it lived once).
    const draw = seededRandom(7);
    expect([draw(), draw(), draw()]).toEqual([0.011704753153026104, 0.06195825757458806, 0.97690763277933]);
    const wrapped = new Random(0xffffffff);
    expect([wrapped.next(), wrapped.next()]).toEqual([0.8964226141106337, 0.189478256739676]);
  });

  it('resumes exactly from its state: the whole state is one number', () => {
    const a = new Random(12345);
    for (let i = 0; i < 10; i++) a.next();
    const b = new Random(a.state);
    expect(Array.from({ length: 5 }, () => b.next())).toEqual(Array.from({ length: 5 }, () => a.next()));
  });

  it('permutes 0..n-1 and stays in [0, 1)', () => {
    const random = new Random(3);
    expect([...random.permutation(50)].sort((x, y) => x - y)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    const draws = Array.from({ length: 10_000 }, () => random.next());
    expect(Math.min(...draws)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...draws)).toBeLessThan(1);
  });
});
