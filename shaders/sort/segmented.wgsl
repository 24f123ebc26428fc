// Segmented sort of 32-bit keys (src/primitives/sort/segmented.cpp), in place, stable, every segment on its own:
// segment s is keys[offsets[s], offsets[s + 1]). Keys compare on the radix sort's transformed bits
// (sort/keys.wgsl: sortable: the same key kinds, float total order, descending complement and bit mask), so the
// order is exactly the device sort's. Values (pairs) follow their keys. Segments of up to 256 keys are sorted many
// per workgroup (sort/segmented_short.wgsl), longer than MID by the device sort (record_sort on the sub-range):
//   sort_mid: one workgroup per entry of `list` (segments of SHORT + 1 .. 2048 keys, binned on the GPU or the host),
//     in two size classes, each its own composition and dispatch over the whole list: MID (the workgroup arrays'
//     entries) 1024 takes the segments of at most 1024 keys, MID 2048 with MID_MIN 1024 the longer ones; a workgroup
//     whose segment is the other class's returns at once. On the H200 the 16 KiB array of MID 2048 held back how
//     many workgroups ran at once: 2^28 keys in segments of 1000 took 29.8 ms with it and 19.7 with 8 KiB.
//     The network on a segment: the transformed keys and their indices within the segment, as (key, index) pairs
//     padded to a power of two p
//     (pads: index >= length, after every key), are sorted by a bitonic network on (key, index): the index breaks
//     ties, so the network (not stable by itself) gives the stable order, the one order of distinct pairs (so
//     every variant below gives the same result). With MID_REGISTERS (comparators), each invocation holds
//     local = max(p / WG_SIZE, 4) consecutive entries in registers for the whole network (loaded and stored
//     once): distances j < local run in registers, local <= j < local * subgroup size between the lanes of a
//     subgroup (subgroupShuffleXor; SUBGROUPS, full subgroups only), longer ones through workgroup memory `se`,
//     a barrier each (p = 1024 on 32 lanes: j = 512, 256, 128 only). Without MID_REGISTERS (the radix order's
//     default, WGPRIM_SORT_MID=memory) the entries stay in `se` and every distance j >= 8 takes a
//     barrier. Every invocation then gathers its outputs' keys and values by index, and after a barrier writes
//     them back.
// PAIRS (a constant of the composition): values travel with the keys (params.pairs is not read).
// COMPARATOR (a constant of the composition): keys compare by the caller's expression, wgprim_less(a: E, b: E)
// from the prelude (the comparator sort's block sort, src/primitives/sort/comparator.cpp), on the raw keys.
// MID_REGISTERS, SUBGROUPS (constants of the composition): the sort_mid variant above; SUBGROUPS needs the
// adapter's subgroups (any subgroup size: lane distances from the subgroup size up go through workgroup memory).
// MID_MERGE (with MS_POSITIONS = PAIRS): instead of a network, the merge sort in workgroup memory below (the GPUs'
// default, policy merge.block_network 0), with ITEMS = MID / WG_SIZE.
//! import sort/keys.wgsl

// The form a key is compared in: the radix sort's transformed bits, or the raw key for a comparator.
fn compared_form(k: u32) -> u32 {
//! if COMPARATOR
  return k;
//! else
  return sortable(k);
//! endif
}

// Whether compared form x goes strictly before y.
fn goes_before(x: u32, y: u32) -> bool {
//! if COMPARATOR
  return wgprim_less(bitcast<E>(x), bitcast<E>(y));
//! else
  return x < y;
//! endif
}

// src/primitives/sort/segmented.cpp: seg_params.
struct seg_params {
  key_kind: u32,
  descending: u32,
  mask_lo: u32,
  mask_hi: u32,
  pairs: u32,
  n_segments: u32,
  grid_x: u32,      // workgroups per row of the 2-D grid
  list_count: u32,  // sort_mid: entries of `list`
  gated: u32,       // grid_x and list_count are gate[4] and gate[7] (written on the device, segmented_short.wgsl)
}

@group(0) @binding(0) var<uniform> params: seg_params;
@group(0) @binding(1) var<storage, read> offsets: array<u32>;
@group(0) @binding(2) var<storage, read> list: array<u32>;
@group(0) @binding(3) var<storage, read_write> keys: array<u32>;
@group(0) @binding(4) var<storage, read_write> vals: array<u32>;
@group(0) @binding(5) var<storage, read> gate: array<u32>;

//! if MID_MERGE
//! else
var<workgroup> se: array<vec2<u32>, MID>;  // (compared key, index within the segment); pads: index >= length
//! endif
var<private> seg_len: u32;

