// The pieces the one-subgroup-per-segment reduce's two files share (segmented/per_subgroup.wgsl: the segments and
// the long segments' grids, with the grid buffer at binding 6; segmented/per_subgroup_long.wgsl: the chunks and the
// long segments, which read that buffer as their indirect grid and so cannot bind it): the parameters, bindings
// 0-5, a segment's clamped bounds and a subgroup's fold of a range. Needs the subgroup lanes import.

struct sgr_params {
  n: u32,
  n_seg: u32,
  grid_x: u32,
  long_cap: u32,  // entries of the long list (>= n / (LONG + 1))
  chunk_cap: u32,  // chunk descriptors (>= n / CHUNK + long_cap)
  max_dim: u32,   // the adapter's workgroups per dimension
  pad1: u32,
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

