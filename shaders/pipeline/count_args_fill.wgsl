// size_grid (pipeline/count_args.wgsl) and the zeroing of the counted pass's workspace in one dispatch: a counted
// select's carry words and tile states must be zero before its pass, and a fill dispatch before the sizing cost one
// dispatch more (~4 us of GPU time each on an H100). Invocation 0 sizes the grid and patches the block; every
// invocation zeroes words of `zero` (the whole binding) with a grid stride.
//! import pipeline/count_args.wgsl

@group(0) @binding(2) var<storage, read_write> zero: array<u32>;

@compute @workgroup_size(256)
fn size_grid_fill(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  if (gid.x == 0u) {
    size_work_block();
  }
  let words = arrayLength(&zero);
  for (var i = gid.x; i < words; i += nwg.x * 256u) {
    zero[i] = 0u;
  }
}