// Whether entry a goes after entry b: by key, then by index; pads (index >= seg_len) after every key.
fn after(a: vec2<u32>, b: vec2<u32>) -> bool {
//! if COMPARATOR
  if (a.y >= seg_len || b.y >= seg_len) {
    return a.y > b.y;
  }
  if (goes_before(b.x, a.x)) {
    return true;
  }
  if (goes_before(a.x, b.x)) {
    return false;
  }
  return a.y > b.y;
//! else
  // Pads hold the largest key and indices past every key's, so the (key, index) order puts them last.
  return a.x > b.x || (a.x == b.x && a.y > b.y);
//! endif
}

// sort_mid's workgroup segment: (first key, length, extra), read from the list by invocation l = 0 and shared
// through workgroup memory (so every value is uniform); length 0 (no work) past the list or for a segment of the
// other size class. `extra` passes through (MID_REGISTERS: the lanes of a shuffle stage). Sets seg_len.
var<workgroup> mid_seg: vec3<u32>;

fn mid_segment(l: u32, wid: vec3u, extra: u32) -> vec3<u32> {
  if (l == 0u) {
    var grid_x = params.grid_x;
    var count = params.list_count;
    if (params.gated != 0u) {
      grid_x = gate[4];
      count = gate[7];
    }
    let w = wid.y * grid_x + wid.x;
    mid_seg = vec3<u32>(0u, 0u, extra);
    if (w < count) {
      let s = list[w];
      let first = offsets[s];
      let len = offsets[s + 1u] - first;
      if (len > MID_MIN && len <= MID) {
        mid_seg = vec3<u32>(first, len, extra);
      }
    }
  }
  let g = workgroupUniformLoad(&mid_seg);
  seg_len = g.y;
  return g;
}

//! if MID_MERGE
// MID_MERGE (the default on GPUs): the segment sorted by tile/merge_sort.wgsl with ITEMS = MID / WG_SIZE keys per
// invocation, no padding to a power of two: the raw keys move, compared in their compared form (goes_before), ties
// in the segment's order (a stable merge, no index tie-break); with PAIRS each key's position in the segment moves
// with it, then becomes its value (gathered before any write), and both are written back from workgroup memory.
//! import tile/merge_sort.wgsl

fn ms_goes_first(x: u32, y: u32) -> bool {
  return !goes_before(compared_form(y), compared_form(x));
}

@compute @workgroup_size(WG_SIZE)
fn sort_mid(@builtin(local_invocation_index) l: u32, @builtin(workgroup_id) wid: vec3u) {
  let g = mid_segment(l, wid, 1u);
  let b = g.x;
  let len = g.y;
  if (len == 0u) {
    return;
  }
  let d = l * ITEMS;
  var k: array<u32, ITEMS>;
  var p: array<u32, ITEMS>;
  for (var q = 0u; q < ITEMS; q += 1u) {
    k[q] = keys[b + min(d + q, len - 1u)];
  }
  tile_merge_sort(l, len, &k, &p);
  if (PAIRS) {
    for (var q = 0u; q < ITEMS; q += 1u) {
      if (d + q < len) {
        p[q] = vals[b + p[q]];
      }
    }
  }
  tile_merge_stage(l, len, &k, &p);
  storageBarrier();  // every read of the segment is done
  for (var i = l; i < len; i += WG_SIZE) {
    keys[b + i] = ms_keys[i];
//! if PAIRS
    vals[b + i] = ms_pos[i];
//! endif
  }
}
//! else
//! if MID_REGISTERS
// REGS = 2^REGS_LOG2 (constants of the composition): entries per invocation at most (in registers), p / WG_SIZE
// for the longest segments, at least 4. The loops over registers count linearly to a constant, so that compilers
// unroll them and every register index is a constant (no array in local memory).

// Where entry e lives in se between the stages through workgroup memory: XOR-swizzled within its aligned group of
// `local` entries by the entry's 16-entry block, so that the invocations of a subgroup, each storing or loading
// `local` consecutive entries, meet distinct memory banks (16 entries of 8 bytes: all 32 banks).
fn mid_slot(e: u32, local: u32) -> u32 {
  return e ^ ((e >> 4u) & (local - 1u));
}

