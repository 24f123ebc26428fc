// Segmented scan and reduce over CSR offsets in one decoupled look-back pass (tile/lookback.wgsl): a scan of
// (head, value) pairs with the segmented operator, so the tile states carry (any head in the span, value since its last head):
//   combine((h1, v1), (h2, v2)) = h2 != 0 ? (h2, v2) : (h1, v1 . v2)      (.: the user's monoid, order kept)
// The prelude (src/primitives/segmented/decoupled.cpp) makes that pair the look-back's T (vec2<u32>, T_WORDS = 2) and
// gives the monoid as V, v_identity(), v_combine(a, b).
//
// Groups start at element 0 and at every offset below n (a segment's first element; an empty segment's offset is
// the next segment's start or the end of the last, where the elements after the segments form one group, as the
// CPU twin scans them). A first pass (prepare) finds the offsets each tile owns (segmented/bounds.wgsl) and clears
// the tile states; then each
// workgroup claims the next tile of TILE = WG_SIZE * ITEMS * 4 elements, marks its heads in a workgroup bit set,
// loads ITEMS vec4 per invocation and scans them in one of two layouts (the constant RAKED): blocked (invocation l
// holds vec4 l * ITEMS .. l * ITEMS + ITEMS - 1, folded serially, then a workgroup scan of the folds: the lanes
// import) or raked (one contiguous chunk per subgroup, lanes interleaved vec4 by vec4 as in scan/tile_raked.wgsl,
// so each load and store instruction of a subgroup is one contiguous run; ITEMS subgroup scans of the vec4 folds;
// needs the subgroup lanes import). A tile that holds a head knows its inclusive pair without its predecessors (it is its aggregate), so
// it publishes it as INCLUSIVE at once: a successor's walk stops there, and with segments shorter than a tile
// every walk is one step. Then the tile takes its prefix from tile_prefix (the look-back) and writes
// out[i] = the inclusive (params.exclusive: exclusive) scan of element i's group; or, with the constant REDUCE,
// out[s] = segment s's reduction (identity() when empty) for every segment whose end offset the tile owns: the
// inclusive value of the segment's last element, through TILE words of workgroup memory (only the elements that
// end a group or an invocation's span are stored there), or the tile's prefix when the segment ends where the tile
// starts. Whatever the segment lengths, the values are read once, in vec4 loads, and each output written once.
//
// Fallback: a predecessor that stays NOT_READY is folded by the waiting workgroup from memory (lookback_fallback:
// its heads marked again, the same fold in the same order, so the same bits). Offsets that decrease or pass n are
// counted in broken[0] by the tile that owns them (the dispatch layer turns the count into an error); every index
// stays bounded by n, n_seg or TILE whatever the offsets hold. 32-bit values only (one word of the pair).
//! import tile/lookback.wgsl
//! import segmented/bounds.wgsl

const ITEMS4: u32 = ITEMS * 4u;
const TILE: u32 = WG_SIZE * ITEMS4;
const HEAD_WORDS: u32 = TILE / 32u + 1u;

struct seg_scan_params {
  n: u32,
  n_seg: u32,
  tiles: u32,
  exclusive: u32,
  spin_limit: u32,
  stress: u32,
  pad0: u32,
  pad1: u32,
}

@group(0) @binding(0) var<uniform> params: seg_scan_params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read> src_vec: array<vec4<u32>>;
@group(0) @binding(3) var<storage, read> offsets: array<u32>;
@group(0) @binding(4) var<storage, read_write> bounds: array<u32>;
@group(0) @binding(5) var<storage, read_write> out: array<u32>;
@group(0) @binding(6) var<storage, read_write> out_vec: array<vec4<u32>>;
@group(0) @binding(7) var<storage, read_write> state: array<atomic<u32>>;
@group(0) @binding(8) var<storage, read_write> broken: array<atomic<u32>>;

var<workgroup> wg_heads: array<atomic<u32>, HEAD_WORDS>;
var<workgroup> wg_inclusive: array<u32, REDUCE_WORDS>;  // REDUCE: the inclusive values of group ends (TILE; else 1)
var<private> vals: array<u32, ITEMS4>;

