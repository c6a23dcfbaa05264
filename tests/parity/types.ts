/** Result of one parity case; vitest asserts on it, the GPU runner prints it. */
export interface ParityResult {
  name: string;
  variant: string;
  seed: number;
  ok: boolean;
  /** Relative L2 error, or the number of mismatches for exact (integer) kernels. */
  error: number;
  tolerance: number;
  detail?: string;
}
