// The pieces the one-subgroup-per-segment reduce's two files share (segmented/per_subgroup.wgsl: the segments and
// the long segments' grids, with the grid buffer at binding 6; segmented/per_subgroup_long.wgsl: the chunks and the
// long segments, which read that buffer as their indirect grid and so cannot bind it): the parameters, bindings
// 0-5, a group's clamped bounds, a subgroup's fold and scan of a range. Needs the subgroup lanes import.
// SCAN (a composition constant): the segmented scan. Its groups are the segments plus what lies before the first
// offset (group 0) and after the last (group n_seg + 1), as the other segmented scans take them; a group's values
// get their inclusive (exclusive with params.exclusive) scan within it. Without SCAN a group is a segment.

struct sgr_params {
  n: u32,
  n_seg: u32,
  grid_x: u32,
  long_cap: u32,  // entries of the long list (>= n / (LONG + 1))
  chunk_cap: u32,  // chunk descriptors (>= n / CHUNK + long_cap)
  max_dim: u32,   // the adapter's workgroups per dimension
  exclusive: u32,  // SCAN: an exclusive scan
  pad2: u32,
}

@group(0) @binding(0) var<uniform> params: sgr_params;
@group(0) @binding(1) var<storage, read> src: array<T>;
@group(0) @binding(2) var<storage, read> offsets: array<u32>;
@group(0) @binding(3) var<storage, read_write> out: array<T>;
@group(0) @binding(4) var<storage, read_write> work: array<atomic<u32>>;
@group(0) @binding(5) var<storage, read_write> partial: array<T>;

const LONGS: u32 = 4u;

fn chunk_base() -> u32 {
  return LONGS + 2u * params.long_cap;
}

// Segment s's values [x, y), clamped into [0, n]; broken offsets counted by the caller's lane 0.
fn segment_of(s: u32) -> vec3<u32> {
  let o = offsets[s];
  let e = offsets[s + 1u];
  let broken = select(0u, 1u, o > e || e > params.n);
  let y = min(e, params.n);
  return vec3<u32>(min(o, y), y, broken);
}

// Groups: segments (reduce), or segments with the values before and after them (SCAN).
fn group_count() -> u32 {
  return select(params.n_seg, params.n_seg + 2u, SCAN);
}

// Group g's values [x, y) and whether its offsets are broken (as segment_of).
fn group_of(g: u32) -> vec3<u32> {
  if (!SCAN) {
    return segment_of(g);
  }
  if (g == 0u) {
    return vec3<u32>(0u, min(offsets[0], params.n), 0u);
  }
  if (g == params.n_seg + 1u) {
    let o = offsets[params.n_seg];
    return vec3<u32>(min(o, params.n), params.n, select(0u, 1u, o > params.n));
  }
  return segment_of(g - 1u);
}

// What a scan writes for a value whose inclusive scan (from the group's or chunk's start) is `inclusive` and
// whose predecessors' is `before`.
fn scan_value(inclusive: T, before: T) -> T {
  if (params.exclusive != 0u) {
    return before;
  }
  return inclusive;
}

// The subgroup's scan of src[x, y) into out[x, y): blocks of four rounds of `size` values (all four loaded before
// any is scanned), each round a subgroup scan; the rounds' totals are folded within the block, and the block's
// total is carried into the next block once (an f32 sum's rounding then grows with len / (4 size), not len / size).
// Order is kept: associativity suffices.
fn scan_range(x: u32, y: u32, li: lane_info) {
  let size = li.size;
  var carry = identity();
  for (var base = x; base < y; base += 4u * size) {
    var v: array<T, 4>;
    for (var k = 0u; k < 4u; k += 1u) {
      let i = base + k * size + li.lane;
      v[k] = identity();
      if (i < y) {
        v[k] = src[i];
      }
    }
    var pre = identity();  // the block's rounds before round k
    for (var k = 0u; k < 4u; k += 1u) {
      let i = base + k * size + li.lane;
      let inc = subgroup_scan_inclusive(v[k], li);
      var ex = subgroupShuffleUp(inc, 1u);
      if (li.lane == 0u) {
        ex = identity();
      }
      if (i < y) {
        out[i] = combine(carry, combine(pre, scan_value(inc, ex)));
      }
      pre = combine(pre, subgroupShuffle(inc, size - 1u));
    }
    carry = combine(carry, pre);
  }
}

// The lanes' fold of src[x, y) (lane i takes x + i, x + i + size, ...), then the subgroup's.
fn fold_range(x: u32, y: u32, li: lane_info) -> T {
  let step = li.size;
  var a0 = identity();
  var a1 = identity();
  var a2 = identity();
  var a3 = identity();
  var i = x + li.lane;
  for (; i + 3u * step < y; i += 4u * step) {
    a0 = combine(a0, src[i]);
    a1 = combine(a1, src[i + step]);
    a2 = combine(a2, src[i + 2u * step]);
    a3 = combine(a3, src[i + 3u * step]);
  }
  for (; i < y; i += step) {
    a0 = combine(a0, src[i]);
  }
  return subgroup_reduce(combine(combine(a0, a1), combine(a2, a3)), li);
}