// The tile-relative index of this invocation's vec4 k in the layout RAKED picks.
fn vec_slot(l: u32, k: u32, li: lane_info) -> u32 {
//! if RAKED
  return (li.id * ITEMS + k) * li.size + li.lane;
//! else
  return l * ITEMS + k;
//! endif
}

// Invocation l's head bits of tile `tile` (bit 4 k + c: element c of its vec4 k starts a group), from the offsets
// the tile owns. check: count broken offsets (the tile's own pass, not a fallback). Contains barriers: uniform
// control flow; the bit set is free again on return.
fn mark_heads(tile: u32, l: u32, li: lane_info, check: bool) -> u32 {
  for (var w = l; w < HEAD_WORDS; w += WG_SIZE) {
    atomicStore(&wg_heads[w], 0u);
  }
  workgroupBarrier();
  let n = params.n;
  let ns = params.n_seg;
  let start = tile * TILE;
  let s0 = bounds[tile];
  let s1 = bounds[tile + 1u];
  if (check && s1 < s0 && l == 0u) {
    atomicAdd(&broken[0], 1u);
  }
  for (var s = s0 + l; s < s1; s += WG_SIZE) {
    let o = offsets[s];
    if (check && ((s < ns && o > offsets[s + 1u]) || (s >= ns && o > n))) {
      atomicAdd(&broken[0], 1u);
    }
    if (o >= start && o - start < TILE && o < n) {
      atomicOr(&wg_heads[(o - start) / 32u], 1u << ((o - start) % 32u));
    }
  }
  workgroupBarrier();
  var bits = 0u;
  for (var k = 0u; k < ITEMS; k += 1u) {
    let e = 4u * vec_slot(l, k, li);  // a multiple of 4: the vec4's four bits lie in one word
    bits |= ((atomicLoad(&wg_heads[e / 32u]) >> (e % 32u)) & 15u) << (4u * k);
    if (tile == 0u && e == 0u) {
      bits |= 1u;  // element 0 starts a group, whatever the offsets say
    }
  }
  workgroupBarrier();  // every invocation has read the set before it is cleared again (a fallback)
  return bits;
}

fn item(bits: u32, k: u32, v: u32) -> T {
  return vec2<u32>((bits >> k) & 1u, v);
}

//! if RAKED
// raked_before[k]: the pairs of the tile before this invocation's vec4 k (unset for the tile's first vec4:
// raked_has_before).
var<private> raked_before: array<T, ITEMS>;

fn raked_has_before(k: u32, li: lane_info) -> bool {
  return k > 0u || li.lane > 0u || li.id > 0u;
}

// The fold of vec4 k (elements 4 k + c < count; identity() when none).
fn fold4(bits: u32, k: u32, v: vec4<u32>, count: u32) -> T {
  var acc = identity();
  if (4u * k < count) {
    acc = item(bits, 4u * k, v.x);
  }
  if (4u * k + 1u < count) {
    acc = combine(acc, item(bits, 4u * k + 1u, v.y));
  }
  if (4u * k + 2u < count) {
    acc = combine(acc, item(bits, 4u * k + 2u, v.z));
  }
  if (4u * k + 3u < count) {
    acc = combine(acc, item(bits, 4u * k + 3u, v.w));
  }
  return acc;
}

