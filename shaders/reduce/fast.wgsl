// Bandwidth-class reduction. Each workgroup walks tiles of WG_SIZE * ITEMS * 4 elements in a grid-stride loop:
// full tiles without bounds checks, with ITEMS coalesced vec4 loads per invocation per tile (VEC_LOADS) or
// 4 * ITEMS scalar loads consecutive across invocations (what CPU adapters vectorise best), then one partial
// tile with checks (and, with vec4 loads, workgroup 0 folds the 0-3 scalars past the last whole vec4).
// The workgroup's values meet in workgroup_reduce (the lanes import: subgroups or workgroup memory) and
// invocation 0 writes dst[out_offset + group]. The same entry point with one workgroup folds the partials.
// Elements (E) are lifted into accumulators (T): the same type, or double-word pairs for compensated sums.
// Needs a commutative combine.

struct reduce_params {
  n: u32,          // elements
  n_vec: u32,      // whole vec4 of elements: n / 4 (VEC_LOADS only)
  out_offset: u32,
  pad0: u32,
}

@group(0) @binding(0) var<uniform> params: reduce_params;
@group(0) @binding(1) var<storage, read> src_vec: array<EV>;
@group(0) @binding(2) var<storage, read> src: array<E>;
@group(0) @binding(3) var<storage, read_write> dst: array<T>;

@compute @workgroup_size(WG_SIZE)
fn reduce(@builtin(local_invocation_index) l: u32, @builtin(workgroup_id) wid: vec3u,
          @builtin(num_workgroups) nwg: vec3u, li: lane_info) {
  accum_init(nwg.x);
  // Four accumulators, one per vec4 lane: four independent dependency chains per invocation.
  var acc0 = identity();
  var acc1 = identity();
  var acc2 = identity();
  var acc3 = identity();
  if (VEC_LOADS) {
    let tile = WG_SIZE * ITEMS;  // in vec4
    let n_vec = params.n_vec;
    var base = wid.x * tile;
    let stride = nwg.x * tile;
    // Full tiles: ITEMS loads in flight per invocation.
    while (base + tile <= n_vec) {
      for (var k = 0u; k < ITEMS; k += 1u) {
        let v = src_vec[base + k * WG_SIZE + l];
        acc0 = accumulate(acc0, v[0]);
        acc1 = accumulate(acc1, v[1]);
        acc2 = accumulate(acc2, v[2]);
        acc3 = accumulate(acc3, v[3]);
      }
      base += stride;
    }
    if (base < n_vec) {
      for (var k = 0u; k < ITEMS; k += 1u) {
        let i = base + k * WG_SIZE + l;
        if (i < n_vec) {
          let v = src_vec[i];
          acc0 = accumulate(acc0, v[0]);
          acc1 = accumulate(acc1, v[1]);
          acc2 = accumulate(acc2, v[2]);
          acc3 = accumulate(acc3, v[3]);
        }
      }
    }
    let tail = n_vec * 4u;
    if (wid.x == 0u && tail + l < params.n) {
      acc0 = accumulate(acc0, src[tail + l]);
    }
  } else {
    let tile = WG_SIZE * ITEMS * 4u;  // in elements
    let n = params.n;
    var base = wid.x * tile;
    let stride = nwg.x * tile;
    while (base + tile <= n) {
      for (var k = 0u; k < ITEMS * 4u; k += 4u) {
        acc0 = accumulate(acc0, src[base + k * WG_SIZE + l]);
        acc1 = accumulate(acc1, src[base + (k + 1u) * WG_SIZE + l]);
        acc2 = accumulate(acc2, src[base + (k + 2u) * WG_SIZE + l]);
        acc3 = accumulate(acc3, src[base + (k + 3u) * WG_SIZE + l]);
      }
      base += stride;
    }
    if (base < n) {
      for (var k = 0u; k < ITEMS * 4u; k += 1u) {
        let i = base + k * WG_SIZE + l;
        if (i < n) {
          acc0 = accumulate(acc0, src[i]);
        }
      }
    }
  }
  let total = workgroup_reduce(l, combine(combine(acc0, acc1), combine(acc2, acc3)), li);
  if (l == 0u) {
    dst[params.out_offset + wid.x] = total;
  }
}
