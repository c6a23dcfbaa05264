// appearance-common: what the colour model's two kernel files share (appearance.wgsl: the
// corrected image, dL/d image, the grids' TV and gauge; appearance-grad.wgsl: the grids'
// photometric gradient): the grid shape and the params (one uniform for every pass; the host
// binds one numbering across both files), and the slice's axes (kernels/appearance.wgsl's header
// has the slicing's definition).

override GRID_X: u32 = 16u;
override GRID_Y: u32 = 16u;
override GRID_L: u32 = 8u;
override WG: u32 = 128u;
const LUMA: vec3f = vec3f(0.299, 0.587, 0.114);

struct AppearanceParams {
  width: u32,
  height: u32,
  image_slot: u32, // which image's grid the current frame uses
  images: u32, // grids in `grid`
  tiles_x: u32, // grid_grad_partials tiles per cell along x (GT pixels each)
  tiles_y: u32,
  tv_x: f32, // 2 x weight / (images x pairs along x x 12); 0 where GRID_X = 1
  tv_y: f32,
  tv_l: f32,
  _pad0: u32,
  _pad1: u32,
  _pad2: u32,
}

@group(0) @binding(0) var<uniform> ap: AppearanceParams;

// One axis of the slice: the lower node, the fraction towards the next, both nodes' indices
// (equal on an axis of one node, whose fraction is 0).
struct Axis {
  i0: u32,
  i1: u32,
  f: f32,
}

fn axis_of(coordinate: f32, nodes: u32) -> Axis {
  if (nodes == 1u) {
    return Axis(0u, 0u, 0.0);
  }
  let c = clamp(coordinate, 0.0, f32(nodes - 1u));
  let i0 = min(u32(floor(c)), nodes - 2u);
  return Axis(i0, i0 + 1u, c - f32(i0));
}

fn pixel_u(px: u32) -> f32 {
  return (f32(px) + 0.5) / f32(ap.width) * f32(GRID_X - 1u);
}

fn pixel_v(py: u32) -> f32 {
  return (f32(py) + 0.5) / f32(ap.height) * f32(GRID_Y - 1u);
}

// Whether the luminance lies inside [0, 1], where the slice coordinate follows it.
fn lum_inside(rgb: vec3f) -> bool {
  let lum = dot(rgb, LUMA);
  return lum > 0.0 && lum < 1.0;
}

fn lum_z(rgb: vec3f) -> f32 {
  return clamp(dot(rgb, LUMA), 0.0, 1.0) * f32(GRID_L - 1u);
}