// The raked scan of tile `tile`: from vals (this tile: fills raked_before) or, from_memory, straight from src_vec
// (a full predecessor, the fallback: raked_before untouched). Returns the tile's aggregate, the same bits both
// ways. Uniform control flow.
fn raked_scan(tile: u32, bits: u32, count: u32, li: lane_info, from_memory: bool) -> T {
  var run = identity();
  for (var k = 0u; k < ITEMS; k += 1u) {
    var v = vec4<u32>(vals[4u * k], vals[4u * k + 1u], vals[4u * k + 2u], vals[4u * k + 3u]);
    if (from_memory) {
      v = src_vec[tile * (TILE / 4u) + vec_slot(0u, k, li)];
    }
    let inclusive = subgroup_scan_inclusive(fold4(bits, k, v, count), li);
    let lower = subgroupShuffleUp(inclusive, 1u);  // lane 0 gets no value here
    let total = subgroupShuffle(inclusive, li.size - 1u);
    var before = lower;
    if (k > 0u) {
      before = run;
      if (li.lane > 0u) {
        before = combine(run, lower);
      }
      run = combine(run, total);
    } else {
      run = total;
    }
    if (!from_memory) {
      raked_before[k] = before;
    }
  }
  workgroupBarrier();  // earlier readers of wg_subgroup_totals are done
  let sp = across_subgroups(run, li);
  if (!from_memory && li.id > 0u) {
    for (var k = 0u; k < ITEMS; k += 1u) {
      if (k == 0u && li.lane == 0u) {
        raked_before[k] = sp.before;
      } else {
        raked_before[k] = combine(sp.before, raked_before[k]);
      }
    }
  }
  return sp.total;
}

fn lookback_fallback(tile: u32, l: u32, li: lane_info) -> T {
  let bits = mark_heads(tile, l, li, false);
  return raked_scan(tile, bits, ITEMS4, li, true);
}
//! else
// The serial fold of this invocation's first `count` values (no combine with identity(): a group's value starts
// from its first element, as the CPU twin's).
fn fold_vals(bits: u32, count: u32) -> T {
  if (count == 0u) {
    return identity();
  }
  var acc = item(bits, 0u, vals[0]);
  for (var k = 1u; k < ITEMS4; k += 1u) {
    if (k < count) {
      acc = combine(acc, item(bits, k, vals[k]));
    }
  }
  return acc;
}

// The same fold of invocation l's elements of the full tile `tile`, straight from memory (the fallback).
fn fold_from_memory(tile: u32, l: u32, bits: u32) -> T {
  let v0 = (tile * TILE + l * ITEMS4) / 4u;
  let f = src_vec[v0];
  var acc = item(bits, 0u, f.x);
  acc = combine(acc, item(bits, 1u, f.y));
  acc = combine(acc, item(bits, 2u, f.z));
  acc = combine(acc, item(bits, 3u, f.w));
  for (var j = 1u; j < ITEMS; j += 1u) {
    let v = src_vec[v0 + j];
    acc = combine(acc, item(bits, 4u * j, v.x));
    acc = combine(acc, item(bits, 4u * j + 1u, v.y));
    acc = combine(acc, item(bits, 4u * j + 2u, v.z));
    acc = combine(acc, item(bits, 4u * j + 3u, v.w));
  }
  return acc;
}

// The look-back's fallback: predecessor `tile`'s aggregate pair, as its own workgroup computes it.
fn lookback_fallback(tile: u32, l: u32, li: lane_info) -> T {
  let bits = mark_heads(tile, l, li, false);
  return workgroup_scan(l, fold_from_memory(tile, l, bits), li).aggregate;
}
//! endif

// REDUCE: out[s - 1] for every owned offset index s >= 1 (offsets[s] ends segment s - 1): identity() when the
// segment is empty, else the inclusive value of its last element (wg_inclusive), or `carry` (the tile's
// exclusive prefix) when it ends where the tile starts. Index checks keep broken offsets in bounds (they are
// counted by mark_heads).
fn write_reductions(tile: u32, l: u32, carry: u32) {
  let start = tile * TILE;
  let s1 = bounds[tile + 1u];
  for (var s = max(bounds[tile], 1u) + l; s < s1; s += WG_SIZE) {
    let e = offsets[s];
    let b = offsets[s - 1u];
    if (b == e) {
      out[s - 1u] = bitcast<u32>(v_identity());
    } else if (b < e && e == start) {
      out[s - 1u] = carry;
    } else if (b < e && e > start && e - start <= TILE) {
      out[s - 1u] = wg_inclusive[e - 1u - start];
    }
  }
}

