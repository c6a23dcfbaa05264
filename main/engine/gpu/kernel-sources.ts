/**
 * Every WGSL source in kernels/, by name (the file name without .wgsl). Bundled as text, so a
 * packaged app or the GPU machine needs no kernels/ folder at run time.
 */
import scan from '../../../kernels/scan.wgsl';

export const KERNEL_SOURCES: Readonly<Record<string, string>> = {
  scan,
};
