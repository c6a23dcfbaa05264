// tsdf-common: the grid and slab uniforms shared by tsdf.wgsl (fusion) and marching-cubes.wgsl.
// Grid point (i, j, k) sits at origin + (i, j, k) * voxel; a slab is the z-layers
// [z0, z0 + layers) one bounded dispatch covers.

struct TsdfGrid {
  origin: vec3f,
  voxel: f32,
  dims: vec3u,
  truncation: f32,
}

struct Slab {
  z0: u32,
  layers: u32,
  _pad0: u32,
  _pad1: u32,
}
