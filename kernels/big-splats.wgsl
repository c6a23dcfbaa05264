// big-splats: a workgroup's list of the splats too big for one thread, shared by project_forward
// (project.wgsl), emit (intersect.wgsl) and gather_grads (gather.wgsl). A thread that meets such a
// splat lists it instead of handling it; after the ordinary work the whole workgroup handles each
// listed splat in turn. The list's length is read back workgroup-uniform: that is what makes the
// barriers of the workgroup's loop over it legal. The payload (which splat, its data) lives in the
// includer's own workgroup arrays, WG long, at the slot big_list_push returns.
//   big_list_begin(li)        every thread, first: empties the list (ends with a barrier)
//   big_list_push() -> u32    the new entry's slot
//   big_list_end(li) -> u32   every thread, after its pushes: the length (starts with a barrier)

var<workgroup> big_count: atomic<u32>;
var<workgroup> big_snapshot: u32;

fn big_list_begin(li: u32) {
  if (li == 0u) {
    atomicStore(&big_count, 0u);
  }
  workgroupBarrier();
}

fn big_list_push() -> u32 {
  return atomicAdd(&big_count, 1u);
}

fn big_list_end(li: u32) -> u32 {
  workgroupBarrier();
  if (li == 0u) {
    big_snapshot = atomicLoad(&big_count);
  }
  return workgroupUniformLoad(&big_snapshot);
}
