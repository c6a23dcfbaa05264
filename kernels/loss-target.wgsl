// loss-target: a training image's pixel as the loss sees it, defined once for every kernel that
// scores a render against its target (loss.wgsl's training loss and evaluation statistics,
// colour-correct.wgsl's colour fit), so evaluation scores exactly what training fits.
// Input: one RGBA8 target word (targets.ts: r | g << 8 | b << 16 | alpha byte << 24).
//   The alpha byte is the pixel's mask: 0 = the loss ignores the pixel (packRgba8 and unmasked
//   views write 255).
//   RANDOM_BACKGROUND (override, off by default): the colour is premultiplied and the alpha byte
//   b is 0 (masked) or 1 + 254 a (view-image.ts, alpha 'coverage'); the target is composited
//   over `background`, y = rgb + background (1 - a), the colour the render was drawn over.

override RANDOM_BACKGROUND: bool = false;

fn target_word_rgb(packed: u32, background: vec3f) -> vec3f {
  let rgb = vec3f(f32(packed & 0xffu), f32((packed >> 8u) & 0xffu), f32((packed >> 16u) & 0xffu)) / 255.0;
  if (RANDOM_BACKGROUND) {
    // 1 - a = (255 - byte) / 254, computed so: a full pixel's is exactly 0 (WGSL's division may be
    // 2.5 ulp off, and 1 - 254 / 254 was 6e-8 on the H200, turning saturated ties into L1 signs)
    let uncovered = f32(255u - max(packed >> 24u, 1u)) / 254.0;
    return rgb + background * uncovered;
  }
  return rgb;
}

// The pixel's mask: false = the loss ignores it.
fn target_word_kept(packed: u32) -> bool {
  return (packed >> 24u) != 0u;
}
