// dispatch: the flat numbers of a 2D dispatch, defined once. WebGPU caps a dispatch dimension at
// 65535 workgroups, so the hosts spread a long 1D range over x and y (x = min(groups, 65535),
// y = ceil(groups / x)) and the kernels number workgroups and threads row by row with these.
// Requires: override WG (threads per 1D workgroup) for thread_id; workgroups and threads past
// the range are the caller's to skip.

// The workgroup's number (a block of a block-wise kernel: scan, radix sort).
fn block_id(wid: vec3u, nwg: vec3u) -> u32 {
  return wid.x + wid.y * nwg.x;
}

// The thread's number (global_invocation_id, num_workgroups).
fn thread_id(gid: vec3u, nwg: vec3u) -> u32 {
  return gid.x + gid.y * nwg.x * WG;
}
