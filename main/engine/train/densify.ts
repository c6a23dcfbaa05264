/** The densification strategy a configuration names, ready for `rebuild`. */
import type { GpuContext } from '../gpu/context.js';
import { AdcStrategy, adcConfigFor } from './densify-adc.js';
import { McmcStrategy } from './densify-mcmc.js';
import type { DensifyStrategy, DensifyStrategyName } from './densify-strategy.js';
import type { TrainerConfig } from './trainer-config.js';

const STRATEGIES: Record<DensifyStrategyName, (ctx: GpuContext, config: TrainerConfig, photographed: boolean) => DensifyStrategy> = {
  adc: (ctx, config, photographed) => new AdcStrategy(ctx, adcConfigFor(config.adc, photographed)),
  mcmc: (ctx, config) => new McmcStrategy(ctx, config.mcmc),
};

/** `photographed`: the data is a capture (TrainingData.photographed), which has its own refine stop. */
export function createDensifyStrategy(ctx: GpuContext, config: TrainerConfig, photographed: boolean): DensifyStrategy {
  return STRATEGIES[config.strategy](ctx, config, photographed);
}
