import { describe, expect, it } from 'vitest';
import { backwardDefaults, deviceLimits, fitBackward, rasterizeWorkgroupBytes, WEBGPU_DEFAULT_LIMITS, type BackwardRequest, type DeviceLimits } from '../../../../main/engine/render/backward-fit.js';
import h200 from '../../../../bench/results/h200-info.json' with { type: 'json' };

const device = (workgroupStorage: number, subgroupMinSize: number, subgroupMaxSize = subgroupMinSize, storageBuffersPerStage = 12): DeviceLimits => ({ workgroupStorage, storageBuffersPerStage, invocationsPerWorkgroup: 256, subgroupMinSize, subgroupMaxSize });
const DEVICES = {
  h200: device(49152, 32, 32, 16),
  swiftshader: device(32768, 4),
  apple: device(32768, 32),
  intel: device(32768, 8, 32),
  amdWave64: device(65536, 64),
  lanes128: device(32768, 128),
};
const plain = { OUT_MEDIAN: 0, OUT_NORMALS: 0, OUT_DISTORTION: 0, NORMAL_SLOTS: 1, RECORDS: 3 };
const everything = { OUT_MEDIAN: 1, OUT_NORMALS: 1, OUT_DISTORTION: 1, NORMAL_SLOTS: 256, RECORDS: 4 };
const subgroup = (features = plain, extra: Partial<BackwardRequest> = {}): BackwardRequest => ({ variant: 'subgroup', features, ...extra });

describe('fitBackward', () => {
  it("gives the H200 (48 KiB, subgroups of 32) exactly the constants it was tuned and benchmarked with", () => {
    const limits = deviceLimits(h200 as never);
    expect(limits).toMatchObject({ workgroupStorage: 49152, subgroupMinSize: 32 });
    expect(fitBackward(limits, subgroup())).toMatchObject({ variant: 'subgroup', entryPoint: 'rasterize_backward', constants: { BATCH_B: 24, PPT: 2, MAX_SUBGROUPS: 4, ABSGRAD: 1, ...plain } });
    expect(fitBackward(limits, subgroup(everything, { absgrad: false })).constants).toEqual({ BATCH_B: 24, PPT: 2, MAX_SUBGROUPS: 4, ABSGRAD: 0, ...everything });
    expect(fitBackward(limits, subgroup(plain, { backwardPixels: 1 })).constants).toMatchObject({ BATCH_B: 16, PPT: 1, MAX_SUBGROUPS: 8 });
    expect(fitBackward(limits, subgroup(plain, { backwardReduce: 'cas' }))).toMatchObject({ entryPoint: 'rasterize_backward_cas', constants: { BATCH_CAS: 64 } });
    expect(fitBackward(limits, { variant: 'portable', features: plain }).constants).toEqual({ BATCH_B: 64, ...plain });
  });

  it('shrinks the batch on SwiftShader (subgroups of 4, 32 KiB) to the longest that fits', () => {
    for (const features of [plain, everything]) {
      const fit = fitBackward(DEVICES.swiftshader, subgroup(features));
      expect(fit).toMatchObject({ variant: 'subgroup', backwardReduce: 'partials', backwardPixels: 2, constants: { MAX_SUBGROUPS: 32 } });
      expect(fit.backwardBatch).toBeLessThan(24);
      expect(fit.workgroupBytes).toBeLessThanOrEqual(32768);
      expect(rasterizeWorkgroupBytes('subgroup', 'rasterize_backward', { ...fit.constants, BATCH_B: fit.backwardBatch + 1 })).toBeGreaterThan(32768);
      expect(fit.reason).toMatch(/batch 24 as requested would need \d+ B/);
    }
  });

  it('keeps the preferred batch wherever it fits, with as many partials as the smallest subgroups need', () => {
    const subgroups = { apple: 4, intel: 16, amdWave64: 2, lanes128: 1 } as const;
    for (const [name, count] of Object.entries(subgroups)) {
      const fit = fitBackward(DEVICES[name as keyof typeof subgroups], subgroup(everything));
      expect(fit.constants, name).toMatchObject({ BATCH_B: 24, PPT: 2, MAX_SUBGROUPS: count });
      expect(fit.reason, name).not.toMatch(/would need/);
    }
  });

  it("falls back to the 'cas' reduction, then to the portable backward with fewer intersections reduced at a time", () => {
    const tiny = device(8192, 4);
    expect(fitBackward(tiny, subgroup())).toMatchObject({ variant: 'subgroup', entryPoint: 'rasterize_backward_cas', constants: { BATCH_CAS: 64 } });
    // 'cas' has no optional outputs
    expect(fitBackward(tiny, subgroup(everything))).toMatchObject({ variant: 'portable', constants: { BATCH_B: 64, NORMAL_SLOTS: 64, REDUCE_SPLATS: 1 } });
    const defaults = { ...WEBGPU_DEFAULT_LIMITS, subgroupMinSize: 4, subgroupMaxSize: 4 };
    expect(fitBackward(defaults, subgroup())).toMatchObject({ variant: 'subgroup', constants: { MAX_SUBGROUPS: 32, BATCH_B: 10 } });
    expect(fitBackward(defaults, subgroup(everything))).toMatchObject({ variant: 'portable', constants: { BATCH_B: 64, NORMAL_SLOTS: 64, REDUCE_SPLATS: 2 } });
  });

  it('fits every conforming device: WebGPU guarantees 16 KiB', () => {
    for (const features of [plain, everything]) {
      for (const variant of ['portable', 'subgroup'] as const) {
        const fit = fitBackward({ ...WEBGPU_DEFAULT_LIMITS, subgroupMinSize: 4, subgroupMaxSize: 128 }, { variant, features });
        expect(fit.workgroupBytes, `${variant} ${features.RECORDS}`).toBeLessThanOrEqual(16384);
      }
    }
  });

  it("refuses the 'cas' backward with optional outputs", () => {
    expect(() => fitBackward(DEVICES.h200, subgroup(everything, { backwardReduce: 'cas' }))).toThrow('no optional outputs');
  });

  it('defaults: the H200 sweep', () => {
    expect(backwardDefaults('subgroup', {})).toEqual({ backwardReduce: 'partials', backwardPixels: 2, backwardBatch: 24 });
  });
});
