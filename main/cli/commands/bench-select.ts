import { openGpu } from '../../engine/gpu/context.js';
import { benchSelect } from '../../engine/edit/bench-select.js';
import { UsageError } from '../args.js';
import { benchStamp, writeResult } from '../bench-result.js';
import type { CommandContext } from '../command.js';

/** Splats `bench select` selects among unless told: issue 17's 10M. */
export const SELECT_BENCH_SPLATS = 10_000_000;

/**
 * `bench select`: one selection per shape on a deterministic scene of --splats (edit/bench-select.ts):
 * the dispatch's GPU time and the round trip the viewer waits for; --clean also times the floater cleanup.
 */
export async function benchSelectCommand(context: CommandContext): Promise<void> {
  const { options, out, positionals } = context;
  if (positionals.length) throw new UsageError(`bench select takes no positional arguments (got ${positionals.join(' ')})`);
  const splats = (options.splats as number | undefined) ?? SELECT_BENCH_SPLATS;
  if (splats < 1) throw new UsageError(`bench select: --splats must be at least 1 (got ${splats})`);
  const width = (options.width as number | undefined) ?? 1920;
  const height = (options.height as number | undefined) ?? 1080;
  if (width < 1 || height < 1) throw new UsageError(`bench select: --width and --height must be at least 1 (got ${width}x${height})`);
  const gpu = await openGpu({ ...context.engineOptions, profile: true });
  try {
    const r = await benchSelect(gpu, { splats, width, height, clean: Boolean(options.clean), onProgress: (message) => out.progress({ stage: 'select', message }, true) });
    const result = { bench: 'select', ...r, ...benchStamp(gpu) };
    await writeResult(options.out as string | undefined, result);
    const human = [
      `selection on ${r.splats.toLocaleString()} splats, ${r.width}x${r.height} view (${r.variant} kernel, ${r.timing}); scene upload ${r.upload_ms.toFixed(0)} ms`,
      ...r.rows.map((row) => `  ${`${row.shape} ${row.mode}`.padEnd(30)} kernel ${row.kernel_ms.toFixed(3).padStart(9)} ms   round trip ${row.round_trip_ms.toFixed(3).padStart(9)} ms   ${row.selected.toLocaleString()} selected`),
      `worst round trip ${r.worst_round_trip_ms.toFixed(3)} ms`,
      ...(r.clean_ms !== undefined ? [`floater cleanup (CPU, strength 0.5, no cameras): ${r.clean_ms.toFixed(0)} ms, ${r.clean_selected!.toLocaleString()} selected`] : []),
    ].join('\n');
    out.result(result, human);
  } finally {
    gpu.destroy();
  }
}
