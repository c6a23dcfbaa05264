/**
 * Every WGSL source in kernels/, by name (the file name without .wgsl). Bundled as text, so a
 * packaged app or the GPU machine needs no kernels/ folder at run time.
 */
import radixSort from '../../../kernels/radix-sort.wgsl';
import scan from '../../../kernels/scan.wgsl';
import wgScan from '../../../kernels/wg-scan.wgsl';

export const KERNEL_SOURCES: Readonly<Record<string, string>> = {
  'radix-sort': radixSort,
  scan,
  'wg-scan': wgScan,
};
