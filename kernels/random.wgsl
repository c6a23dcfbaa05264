// random: counter-based random numbers, the same stream on every device and run (densify.wgsl's
// split offsets, mcmc.wgsl's sampling and noise): a value is a pure function of its counters
// (seed, step, splat, draw), so nothing is stored and a resumed run draws what it would have.

// PCG hash (one round of the PCG-RXS-M-XS output function).
fn hash_u32(x: u32) -> u32 {
  var h = x * 747796405u + 2891336453u;
  h = ((h >> ((h >> 28u) + 4u)) ^ h) * 277803737u;
  return (h >> 22u) ^ h;
}

// Uniform in (0, 1) (24 bits, centred in their bins, so never 0 or 1: log() below stays finite).
fn uniform01(a: u32, b: u32, c: u32, d: u32) -> f32 {
  let h = hash_u32(a ^ hash_u32(b ^ hash_u32(c ^ hash_u32(d))));
  return (f32(h >> 8u) + 0.5) / 16777216.0;
}

// Three standard normals (Box-Muller) from the four draws (a, b, c, d .. d + 3).
fn gaussian3(a: u32, b: u32, c: u32, d: u32) -> vec3f {
  let u1 = uniform01(a, b, c, d);
  let u2 = uniform01(a, b, c, d + 1u);
  let u3 = uniform01(a, b, c, d + 2u);
  let u4 = uniform01(a, b, c, d + 3u);
  let r1 = sqrt(-2.0 * log(u1));
  let r2 = sqrt(-2.0 * log(u3));
  return vec3f(r1 * cos(6.283185307 * u2), r1 * sin(6.283185307 * u2), r2 * cos(6.283185307 * u4));
}
