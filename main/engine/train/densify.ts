/** The densification strategy a configuration names, ready for `rebuild`. */
import type { GpuContext } from '../gpu/context.js';
import { AdcStrategy } from './densify-adc.js';
import { McmcStrategy } from './densify-mcmc.js';
import type { DensifyStrategy, DensifyStrategyName } from './densify-strategy.js';
import type { TrainerConfig } from './trainer-config.js';

const STRATEGIES: Record<DensifyStrategyName, (ctx: GpuContext, config: TrainerConfig) => DensifyStrategy> = {
  adc: (ctx, config) => new AdcStrategy(ctx, config.adc),
  mcmc: (ctx, config) => new McmcStrategy(ctx, config.mcmc),
};

export function createDensifyStrategy(ctx: GpuContext, config: TrainerConfig): DensifyStrategy {
  return STRATEGIES[config.strategy](ctx, config);
}