// The pass before: the bounds, and the state cleared (tile t's words by invocation t; the counters and broken[0]
// by the last one), so a call records two dispatches and no clear.
@compute @workgroup_size(WG_SIZE)
fn prepare(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let t = boundary_index(gid, nwg);
  if (t > params.tiles) {
    return;
  }
  tile_bound(t);
  if (t == params.tiles) {
    atomicStore(&state[0], 0u);
    atomicStore(&state[1], 0u);
    atomicStore(&broken[0], 0u);
    return;
  }
  for (var w = 0u; w < 2u * T_WORDS; w += 1u) {
    atomicStore(&state[state_at(t) + w], 0u);
  }
}

@compute @workgroup_size(WG_SIZE)
fn seg_decoupled(@builtin(local_invocation_index) l: u32, li: lane_info) {
  let tile = claim_tile(l);
  if (tile >= params.tiles) {
    return;
  }
  let heads = mark_heads(tile, l, li, true);
  let n = params.n;
  let base = tile * TILE;
  let full = (tile + 1u) * TILE <= n;
  // count: this invocation's elements below n, in k order (a prefix of them in both layouts).
  var count = ITEMS4;
  for (var j = 0u; j < ITEMS; j += 1u) {
    let e = base + 4u * vec_slot(l, j, li);
    if (full) {
      let v = src_vec[e / 4u];
      vals[4u * j] = v.x;
      vals[4u * j + 1u] = v.y;
      vals[4u * j + 2u] = v.z;
      vals[4u * j + 3u] = v.w;
    } else {
      for (var c = 0u; c < 4u; c += 1u) {
        vals[4u * j + c] = 0u;
        if (e + c < n) {
          vals[4u * j + c] = src[e + c];
        } else {
          count = min(count, 4u * j + c);
        }
      }
    }
  }
//! if RAKED
  let aggregate = raked_scan(tile, heads, count, li, false);
//! else
  let parts = workgroup_scan(l, fold_vals(heads, count), li);
  let aggregate = parts.aggregate;
//! endif
  let stress = params.stress != 0u;
  // A tile with a head: combine(prefix, aggregate) is the aggregate whatever the prefix, so its inclusive state
  // is known now (the same bits tile_prefix publishes below). Stress: the held-back tiles wait as everywhere.
  if (l == 0u && tile > 0u && aggregate.x != 0u && !(stress && tile % 3u == 1u)) {
    publish(tile, INCLUSIVE, aggregate);
  }
  let prefix = tile_prefix(tile, l, li, aggregate, identity(), false, params.spin_limit, stress);
  var running = prefix;
//! if RAKED
//! else
  if (l > 0u) {
    running = combine(prefix, parts.exclusive);
  }
//! endif
  let none = bitcast<u32>(v_identity());
  for (var j = 0u; j < ITEMS; j += 1u) {
//! if RAKED
    running = prefix;
    if (raked_has_before(j, li)) {
      running = combine(prefix, raked_before[j]);
    }
//! endif
    let e = base + 4u * vec_slot(l, j, li);
    for (var c = 0u; c < 4u; c += 1u) {
      let k = 4u * j + c;
      var before = running.y;
      if (((heads >> k) & 1u) != 0u) {
        before = none;
        running = vec2<u32>(1u, vals[k]);
      } else {
        running = combine(running, vec2<u32>(0u, vals[k]));
      }
      if (REDUCE) {
        // The element before a head, a vec4's last and the array's last: every segment's last element is one.
        if (c == 3u || e + c + 1u >= n || ((heads >> (k + 1u)) & 1u) != 0u) {
          wg_inclusive[e + c - base] = running.y;
        }
      } else if (params.exclusive != 0u) {
        vals[k] = before;
      } else {
        vals[k] = running.y;
      }
    }
  }
  if (REDUCE) {
    workgroupBarrier();
    write_reductions(tile, l, prefix.y);
    return;
  }
  for (var j = 0u; j < ITEMS; j += 1u) {
    let e = base + 4u * vec_slot(l, j, li);
    if (full) {
      out_vec[e / 4u] = vec4<u32>(vals[4u * j], vals[4u * j + 1u], vals[4u * j + 2u], vals[4u * j + 3u]);
    } else {
      for (var c = 0u; c < 4u; c += 1u) {
        if (e + c < n) {
          out[e + c] = vals[4u * j + c];
        }
      }
    }
  }
}
