// Segmented reduce over CSR offsets, one subgroup per segment (as CUB's DeviceSegmentedReduce gives each segment a
// block): for segments of tens to thousands of values, with no pass over tiles and one dispatch when no segment is
// long. Needs the subgroup lanes import (shared/lanes_subgroup.wgsl) and a commutative combine (lanes take every
// size-th value: the segment is reordered).
//   segments: workgroup g owns segments [g * SEGS, (g + 1) * SEGS); its subgroups take them in turn. A segment of
//     at most LONG values is folded by the lanes (four loads in flight each) and a subgroup butterfly. A longer one
//     is cut into chunks of CHUNK values: its subgroup reserves the chunks' descriptors (work[2]: chunks so far)
//     and a long-list entry (work[1]: long segments so far) and writes them; nothing else of it here.
//   chunk_args: one invocation writes the grids of the two passes below (indirect: zero when no segment is long).
//   chunks: workgroup c (grid-stride) folds chunk c's values into partial[c] (a workgroup reduction).
//   longs: one subgroup per long segment folds its chunks' partials into out[s].
// Offsets that decrease or pass n are counted in work[0] (the dispatch layer turns it into an error); every index
// stays bounded by n whatever the offsets hold. work: [0] broken, [1] long segments, [2] chunks, [3] unused,
// then LONG_CAP (segment, first chunk) pairs, then the chunk descriptors (segment, chunk index) pairs.

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
@group(0) @binding(6) var<storage, read_write> args: array<u32>;

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

@compute @workgroup_size(WG_SIZE)
fn segments(@builtin(workgroup_id) wid: vec3<u32>, li: lane_info) {
  let first = (wid.y * params.grid_x + wid.x) * SEGS;
  for (var q = li.id; q < SEGS; q += li.count) {
    let s = first + q;
    if (s >= params.n_seg) {
      break;
    }
    let r = segment_of(s);
    if (r.z != 0u && li.lane == 0u) {
      atomicAdd(&work[0], 1u);
    }
    let len = r.y - r.x;
    if (len <= LONG) {
      let v = fold_range(r.x, r.y, li);
      if (li.lane == 0u) {
        out[s] = v;
      }
      continue;
    }
    let chunks = (len + CHUNK - 1u) / CHUNK;
    var at = vec2<u32>(0u);
    if (li.lane == 0u) {
      at = vec2<u32>(atomicAdd(&work[1], 1u), atomicAdd(&work[2], chunks));
    }
    at = subgroupBroadcastFirst(at);
    if (at.x >= params.long_cap || at.y + chunks > params.chunk_cap) {
      continue;  // cannot happen with the host's capacities; the kernel stays in bounds anyway
    }
    if (li.lane == 0u) {
      atomicStore(&work[LONGS + 2u * at.x], s);
      atomicStore(&work[LONGS + 2u * at.x + 1u], at.y);
    }
    for (var k = li.lane; k < chunks; k += li.size) {
      atomicStore(&work[chunk_base() + 2u * (at.y + k)], s);
      atomicStore(&work[chunk_base() + 2u * (at.y + k) + 1u], k);
    }
  }
}

@compute @workgroup_size(1)
fn chunk_args() {
  let longs = min(atomicLoad(&work[1]), params.long_cap);
  let chunks = min(atomicLoad(&work[2]), params.chunk_cap);
  args[0] = min(chunks, params.max_dim);
  args[1] = 1u;
  args[2] = 1u;
  args[3] = min((longs + SEGS - 1u) / SEGS, params.max_dim);
  args[4] = 1u;
  args[5] = 1u;
}

var<workgroup> wg_chunks: u32;

@compute @workgroup_size(WG_SIZE)
fn chunks(@builtin(local_invocation_index) l: u32, @builtin(workgroup_id) wid: vec3<u32>,
          @builtin(num_workgroups) nwg: vec3<u32>, li: lane_info) {
  if (l == 0u) {
    wg_chunks = min(atomicLoad(&work[2]), params.chunk_cap);
  }
  let total = workgroupUniformLoad(&wg_chunks);
  for (var c = wid.x; c < total; c += nwg.x) {
    let s = atomicLoad(&work[chunk_base() + 2u * c]);
    let k = atomicLoad(&work[chunk_base() + 2u * c + 1u]);
    let r = segment_of(min(s, params.n_seg - 1u));
    let x = min(r.x + k * CHUNK, r.y);
    let y = min(x + CHUNK, r.y);
    var acc = identity();
    for (var i = x + l; i < y; i += WG_SIZE) {
      acc = combine(acc, src[i]);
    }
    let v = workgroup_reduce(l, acc, li);
    if (l == 0u) {
      partial[c] = v;
    }
  }
}

@compute @workgroup_size(WG_SIZE)
fn longs(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, li: lane_info) {
  let count = min(atomicLoad(&work[1]), params.long_cap);
  for (var g = wid.x * SEGS; g < count; g += nwg.x * SEGS) {
    for (var q = li.id; q < SEGS; q += li.count) {
      let j = g + q;
      if (j >= count) {
        break;
      }
      let s = min(atomicLoad(&work[LONGS + 2u * j]), params.n_seg - 1u);
      let c0 = atomicLoad(&work[LONGS + 2u * j + 1u]);
      let r = segment_of(s);
      let c1 = min(c0 + (r.y - r.x + CHUNK - 1u) / CHUNK, params.chunk_cap);
      var acc = identity();
      for (var c = c0 + li.lane; c < c1; c += li.size) {
        acc = combine(acc, partial[c]);
      }
      let v = subgroup_reduce(acc, li);
      if (li.lane == 0u) {
        out[s] = v;
      }
    }
  }
}
