// moments: where Adam's moments of a value live, written once for every kernel that updates or
// moves them (adam, sh-adam, densify's scatter, mcmc's zeroing and copies). A group's moments are
//   moment_plane 0: one f32 each, where its value is (interleaved groups: s * stride + lane);
//   else planar words of `moment_plane` (the capacity): lane `lane` of splat s in word
//   (lane >> shift) * moment_plane + s, one f32 a word (shift 0: planar f32, the SH group's) or
//   two bf16 (shift 1: lanes 2w and 2w + 1, the even one in the low half).
// So each splat owns its words whatever the group's stride: moving or zeroing a splat's moments
// never touches another's (bf16 pairs of an interleaved layout would straddle splats).

fn moment_word(s: u32, lane: u32, stride: u32, moment_plane: u32, shift: u32) -> u32 {
  if (moment_plane == 0u) {
    return s * stride + lane;
  }
  return (lane >> shift) * moment_plane + s;
}
