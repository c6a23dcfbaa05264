import { describe, expect, it } from 'vitest';
import { ADAM_DEFAULTS } from '../../../../main/engine/train/adam.js';
import { adamStep, block } from '../../../../main/engine/train/host-adam.js';

describe('host Adam (float64)', () => {
  it("the first step moves each parameter by its own rate against its gradient's sign, whatever the gradient's size", () => {
    const b = block(3);
    adamStep(b, [1e-6, -30, 2], [0.1, 0.2, 0.3], 0);
    expect(b.steps).toBe(1);
    expect(b.value[0]).toBeCloseTo(-0.1, 6);
    expect(b.value[1]).toBeCloseTo(0.2, 9);
    expect(b.value[2]).toBeCloseTo(-0.3, 9);
  });

  it("matches the GPU Adam's update (adam.ts's hyperparameters) over several steps, with decoupled weight decay", () => {
    const { beta1, beta2, epsilon } = ADAM_DEFAULTS;
    const b = block(1);
    b.value[0] = 0.5;
    let [x, m, v] = [0.5, 0, 0];
    const grads = [0.3, -0.1, 0.7, 0.2];
    grads.forEach((g, i) => {
      adamStep(b, [g], [0.01], 0.1);
      m = beta1 * m + (1 - beta1) * g;
      v = beta2 * v + (1 - beta2) * g * g;
      x -= 0.01 * (m / (1 - beta1 ** (i + 1)) / (Math.sqrt(v / (1 - beta2 ** (i + 1))) + epsilon) + 0.1 * x);
    });
    expect(b.value[0]).toBeCloseTo(x, 15);
    expect(b.steps).toBe(grads.length);
  });
});
