// wg-scan: workgroup-wide exclusive prefix sum of one u32 per thread, shared by every kernel
// family that needs it (scan, radix-sort). Include it; it declares its own workgroup memory.
//
// workgroup_scan(inv, value) -> vec2u(exclusive prefix, workgroup total)
//   inv: the ScanInvocation below, which an entry point takes as its parameter so that the
//   builtins each variant needs are listed once, here (its local_invocation_index is inv.lid).
// Requires: override WG (threads per 1D workgroup), called in uniform control flow.
// SUBGROUPS: subgroupExclusiveAdd within subgroups, then one slot per subgroup. Relies on
// subgroups being contiguous ranges of local_invocation_index (true for 1D workgroups on the
// drivers we know; the parity tests check it on each device). Any subgroup size from 4 (the
// totals' WG / 4 slots) to 128. Portable: Hillis-Steele in memory.

struct ScanInvocation {
  @builtin(local_invocation_index) lid: u32,
#if SUBGROUPS
  @builtin(subgroup_invocation_id) lane: u32,
  @builtin(subgroup_size) sg_size: u32,
#endif
}

#if SUBGROUPS
enable subgroups;
diagnostic(off, subgroup_uniformity);

var<workgroup> wg_scan_totals: array<u32, WG / 4u>;

fn workgroup_scan(inv: ScanInvocation, value: u32) -> vec2u {
  let lid = inv.lid;
  let lane = inv.lane;
  let sg_size = inv.sg_size;
  let inner = subgroupExclusiveAdd(value);
  let sg_index = lid / sg_size;
  // the subgroup's last lane, or the workgroup's last thread where a subgroup is wider than the
  // workgroup (64 threads on 128 lanes: lane sg_size - 1 does not exist)
  if (lane == sg_size - 1u || lid == WG - 1u) {
    wg_scan_totals[sg_index] = inner + value;
  }
  workgroupBarrier();
  let groups = (WG + sg_size - 1u) / sg_size;
  var before = 0u;
  var total = 0u;
  for (var g = 0u; g < groups; g++) {
    let t = wg_scan_totals[g];
    if (g < sg_index) {
      before += t;
    }
    total += t;
  }
  workgroupBarrier();
  return vec2u(before + inner, total);
}
#else
var<workgroup> wg_scan_scratch: array<u32, WG>;

fn workgroup_scan(inv: ScanInvocation, value: u32) -> vec2u {
  let lid = inv.lid;
  wg_scan_scratch[lid] = value;
  workgroupBarrier();
  for (var offset = 1u; offset < WG; offset <<= 1u) {
    var t = 0u;
    if (lid >= offset) {
      t = wg_scan_scratch[lid - offset];
    }
    workgroupBarrier();
    wg_scan_scratch[lid] += t;
    workgroupBarrier();
  }
  let inclusive = wg_scan_scratch[lid];
  let total = wg_scan_scratch[WG - 1u];
  workgroupBarrier();
  return vec2u(inclusive - value, total);
}
#endif
