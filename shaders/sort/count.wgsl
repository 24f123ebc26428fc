// The number of keys a sort kernel works on: params.n, or for a counted range (params.device_n != 0) the count the
// host recorded a copy of into state word DEVICE_N (before the histogram), at most params.n (the capacity the
// buffers and grids were sized for). Tiles past the count do nothing; keys past it are neither read nor written.
// Needs the including kernel's `params` (sort_params) and `state` (array<atomic<u32>>). A value from a storage
// buffer is not uniform to WGSL: a kernel that branches on it around barriers reads it through workgroup memory
// (workgroupUniformLoad).

const DEVICE_N: u32 = 4128u;

fn sort_n() -> u32 {
  if (params.device_n != 0u) {
    return min(atomicLoad(&state[DEVICE_N]), params.n);
  }
  return params.n;
}
