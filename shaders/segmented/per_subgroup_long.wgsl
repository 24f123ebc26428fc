// The long segments of the one-subgroup-per-segment reduce (segmented/per_subgroup.wgsl tells the whole): chunks
// folded by workgroups, then each long segment's chunks by one subgroup. Both passes are indirect dispatches whose
// grids segmented/per_subgroup.wgsl's chunk_args wrote.
//! import segmented/per_subgroup_common.wgsl

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