@compute @workgroup_size(WG_SIZE)
//! if SUBGROUPS
fn sort_mid(@builtin(local_invocation_index) l: u32, @builtin(workgroup_id) wid: vec3u,
            @builtin(subgroup_size) sg_size: u32, @builtin(subgroup_id) sg_id: u32,
            @builtin(subgroup_invocation_id) sg_lane: u32, @builtin(num_subgroups) sg_count: u32) {
  // Lane sg_lane of subgroup sg_id is invocation v = sg_id * sg_size + sg_lane of the network, so that lane
  // distance m is entry distance m * local. Only with full subgroups (then v runs over 0 .. WG_SIZE - 1 once);
  // otherwise no shuffle stage (lanes 1: every distance >= local through workgroup memory).
  let full = sg_count * sg_size == WG_SIZE;
  let v = select(l, sg_id * sg_size + sg_lane, full);
  let lanes_here = select(1u, sg_size, full);
//! else
fn sort_mid(@builtin(local_invocation_index) l: u32, @builtin(workgroup_id) wid: vec3u) {
  let v = l;
  let lanes_here = 1u;
//! endif
  let g = mid_segment(l, wid, lanes_here);
  let b = g.x;
  let len = g.y;
  if (len == 0u) {
    return;
  }
  var p = 4u;
  while (p < len) {
    p <<= 1u;
  }
  // Entries per invocation: p / WG_SIZE, at least 4 (then p / local invocations have entries, the others pads
  // that are never stored).
  var local = 4u;
  var shift = 2u;
  while (local * WG_SIZE < p) {
    local <<= 1u;
    shift += 1u;
  }
  let wide = local * g.z;  // distances from here on go through workgroup memory
  let c = v * local;       // the invocation's first entry
  // Two halves of se, used in turn by the stages through workgroup memory where p <= MID / 2.
  let halves = 2u * p <= MID;
  var flip = false;
  var r: array<vec2<u32>, REGS>;
  for (var q = 0u; q < REGS; q += 1u) {
    let e = c + q;
    if (q < local && e < len) {
      r[q] = vec2<u32>(compared_form(keys[b + e]), e);
    } else {
      r[q] = vec2<u32>(0xffffffffu, e);
    }
  }
  // The bitonic network on p = 2^m entries: stage k merges bitonic runs of k; entries lo and hi = lo + j at
  // distance j (bit j of lo clear) meet, runs with bit k of lo clear sort up, the others down. Distances j > wide
  // go through workgroup memory (a barrier each, pairs spread over the workgroup), j = wide too but each invocation
  // reads its entries' partners there into its registers (no barrier after it); local <= j < wide between lanes
  // of a subgroup (both lanes of a pair take the decision on the same (lo, hi) operands, so the pair always stays
  // a permutation); j < local within the invocation's registers.
  for (var k = 2u; k <= p; k <<= 1u) {
    if ((k >> 1u) >= wide) {
      let base = select(0u, p, flip);
      if (c < p) {
        for (var q = 0u; q < REGS; q += 1u) {
          if (q < local) {
            se[base + mid_slot(c + q, local)] = r[q];
          }
        }
      }
      workgroupBarrier();
      for (var j = k >> 1u; j > wide; j >>= 1u) {
        for (var i = l; i < p / 2u; i += WG_SIZE) {
          let lo = ((i & ~(j - 1u)) << 1u) | (i & (j - 1u));
          let hi = lo + j;
          let x = se[base + mid_slot(lo, local)];
          let y = se[base + mid_slot(hi, local)];
          if (after(x, y) == ((lo & k) == 0u)) {
            se[base + mid_slot(lo, local)] = y;
            se[base + mid_slot(hi, local)] = x;
          }
        }
        workgroupBarrier();
      }
      // The last of these distances (wide): each invocation its own entries against their partners, straight into
      // registers (the partner's owner takes the same decision on the same operands).
      if (c < p) {
        let lower = (c & wide) == 0u;
        let up = (c & k) == 0u;
        for (var q = 0u; q < REGS; q += 1u) {
          if (q < local) {
            let x = se[base + mid_slot(c + q, local)];
            let y = se[base + mid_slot((c + q) ^ wide, local)];
            r[q] = x;
            if (after(select(y, x, lower), select(x, y, lower)) == up) {
              r[q] = y;
            }
          }
        }
      }
      // Others may still read this half: the next store goes to the other half where there is room, else waits.
      if (halves) {
        flip = !flip;
      } else {
        workgroupBarrier();
      }
    }
//! if SUBGROUPS
    let up = (c & k) == 0u;
    for (var j = min(k, wide) >> 1u; j >= local; j >>= 1u) {
      let m = j >> shift;
      let lower = (v & m) == 0u;
      for (var q = 0u; q < REGS; q += 1u) {
        if (q < local) {
          let mine = r[q];
          let other = subgroupShuffleXor(mine, m);
          if (after(select(other, mine, lower), select(mine, other, lower)) == up) {
            r[q] = other;
          }
        }
      }
    }
//! endif
    for (var s = 0u; s < REGS_LOG2; s += 1u) {
      let j = REGS >> (s + 1u);
      if (j < k && j < local) {
        for (var t = 0u; t < REGS / 2u; t += 1u) {
          let lo = ((t & ~(j - 1u)) << 1u) | (t & (j - 1u));
          if (lo < local) {
            let x = r[lo];
            let y = r[lo + j];
            if (after(x, y) == (((c + lo) & k) == 0u)) {
              r[lo] = y;
              r[lo + j] = x;
            }
          }
        }
      }
    }
  }
  // Every output's key and value by its index, read by all before any is written.
  var ok: array<u32, REGS>;
  var ov: array<u32, REGS>;
  for (var q = 0u; q < REGS; q += 1u) {
    if (q < local && c + q < len) {
      let src_index = b + r[q].y;
      ok[q] = keys[src_index];
      if (PAIRS) {
        ov[q] = vals[src_index];
      }
    }
  }
  storageBarrier();
  for (var q = 0u; q < REGS; q += 1u) {
    if (q < local && c + q < len) {
      keys[b + c + q] = ok[q];
      if (PAIRS) {
        vals[b + c + q] = ov[q];
      }
    }
  }
}
//! else
// The workgroup-memory network (WGPRIM_SORT_MID=memory): the entries stay in se; distances j >= LOCAL a barrier
// each, the last ones of every stage (j < LOCAL) on LOCAL consecutive entries per invocation in registers.
// Entries per invocation in the register stages (distances j < LOCAL of the network).
const LOCAL: u32 = 8u;

// Where entry i lives in se: XOR-swizzled within its aligned group of LOCAL entries, so that the invocations of a
// register stage, each reading LOCAL consecutive entries, spread over the memory banks (16-way conflicts else).
fn slot(i: u32) -> u32 {
  return i ^ ((i / LOCAL) & (LOCAL - 1u));
}

@compute @workgroup_size(WG_SIZE)
fn sort_mid(@builtin(local_invocation_index) l: u32, @builtin(workgroup_id) wid: vec3u) {
  let g = mid_segment(l, wid, 1u);
  let b = g.x;
  let len = g.y;
  if (len == 0u) {
    return;
  }
  var p = LOCAL;
  while (p < len) {
    p <<= 1u;
  }
  for (var i = l; i < p; i += WG_SIZE) {
    if (i < len) {
      se[slot(i)] = vec2<u32>(compared_form(keys[b + i]), i);
    } else {
      se[slot(i)] = vec2<u32>(0xffffffffu, i);
    }
  }
  workgroupBarrier();
  // The bitonic network on p = 2^m entries: stage k merges bitonic runs of k; pair i at distance j compares
  // lo = i with bit j inserted as 0, and hi = lo + j; runs with bit k of lo clear sort up, the others down.
  // Distances j >= LOCAL go through workgroup memory (a barrier each); the last ones of every stage (j < LOCAL)
  // run on LOCAL consecutive entries per invocation in registers, then one barrier.
  for (var k = 2u; k <= p; k <<= 1u) {
    for (var j = k >> 1u; j >= LOCAL; j >>= 1u) {
      for (var i = l; i < p / 2u; i += WG_SIZE) {
        let lo = ((i & ~(j - 1u)) << 1u) | (i & (j - 1u));
        let hi = lo + j;
        let x = se[slot(lo)];
        let y = se[slot(hi)];
        if (after(x, y) == ((lo & k) == 0u)) {
          se[slot(lo)] = y;
          se[slot(hi)] = x;
        }
      }
      workgroupBarrier();
    }
    for (var c = l * LOCAL; c < p; c += WG_SIZE * LOCAL) {
      var r: array<vec2<u32>, LOCAL>;
      for (var q = 0u; q < LOCAL; q += 1u) {
        r[q] = se[slot(c + q)];
      }
      for (var j = LOCAL / 2u; j > 0u; j >>= 1u) {
        if (j < k) {
          for (var t = 0u; t < LOCAL / 2u; t += 1u) {
            let lo = ((t & ~(j - 1u)) << 1u) | (t & (j - 1u));
            let x = r[lo];
            let y = r[lo + j];
            if (after(x, y) == (((c + lo) & k) == 0u)) {
              r[lo] = y;
              r[lo + j] = x;
            }
          }
        }
      }
      for (var q = 0u; q < LOCAL; q += 1u) {
        se[slot(c + q)] = r[q];
      }
    }
    workgroupBarrier();
  }
  // The gather goes through workgroup memory, not register arrays: each sorted entry is replaced by its raw key
  // (and value), read by index from the segment; after the barrier (every read of the segment done) it is written
  // back in order.
  for (var i = l; i < len; i += WG_SIZE) {
    let src_index = b + se[slot(i)].y;
    var v = 0u;
    if (PAIRS) {
      v = vals[src_index];
    }
    se[slot(i)] = vec2<u32>(keys[src_index], v);
  }
  workgroupBarrier();
  storageBarrier();
  for (var i = l; i < len; i += WG_SIZE) {
    let e = se[slot(i)];
    keys[b + i] = e.x;
    if (PAIRS) {
      vals[b + i] = e.y;
    }
  }
}
//! endif
//! endif
