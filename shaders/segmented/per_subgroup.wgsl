// Segmented reduce over CSR offsets, one subgroup per segment (as CUB's DeviceSegmentedReduce gives each segment a
// block): for segments of tens to thousands of values, with no pass over tiles and one dispatch when no segment is
// long. Needs the subgroup lanes import (shared/lanes_subgroup.wgsl) and a commutative combine (lanes take every
// size-th value: the segment is reordered). With SCAN (per_subgroup_common.wgsl), the segmented scan by the same
// passes, every step in order (any associative combine): a subgroup scans its group in rounds; a long group's
// chunks are folded in order, their carries scanned per group (longs), then each chunk scanned (chunk_scan).
//   segments: workgroup g owns segments [g * SEGS, (g + 1) * SEGS); its subgroups take them in turn. A segment of
//     at most LONG values (and 256 x the lanes) is folded by the lanes (four loads in flight each) and a subgroup
//     butterfly. A longer one
//     is cut into chunks of CHUNK values: its subgroup reserves the chunks' descriptors (work[2]: chunks so far)
//     and a long-list entry (work[1]: long segments so far) and writes them; nothing else of it here.
//   chunk_args: one invocation writes the grids of the two passes below (indirect: zero when no segment is long).
//   chunks: workgroup c (grid-stride) folds chunk c's values into partial[c] (a workgroup reduction).
//   longs: one subgroup per long segment folds its chunks' partials into out[s].
// Offsets that decrease or pass n are counted in work[0] (the dispatch layer turns it into an error); every index
// stays bounded by n whatever the offsets hold. work: [0] broken, [1] long segments, [2] chunks, [3] unused,
// then LONG_CAP (segment, first chunk) pairs, then the chunk descriptors (segment, chunk index) pairs.

//! import segmented/per_subgroup_common.wgsl

@group(0) @binding(6) var<storage, read_write> args: array<u32>;

@compute @workgroup_size(WG_SIZE)
fn segments(@builtin(workgroup_id) wid: vec3<u32>, li: lane_info) {
  let first = (wid.y * params.grid_x + wid.x) * SEGS;
  for (var q = li.id; q < SEGS; q += li.count) {
    let s = first + q;
    if (s >= group_count()) {
      break;
    }
    let r = group_of(s);
    if (r.z != 0u && li.lane == 0u) {
      atomicAdd(&work[0], 1u);
    }
    let len = r.y - r.x;
    // Short: at most LONG values, and at most 256 x the subgroup's lanes, so that a scan's carry chain (once per
    // 4 x size values) stays at most 64 steps on narrow subgroups too (8 lanes: 2,048 values; 32 lanes: 8,192).
    if (len <= min(LONG, 256u * li.size)) {
      if (SCAN) {
        scan_range(r.x, r.y, li);
      } else {
        let v = fold_range(r.x, r.y, li);
        if (li.lane == 0u) {
          out[s] = v;
        }
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
