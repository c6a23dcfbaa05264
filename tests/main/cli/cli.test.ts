import { describe, expect, it } from 'vitest';
import { runCli } from '../../../main/cli/index.js';
import { captureStreams } from '../../helpers/streams.js';

describe('argonaut --no-gui', () => {
  it('prints help generated from the registry and the commands', async () => {
    const s = captureStreams();
    expect(await runCli(['--no-gui', '--help'], { streams: s })).toBe(0);
    expect(s.out()).toMatch(/info\s+show the GPU adapter/);
    expect(s.out()).toMatch(/--backend <auto\|vulkan\|metal\|d3d12\|opengl\|opengles>/);
    expect(s.out()).toMatch(/exit codes: 0 ok, 1 failure, 2 usage, 3 bad input, 4 no usable GPU adapter, 130 interrupted/);
  });

  it('exits 2 on usage errors', async () => {
    const s = captureStreams();
    expect(await runCli(['--no-gui', 'frobnicate'], { streams: s })).toBe(2);
    expect(s.err()).toMatch(/unknown command "frobnicate"/);
    expect(await runCli(['--no-gui', 'info', '--iterations', '5'], { streams: captureStreams() })).toBe(2);
    expect(await runCli(['--no-gui'], { streams: captureStreams() })).toBe(2);
  });

  it("takes --preset only from the registry's presets, before anything is written", async () => {
    const s = captureStreams();
    expect(await runCli(['--no-gui', 'train', '--sample', '--out', '/nonexistent/never-made', '--preset', 'turbo'], { streams: s })).toBe(2);
    expect(s.err()).toMatch(/--preset: expected one of fast, balanced, quality, got "turbo"/);
  });

  it('info --json reports the adapter this machine has', async () => {
    const s = captureStreams();
    expect(await runCli(['--no-gui', 'info', '--json'], { streams: s })).toBe(0);
    const lines = s.jsonLines();
    const result = lines.at(-1)!;
    expect(result.type).toBe('result');
    expect(typeof result.backend).toBe('string');
    expect((result.adapter as { name: string }).name.length).toBeGreaterThan(0);
    expect(result.limits).toMatchObject({ maxComputeWorkgroupStorageSize: expect.any(Number) });
    // The device is opened with the adapter's real limits, not WebGPU's 16 KiB default.
    expect((result.limits as Record<string, number>).maxComputeWorkgroupStorageSize).toBeGreaterThan(16384);
    // per kernel family: the variant this device gets, and the forward's needs against its limits
    const kernels = result.kernels as { family: string; variant: string; fits: boolean; needs: { workgroupStorageBytes: number } }[];
    const forward = kernels.find((k) => k.family === 'rasterize forward');
    expect(forward).toMatchObject({ variant: result.variant, fits: true });
    expect(forward!.needs.workgroupStorageBytes).toBeGreaterThan(0);
    // the memory ledger's budget: llvmpipe's is half the system memory unless one is given
    expect(result).toMatchObject({ gpu_memory_budget_source: (result.adapter as { software: boolean }).software ? 'system-memory' : 'none' });
    const given = captureStreams();
    expect(await runCli(['--no-gui', 'info', '--json', '--gpu-memory-budget', '24GB'], { streams: given })).toBe(0);
    expect(given.jsonLines().at(-1)).toMatchObject({ gpu_memory_budget_bytes: 24e9, gpu_memory_budget_source: 'configured' });
  });

  it('exits 4 with an install hint when no adapter matches', async () => {
    const s = captureStreams();
    expect(await runCli(['--no-gui', 'info', '--adapter', 'no-such-gpu-xyz'], { streams: s })).toBe(4);
    expect(s.err()).toMatch(/No usable GPU adapter/);
    expect(s.err()).toMatch(/does not match "no-such-gpu-xyz"|no adapter|no Vulkan loader/);
  });

  it('refuses to force the subgroup variant on a device without subgroups', async () => {
    const s = captureStreams();
    const info = captureStreams();
    await runCli(['--no-gui', 'info', '--json'], { streams: info });
    const features = info.jsonLines().at(-1)!.features as string[];
    const code = await runCli(['--no-gui', 'info', '--json', '--kernel-variant', 'subgroup'], { streams: s });
    if (features.includes('subgroups')) expect(code).toBe(0);
    else {
      expect(code).toBe(4);
      expect(s.err()).toMatch(/no subgroups feature/);
    }
  });
});
