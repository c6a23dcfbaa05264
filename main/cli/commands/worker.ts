/**
 * `worker --queue redis://...`: trains block jobs of partitioned runs (docs/scale.md, "Queue and
 * workers") until Ctrl+C, which cancels the running block (a checkpoint saved) and hands it back
 * to the queue. `--adapter` picks the GPU (several workers may share one); `--path-map FROM=TO`
 * maps the coordinator's project paths to where this machine mounts the shared storage. Every
 * job's events are printed (`--json`: JSON lines, each block's progress as `block` lines).
 */
import { openGpu } from '../../engine/gpu/context.js';
import { QUEUE_TIMINGS } from '../../engine/partition/block-jobs.js';
import { parsePathMap, PathMapError } from '../../engine/partition/path-map.js';
import { startBlockWorker } from '../../engine/partition/worker.js';
import { redactQueueUrl } from '../../../shared/project/partition.js';
import { UsageError } from '../args.js';
import { JSON_OPTION, type CommandSpec } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { trainEventPrinter } from '../training.js';

export const workerCommand: CommandSpec = {
  name: 'worker',
  summary: 'train the block jobs of partitioned runs from a Redis queue (train p.argo --partition ID --queue URL enqueues them)',
  usage: 'worker --queue redis://[:PASSWORD@]HOST:PORT [--path-map FROM=TO ...] [--concurrency N] [--adapter NAME] [--json]',
  options: [
    JSON_OPTION,
    { flag: 'queue', type: 'string', help: 'the queue: redis://[user:password@]host:port[/db], or rediss:// for TLS', valueName: 'url' },
    { flag: 'path-map', type: 'string', repeatable: true, help: "the coordinator's folder FROM is mounted at TO here (jobs name the project by the coordinator's path); repeatable", valueName: 'from=to' },
    { flag: 'concurrency', type: 'int', help: 'blocks trained at once by this worker (each on its own GPU device; default 1)', valueName: 'n' },
    { flag: 'lock-duration-ms', type: 'int', help: `how long a job's lock lasts unless renewed (default ${QUEUE_TIMINGS.lockDurationMs})`, valueName: 'ms' },
    { flag: 'stalled-interval-ms', type: 'int', help: `how often to look for jobs whose worker died (default ${QUEUE_TIMINGS.stalledIntervalMs})`, valueName: 'ms' },
  ],
  async run(context) {
    const { options, out, engineOptions } = context;
    if (context.positionals.length) throw new UsageError(`unexpected arguments: ${context.positionals.join(' ')}`);
    const queue = options.queue as string | undefined;
    if (!queue) throw new UsageError('worker needs --queue redis://HOST:PORT');
    const concurrency = (options.concurrency as number | undefined) ?? 1;
    if (concurrency < 1) throw new UsageError(`--concurrency: expected at least 1, got ${concurrency}`);
    for (const flag of ['lock-duration-ms', 'stalled-interval-ms']) {
      const value = options[flag] as number | undefined;
      if (value !== undefined && value < 100) throw new UsageError(`--${flag}: expected at least 100 ms, got ${value}`);
    }
    let pathMap;
    try {
      pathMap = parsePathMap((options['path-map'] as string[] | undefined) ?? []);
    } catch (error) {
      if (error instanceof PathMapError) throw new UsageError(error.message);
      throw error;
    }
    const print = trainEventPrinter(out);
    const worker = await startBlockWorker({
      queue,
      concurrency,
      pathMap,
      lockDurationMs: options['lock-duration-ms'] as number | undefined,
      stalledIntervalMs: options['stalled-interval-ms'] as number | undefined,
      openGpu: async () => {
        const gpu = await openGpu(engineOptions);
        if (!engineOptions.profile) gpu.profiler.setMode('off');
        return gpu;
      },
      onEvent: (event) => void print(event),
      onBlockDone: (summary) => {
        out.event('job', { ...summary });
        if (!out.json) out.warn(`${summary.run} ${summary.block}: ${summary.steps} steps (from ${summary.resumedFrom}) in ${summary.trainS.toFixed(1)} s, peak ${(summary.peakGpuBytes / 2 ** 20).toFixed(0)} MiB of GPU memory, ${summary.splatCount.toLocaleString()} splats`);
      },
    });
    out.event('worker', { worker: worker.id, queue: redactQueueUrl(queue), concurrency, ...(pathMap.length ? { path_map: pathMap } : {}) });
    if (!out.json) out.warn(`worker ${worker.id} takes block jobs from ${redactQueueUrl(queue)} (Ctrl+C stops)`);
    await new Promise<void>((resolve) => {
      if (context.signal.aborted) resolve();
      else context.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    await worker.close();
    return EXIT.interrupted;
  },
};
