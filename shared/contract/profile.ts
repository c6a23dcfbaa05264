import { z } from 'zod';

/** One row of the per-kernel GPU profile. */
export const ProfileRowSchema = z.object({
  kernel: z.string(),
  calls: z.number().int(),
  totalMs: z.number(),
  avgMs: z.number(),
  percent: z.number(),
  /** The pipeline's capability variant, sizing constants and packing (why it runs as it does on this device). */
  config: z.string().optional(),
});
export type ProfileRow = z.infer<typeof ProfileRowSchema>;

export const ProfileReportSchema = z.object({
  /** How kernel times were measured: GPU timestamps per pass, or host-synchronized submits. */
  source: z.enum(['timestamps', 'host']),
  rows: z.array(ProfileRowSchema),
  /** Sum of every row's total: the measured GPU time. */
  gpuMs: z.number(),
  /** Wall-clock time over the same span, measured on the host. */
  wallMs: z.number(),
});
export type ProfileReport = z.infer<typeof ProfileReportSchema>;

/** Formats a profile as an aligned text table (CLI, logs). */
export function formatProfileTable(report: ProfileReport): string {
  const configs = report.rows.some((r) => r.config);
  const header = ['kernel', 'total ms', 'calls', 'avg ms', '% GPU', ...(configs ? ['pipeline'] : [])];
  const body = report.rows.map((r) => [r.kernel, r.totalMs.toFixed(3), String(r.calls), r.avgMs.toFixed(4), r.percent.toFixed(1), ...(configs ? [r.config ?? ''] : [])]);
  const total = ['total', report.gpuMs.toFixed(3), String(report.rows.reduce((s, r) => s + r.calls, 0)), '', '100.0', ...(configs ? [''] : [])];
  const table = [header, ...body, total];
  const widths = header.map((_, i) => Math.max(...table.map((row) => row[i].length)));
  const line = (row: string[]) => row.map((cell, i) => (i === 0 || i === 5 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ').trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  const ratio = report.wallMs > 0 ? (report.gpuMs / report.wallMs) * 100 : 0;
  return [
    line(header),
    rule,
    ...body.map(line),
    rule,
    line(total),
    `GPU ${report.gpuMs.toFixed(3)} ms over ${report.wallMs.toFixed(3)} ms wall-clock (${ratio.toFixed(1)}% GPU busy; timing: ${report.source})`,
  ].join('\n');
}
