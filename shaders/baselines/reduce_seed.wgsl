// Two-pass reduction, the seed's algorithm kept as our baseline.
// Pass 1: a fixed grid (256 workgroups by default) of WG_SIZE invocations; each invocation folds a grid-stride
// slice of src in a register, the workgroup folds its WG_SIZE values with the tree, and invocation 0 writes one
// partial to dst[out_offset + workgroup]. Pass 2 is the same entry point over the partials with one workgroup.
// Requires an associative and commutative combine (the grid stride interleaves the input).
//! import shared/workgroup.wgsl

struct reduce_params {
  n: u32,
  out_offset: u32,
  pad0: u32,
  pad1: u32,
}

@group(0) @binding(0) var<uniform> params: reduce_params;
@group(0) @binding(1) var<storage, read> src: array<T>;
@group(0) @binding(2) var<storage, read_write> dst: array<T>;

@compute @workgroup_size(WG_SIZE)
fn reduce(@builtin(global_invocation_id) gid: vec3u, @builtin(local_invocation_index) l: u32,
          @builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  accum_init(nwg.x);
  var acc = identity();
  let stride = nwg.x * WG_SIZE;
  for (var i = gid.x; i < params.n; i += stride) {
    acc = combine(acc, src[i]);
  }
  let total = workgroup_reduce_tree(l, acc);
  if (l == 0u) {
    dst[params.out_offset + wid.x] = total;
  }
}
