// Bandwidth-class reduction. Each workgroup walks tiles of WG_SIZE * ITEMS vec4 values in a grid-stride loop:
// full tiles without bounds checks, ITEMS independent coalesced vec4 loads per invocation per tile (or
// 4 * ITEMS scalar loads when VEC_LOADS is false), then one
// partial tile with checks, and workgroup 0 folds the 0-3 scalars past the last whole vec4. The workgroup's
// values meet in workgroup_reduce (subgroups when available) and invocation 0 writes dst[out_offset + group].
// The same entry point with one workgroup folds the partials. Needs a commutative combine.
// The lane-info import (subgroup or workgroup-memory version) is chosen by the dispatch layer.

struct reduce_params {
  n: u32,          // scalar elements
  n_vec: u32,      // whole vec4 values: n / 4
  out_offset: u32,
  pad0: u32,
}

@group(0) @binding(0) var<uniform> params: reduce_params;
@group(0) @binding(1) var<storage, read> src_vec: array<vec4<T>>;
@group(0) @binding(2) var<storage, read> src: array<T>;
@group(0) @binding(3) var<storage, read_write> dst: array<T>;

fn fold4(v: vec4<T>) -> T {
  return combine(combine(v.x, v.y), combine(v.z, v.w));
}

@compute @workgroup_size(WG_SIZE)
fn reduce(@builtin(local_invocation_index) l: u32, @builtin(workgroup_id) wid: vec3u,
          @builtin(num_workgroups) nwg: vec3u, li: lane_info) {
  let tile = WG_SIZE * ITEMS;
  let n_vec = params.n_vec;
  var acc0 = identity();
  var acc1 = identity();
  var base = wid.x * tile;
  let stride = nwg.x * tile;
  // Full tiles: ITEMS loads in flight per invocation, two accumulators to shorten the dependency chain.
  while (base + tile <= n_vec) {
    if (VEC_LOADS) {
      for (var k = 0u; k < ITEMS; k += 2u) {
        acc0 = combine(acc0, fold4(src_vec[base + k * WG_SIZE + l]));
        acc1 = combine(acc1, fold4(src_vec[base + (k + 1u) * WG_SIZE + l]));
      }
    } else {
      // Scalar loads, consecutive across invocations: what a CPU adapter (lavapipe) vectorises best.
      let first = base * 4u;
      for (var k = 0u; k < ITEMS * 4u; k += 2u) {
        acc0 = combine(acc0, src[first + k * WG_SIZE + l]);
        acc1 = combine(acc1, src[first + (k + 1u) * WG_SIZE + l]);
      }
    }
    base += stride;
  }
  if (base < n_vec) {
    for (var k = 0u; k < ITEMS; k += 1u) {
      let i = base + k * WG_SIZE + l;
      if (i < n_vec) {
        acc0 = combine(acc0, fold4(src_vec[i]));
      }
    }
  }
  var acc = combine(acc0, acc1);
  let tail = n_vec * 4u;
  if (wid.x == 0u && tail + l < params.n) {
    acc = combine(acc, src[tail + l]);
  }
  let total = workgroup_reduce(l, acc, li);
  if (l == 0u) {
    dst[params.out_offset + wid.x] = total;
  }
}
