// Segmented sort of 32-bit keys (src/primitives/sort/segmented.cpp), in place, stable, every segment on its own:
// segment s is keys[offsets[s], offsets[s + 1]). Keys compare on the radix sort's transformed bits
// (sort/keys.wgsl: sortable: the same key kinds, float total order, descending complement and bit mask), so the
// order is exactly the device sort's. Values (pairs) follow their keys. Two entry points, by segment length; the
// host sends segments longer than MID to the device sort (record_sort on the sub-range):
//   sort_tiny: one invocation per segment, for every segment of 2 .. TINY keys (the others return at once): the
//     segment is loaded into private arrays and insertion-sorted (stable: a key moves only past strictly greater
//     ones), then written back.
//   sort_mid: one workgroup per entry of `list` (segments of TINY + 1 .. MID keys, binned on the host): the
//     transformed keys and their indices within the segment go to workgroup memory, padded to a power of two
//     (pads: index >= length, after every key), and a bitonic network sorts them on (key, index): the index breaks
//     ties, so the network (not stable by itself) gives the stable order. Every invocation then gathers its
//     outputs' keys and values by index into registers, and after a barrier writes them back.
// PAIRS (a constant of the composition): values travel with the keys (params.pairs is not read).
// COMPARATOR (a constant of the composition): keys compare by the caller's expression, wgprim_less(a: E, b: E)
// from the prelude (the comparator sort's block sort, src/primitives/sort/comparator.cpp), on the raw keys.
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
}

@group(0) @binding(0) var<uniform> params: seg_params;
@group(0) @binding(1) var<storage, read> offsets: array<u32>;
@group(0) @binding(2) var<storage, read> list: array<u32>;
@group(0) @binding(3) var<storage, read_write> keys: array<u32>;
@group(0) @binding(4) var<storage, read_write> vals: array<u32>;

@compute @workgroup_size(WG_SIZE)
fn sort_tiny(@builtin(local_invocation_index) l: u32, @builtin(workgroup_id) wid: vec3u) {
  let s = (wid.y * params.grid_x + wid.x) * WG_SIZE + l;
  if (s >= params.n_segments) {
    return;
  }
  let b = offsets[s];
  let len = offsets[s + 1u] - b;
  if (len < 2u || len > TINY) {
    return;
  }
  var k: array<u32, TINY>;
  var t: array<u32, TINY>;
  var v: array<u32, TINY>;
  for (var i = 0u; i < len; i += 1u) {
    let x = keys[b + i];
    var y = 0u;
    if (PAIRS) {
      y = vals[b + i];
    }
    let tx = compared_form(x);
    var j = i;
    while (j > 0u && goes_before(tx, t[j - 1u])) {
      k[j] = k[j - 1u];
      t[j] = t[j - 1u];
      v[j] = v[j - 1u];
      j -= 1u;
    }
    k[j] = x;
    t[j] = tx;
    v[j] = y;
  }
  for (var i = 0u; i < len; i += 1u) {
    keys[b + i] = k[i];
    if (PAIRS) {
      vals[b + i] = v[i];
    }
  }
}

var<workgroup> sk: array<u32, MID>;  // transformed keys
var<workgroup> si: array<u32, MID>;  // their indices within the segment
var<workgroup> seg: vec2<u32>;       // (first key, length) of the workgroup's segment
var<private> seg_len: u32;

// Whether entry x goes after entry y: by key, then by index; pads (index >= seg_len) after every key.
fn after(x: u32, y: u32) -> bool {
  let ix = si[x];
  let iy = si[y];
  if (ix >= seg_len || iy >= seg_len) {
    return ix > iy;
  }
  if (goes_before(sk[y], sk[x])) {
    return true;
  }
  if (goes_before(sk[x], sk[y])) {
    return false;
  }
  return ix > iy;
}

const MID_ITEMS: u32 = MID / WG_SIZE;

@compute @workgroup_size(WG_SIZE)
fn sort_mid(@builtin(local_invocation_index) l: u32, @builtin(workgroup_id) wid: vec3u) {
  let w = wid.y * params.grid_x + wid.x;
  if (w >= params.list_count) {
    return;
  }
  if (l == 0u) {
    let s = list[w];
    seg = vec2<u32>(offsets[s], offsets[s + 1u] - offsets[s]);
  }
  let g = workgroupUniformLoad(&seg);
  let b = g.x;
  let len = g.y;
  seg_len = len;
  var p = 1u;
  while (p < len) {
    p <<= 1u;
  }
  for (var i = l; i < p; i += WG_SIZE) {
    si[i] = i;
    if (i < len) {
      sk[i] = compared_form(keys[b + i]);
    } else {
      sk[i] = 0u;
    }
  }
  workgroupBarrier();
  // The bitonic network on p = 2^m entries: stage k merges bitonic runs of k; pair i at distance j compares
  // lo = i with bit j inserted as 0, and hi = lo + j; runs with bit k of lo clear sort up, the others down.
  for (var k = 2u; k <= p; k <<= 1u) {
    for (var j = k >> 1u; j > 0u; j >>= 1u) {
      for (var i = l; i < p / 2u; i += WG_SIZE) {
        let lo = ((i & ~(j - 1u)) << 1u) | (i & (j - 1u));
        let hi = lo + j;
        if (after(lo, hi) == ((lo & k) == 0u)) {
          let a = sk[lo];
          sk[lo] = sk[hi];
          sk[hi] = a;
          let c = si[lo];
          si[lo] = si[hi];
          si[hi] = c;
        }
      }
      workgroupBarrier();
    }
  }
  var ok: array<u32, MID_ITEMS>;
  var ov: array<u32, MID_ITEMS>;
  for (var q = 0u; q < MID_ITEMS; q += 1u) {
    let i = l + q * WG_SIZE;
    if (i < len) {
      ok[q] = keys[b + si[i]];
      if (PAIRS) {
        ov[q] = vals[b + si[i]];
      }
    }
  }
  storageBarrier();
  for (var q = 0u; q < MID_ITEMS; q += 1u) {
    let i = l + q * WG_SIZE;
    if (i < len) {
      keys[b + i] = ok[q];
      if (PAIRS) {
        vals[b + i] = ov[q];
      }
    }
  }
}
