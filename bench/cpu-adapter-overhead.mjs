// What a unit of WebGPU work costs on Dawn's OpenGL backend (Mesa llvmpipe, the CPU adapter of CI
// and of machines without a GPU), so the trainer's step time on it can be split into per-dispatch,
// per-pass, per-submit, per-readback and per-pixel costs. Plain Node on npm `webgpu`, no build:
//   node bench/cpu-adapter-overhead.mjs [--n 2000] [--json]
// Each line: one kind of work repeated N times (after a warm-up), microseconds per repetition.
// Validation is on unless ARGONAUT_VALIDATE=0 (the engine keeps it on for OpenGL; this measures it).
import { performance } from 'node:perf_hooks';
import { createRequire } from 'node:module';

const args = process.argv.slice(2);
const n = Number(args[args.indexOf('--n') + 1] ?? NaN) || 2000;
const json = args.includes('--json');
process.env.EGL_PLATFORM ??= 'surfaceless';
const dawn = createRequire(import.meta.url)('webgpu');
Object.assign(globalThis, dawn.globals);
const toggles = process.env.ARGONAUT_VALIDATE === '0' ? ['enable-dawn-features=skip_validation'] : [];
const gpu = dawn.create(['backend=opengl', ...toggles]);
const adapter = await gpu.requestAdapter({ featureLevel: 'compatibility' });
if (!adapter) throw new Error('cpu-adapter-overhead: no OpenGL adapter (install libegl1 libegl-mesa0 libgl1-mesa-dri)');
const device = await adapter.requestDevice();
const name = adapter.info.device || adapter.info.description || adapter.info.vendor;

const kernel = (body, size = 64) => device.createComputePipeline({
  layout: 'auto',
  compute: {
    module: device.createShaderModule({ code: `@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(${size}) fn main(@builtin(global_invocation_id) id: vec3u) { ${body} }` }),
    entryPoint: 'main',
  },
});
const storage = (bytes) => device.createBuffer({ size: bytes, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST });
const bytes = 4 * 1024 * 1024;
const buffers = [storage(bytes), storage(bytes)];
const tiny = kernel('if (id.x == 0u) { out[0] = out[0] + 1u; }');
const other = kernel('if (id.x == 0u) { out[1] = out[1] + 1u; }');
const groups = (pipeline) => buffers.map((buffer) => device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries: [{ binding: 0, resource: { buffer } }] }));
const tinyGroups = groups(tiny);
const otherGroups = groups(other);
const readback = device.createBuffer({ size: 16, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });

/** Encodes `count` dispatches; `shape` picks pipeline, bind group, workgroups and whether each gets its own pass. */
function encode(encoder, count, shape) {
  let pass;
  for (let i = 0; i < count; i++) {
    if (!pass || shape.passEach) {
      pass?.end();
      pass = encoder.beginComputePass();
    }
    const alternate = shape.switchPipeline && i % 2 === 1;
    pass.setPipeline(alternate ? other : tiny);
    pass.setBindGroup(0, (alternate ? otherGroups : tinyGroups)[shape.switchGroup ? i % 2 : 0]);
    pass.dispatchWorkgroups(shape.workgroups ?? 1);
  }
  pass?.end();
}

async function timed(label, repetitions, run) {
  await run(Math.min(50, repetitions)); // warm-up: shader compilation, first-use allocations
  await device.queue.onSubmittedWorkDone();
  const t0 = performance.now();
  await run(repetitions);
  await device.queue.onSubmittedWorkDone();
  const us = ((performance.now() - t0) * 1000) / repetitions;
  results.push({ label, repetitions, usPer: Number(us.toFixed(1)) });
  if (!json) console.log(`${label.padEnd(58)} ${us.toFixed(1).padStart(9)} us`);
}

const results = [];
const oneSubmit = (shape) => async (count) => {
  const encoder = device.createCommandEncoder();
  encode(encoder, count, shape);
  device.queue.submit([encoder.finish()]);
};

if (!json) console.log(`${name}: ${n} repetitions each, validation ${toggles.length ? 'off' : 'on'}`);
await timed('dispatch, 1 workgroup, all in one pass', n, oneSubmit({}));
await timed('dispatch, 1 workgroup, one pass each', n, oneSubmit({ passEach: true }));
await timed('dispatch alternating 2 bind groups, one pass', n, oneSubmit({ switchGroup: true }));
await timed('dispatch alternating 2 pipelines, one pass', n, oneSubmit({ switchPipeline: true }));
await timed('dispatch, 256 workgroups of 64 (16k threads), one pass', Math.ceil(n / 10), oneSubmit({ workgroups: 256 }));
await timed('dispatch, 4096 workgroups of 64 (262k threads), one pass', Math.ceil(n / 50), oneSubmit({ workgroups: 4096 }));
await timed('submit of one dispatch, not waited', n, async (count) => {
  for (let i = 0; i < count; i++) {
    const encoder = device.createCommandEncoder();
    encode(encoder, 1, {});
    device.queue.submit([encoder.finish()]);
  }
});
await timed('submit of one dispatch + onSubmittedWorkDone', Math.ceil(n / 4), async (count) => {
  for (let i = 0; i < count; i++) {
    const encoder = device.createCommandEncoder();
    encode(encoder, 1, {});
    device.queue.submit([encoder.finish()]);
    await device.queue.onSubmittedWorkDone();
  }
});
await timed('writeBuffer 64 bytes', n, async (count) => {
  const data = new Uint32Array(16);
  for (let i = 0; i < count; i++) device.queue.writeBuffer(buffers[0], 0, data);
});
await timed('copyBufferToBuffer 16 bytes in the encoder', n, async (count) => {
  const encoder = device.createCommandEncoder();
  for (let i = 0; i < count; i++) encoder.copyBufferToBuffer(buffers[0], 0, buffers[1], 0, 16);
  device.queue.submit([encoder.finish()]);
});
await timed('clearBuffer 4 MiB', Math.ceil(n / 10), async (count) => {
  const encoder = device.createCommandEncoder();
  for (let i = 0; i < count; i++) encoder.clearBuffer(buffers[1]);
  device.queue.submit([encoder.finish()]);
});
await timed('readback of 16 bytes (copy, submit, mapAsync, unmap)', Math.ceil(n / 4), async (count) => {
  for (let i = 0; i < count; i++) {
    const encoder = device.createCommandEncoder();
    encoder.copyBufferToBuffer(buffers[0], 0, readback, 0, 16);
    device.queue.submit([encoder.finish()]);
    await readback.mapAsync(GPUMapMode.READ);
    readback.unmap();
  }
});
await timed('createBindGroup', n, async (count) => {
  for (let i = 0; i < count; i++) device.createBindGroup({ layout: tiny.getBindGroupLayout(0), entries: [{ binding: 0, resource: { buffer: buffers[i % 2] } }] });
});
if (json) console.log(JSON.stringify({ adapter: name, validation: !toggles.length, repetitions: n, results }));
device.destroy();
