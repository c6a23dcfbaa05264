import { describe, expect, it } from 'vitest';
import { testBackend, testLimits } from './gpu.js';

describe('testBackend', () => {
  it('passes a real backend through and leaves the platform choice when unset', () => {
    expect(testBackend({})).toBeUndefined();
    expect(testBackend({ ARGONAUT_BACKEND: 'opengl' })).toBe('opengl');
  });

  it('maps swiftshader to Vulkan with SwiftShader\'s ICD, keeping one already named', () => {
    const env: NodeJS.ProcessEnv = { ARGONAUT_BACKEND: 'swiftshader' };
    expect(testBackend(env, '/etc/hostname')).toBe('vulkan');
    expect(env.VK_ICD_FILENAMES).toBe('/etc/hostname');
    const named: NodeJS.ProcessEnv = { ARGONAUT_BACKEND: 'swiftshader', VK_ICD_FILENAMES: '/x/icd.json' };
    expect(testBackend(named, '/missing.json')).toBe('vulkan');
    expect(named.VK_ICD_FILENAMES).toBe('/x/icd.json');
  });

  it('names the missing ICD file', () => {
    expect(() => testBackend({ ARGONAUT_BACKEND: 'swiftshader' }, '/no/such/icd.json')).toThrow('/no/such/icd.json is missing');
  });
});

describe('testLimits', () => {
  it('reads default or name=value lists, and names a malformed part', () => {
    expect(testLimits({})).toBeUndefined();
    expect(testLimits({ ARGONAUT_TEST_LIMITS: 'default' })).toEqual({ maxComputeWorkgroupStorageSize: 16384, maxStorageBuffersPerShaderStage: 8 });
    expect(testLimits({ ARGONAUT_TEST_LIMITS: 'maxComputeWorkgroupStorageSize=16384' })).toEqual({ maxComputeWorkgroupStorageSize: 16384 });
    expect(() => testLimits({ ARGONAUT_TEST_LIMITS: 'maxComputeWorkgroupStorageSize=16k' })).toThrow('"maxComputeWorkgroupStorageSize=16k" is not name=integer');
  });
});
