// The long segments of the one-subgroup-per-segment reduce and scan (segmented/per_subgroup.wgsl tells the whole):
// chunks folded by workgroups, then each long segment's chunks by one subgroup (the reduce: into out; SCAN: each
// chunk's carry, in place), then (SCAN) each chunk scanned. Indirect dispatches whose grids
// segmented/per_subgroup.wgsl's chunk_args wrote.
//! import segmented/per_subgroup_common.wgsl

var<workgroup> wg_chunks: u32;
var<workgroup> wg_bounds: vec2<u32>;

// The number of chunks the segments pass reserved (bounded by the capacity), the same in every invocation.
fn chunk_total(l: u32) -> u32 {
  if (l == 0u) {
    wg_chunks = min(atomicLoad(&work[2]), params.chunk_cap);
  }
  return workgroupUniformLoad(&wg_chunks);
}

// Chunk c's bounds, the same in every invocation (the workgroup's barriers are in loops over them).
fn uniform_chunk_bounds(l: u32, c: u32) -> vec2<u32> {
  workgroupBarrier();  // the previous chunk's readers of wg_bounds are done
  if (l == 0u) {
    wg_bounds = chunk_bounds(c);
  }
  return workgroupUniformLoad(&wg_bounds);
}

@compute @workgroup_size(WG_SIZE)
fn chunks(@builtin(local_invocation_index) l: u32, @builtin(workgroup_id) wid: vec3<u32>,
          @builtin(num_workgroups) nwg: vec3<u32>, li: lane_info) {
  let total = chunk_total(l);
  for (var c = wid.x; c < total; c += nwg.x) {
    let b = uniform_chunk_bounds(l, c);
    var v = identity();
    if (SCAN) {
      // In order: rounds of WG_SIZE values, each a workgroup scan whose total is folded on.
      for (var at = b.x; at < b.y; at += WG_SIZE) {
        var x = identity();
        if (at + l < b.y) {
          x = src[at + l];
        }
        v = combine(v, workgroup_scan(l, x, li).aggregate);
      }
    } else {
      var acc = identity();
      for (var i = b.x + l; i < b.y; i += WG_SIZE) {
        acc = combine(acc, src[i]);
      }
      v = workgroup_reduce(l, acc, li);
    }
    if (l == 0u) {
      partial[c] = v;
    }
  }
}

// Chunk c's values [x, y) (its descriptor: the group and the chunk's index in it).
fn chunk_bounds(c: u32) -> vec2<u32> {
  let g = atomicLoad(&work[chunk_base() + 2u * c]);
  let k = atomicLoad(&work[chunk_base() + 2u * c + 1u]);
  let r = group_of(min(g, group_count() - 1u));
  let x = min(r.x + k * CHUNK, r.y);
  return vec2<u32>(x, min(x + CHUNK, r.y));
}

// SCAN: workgroup c scans chunk c's values with the carry longs left in partial[c].
@compute @workgroup_size(WG_SIZE)
fn chunk_scan(@builtin(local_invocation_index) l: u32, @builtin(workgroup_id) wid: vec3<u32>,
              @builtin(num_workgroups) nwg: vec3<u32>, li: lane_info) {
  let total = chunk_total(l);
  for (var c = wid.x; c < total; c += nwg.x) {
    let b = uniform_chunk_bounds(l, c);
    var carry = partial[c];
    for (var at = b.x; at < b.y; at += WG_SIZE) {
      var x = identity();
      if (at + l < b.y) {
        x = src[at + l];
      }
      let p = workgroup_scan(l, x, li);
      if (at + l < b.y) {
        out[at + l] = combine(carry, scan_value(combine(p.exclusive, x), p.exclusive));
      }
      carry = combine(carry, p.aggregate);
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
      let s = min(atomicLoad(&work[LONGS + 2u * j]), group_count() - 1u);
      let c0 = atomicLoad(&work[LONGS + 2u * j + 1u]);
      let r = group_of(s);
      let c1 = min(c0 + (r.y - r.x + CHUNK - 1u) / CHUNK, params.chunk_cap);
      if (SCAN) {
        // Each chunk's partial becomes the fold of the chunks before it in its group (in order, rounds of size).
        var carry = identity();
        for (var base = c0; base < c1; base += li.size) {
          let c = base + li.lane;
          var v = identity();
          if (c < c1) {
            v = partial[c];
          }
          let inc = subgroup_scan_inclusive(v, li);
          var ex = subgroupShuffleUp(inc, 1u);
          if (li.lane == 0u) {
            ex = identity();
          }
          if (c < c1) {
            partial[c] = combine(carry, ex);
          }
          carry = combine(carry, subgroupShuffle(inc, li.size - 1u));
        }
      } else {
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
}
