// Bandwidth-class reduction. Each workgroup walks tiles of WG_SIZE * ITEMS * 4 elements in a grid-stride loop
// (tile/walk.wgsl through reduce/walk.wgsl: vec4 or scalar loads, the input buffer or a view fused into the load).
// The workgroup's values meet in workgroup_reduce (the lanes import: subgroups or workgroup memory) and
// invocation 0 writes dst[out_offset + group]. The same entry point with one workgroup folds the partials.
// Elements (E) are lifted into accumulators (T): the same type, or double-word pairs for compensated sums.
// Needs a commutative combine.

//! import reduce/walk.wgsl

struct reduce_params {
  n: u32,          // elements
  n_vec: u32,      // whole vec4 of elements: n / 4 (VEC_LOADS only)
  out_offset: u32,
  pad0: u32,
}

@group(0) @binding(0) var<uniform> params: reduce_params;
//! if VIEW_GATHER
@group(0) @binding(1) var<storage, read> view_index: array<u32>;
//! else
@group(0) @binding(1) var<storage, read> src_vec: array<EV>;
//! endif
@group(0) @binding(2) var<storage, read> src: array<E>;
@group(0) @binding(3) var<storage, read_write> dst: array<T>;

@compute @workgroup_size(WG_SIZE)
fn reduce(@builtin(local_invocation_index) l: u32, @builtin(workgroup_id) wid: vec3u,
          @builtin(num_workgroups) nwg: vec3u, li: lane_info) {
  accum_init(nwg.x);
  let total = workgroup_reduce(l, reduce_walk(wid.x, nwg.x, l, params.n, params.n_vec), li);
  if (l == 0u) {
    dst[params.out_offset + wid.x] = total;
  }
}
