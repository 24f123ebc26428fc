// The distributed sort's partition (src/dist/distributed.cpp): where each of the p - 1 splitters falls in this rank's
// sorted part. A splitter is a sample (key, rank, position) of the total order that makes every element distinct:
// keys in the sort's order (sort/keys.wgsl's transform, descending included; the splitter's key comes transformed),
// ties by rank, then by position in that rank's sorted part. bounds[d] is the number of this rank's elements before
// splitter d: the keys' lower bound when the splitter's rank is below this rank, their upper bound when above, and
// the splitter's own position (clamped between the two) when it is this rank's. One invocation per splitter, two
// binary searches of at most 33 steps over the sorted keys.
//! import sort/keys.wgsl

// src/dist/distributed.cpp: bounds_params (key_kind, descending and the mask are what sortable() reads).
struct bounds_params {
  n: u32,          // this rank's sorted keys
  rank: u32,       // this rank
  splitters: u32,  // p - 1
  key_kind: u32,
  descending: u32,
  mask_lo: u32,
  mask_hi: u32,
  pad: u32,
}

@group(0) @binding(0) var<uniform> params: bounds_params;
@group(0) @binding(1) var<storage, read> keys: array<u32>;
@group(0) @binding(2) var<storage, read> splitters: array<u32>;  // 4 words each: key, rank, position (low, high)
@group(0) @binding(3) var<storage, read_write> bounds: array<u32>;

// The first i with sortable(keys[i]) > x (strict) or >= x (!strict); n when there is none.
fn first_after(x: u32, strict: bool) -> u32 {
  var lo = 0u;
  var hi = params.n;
  for (var it = 0u; it < 33u && lo < hi; it += 1u) {
    let mid = lo + (hi - lo) / 2u;
    let k = sortable(keys[mid]);
    if (k < x || (strict && k == x)) {
      lo = mid + 1u;
    } else {
      hi = mid;
    }
  }
  return lo;
}

@compute @workgroup_size(WG_SIZE)
fn splitter_bounds(@builtin(global_invocation_id) id: vec3u) {
  let d = id.x;
  if (d >= params.splitters) {
    return;
  }
  let key = splitters[4u * d];
  let rank = splitters[4u * d + 1u];
  let lo = first_after(key, false);
  let hi = first_after(key, true);
  var b = lo;
  if (params.rank < rank) {
    b = hi;
  } else if (params.rank == rank) {
    var pos = splitters[4u * d + 2u];
    if (splitters[4u * d + 3u] != 0u) {
      pos = 0xffffffffu;
    }
    b = clamp(pos, lo, hi);
  }
  bounds[d] = b;
}
