// The segmented sort's short segments (src/primitives/sort/segmented.cpp): segments of 2 .. SHORT keys, many per
// workgroup, sorted in workgroup memory. Keys compare on the radix sort's transformed bits (sort/keys.wgsl:
// sortable: key kind, float total order with NaNs last, descending complement, bit mask), so the order is exactly
// the device sort's; values (PAIRS) follow their keys; stable.
//
// The keys are cut into tiles of TILE positions (relative to key 0). Workgroup t owns every segment of 2 .. SHORT
// keys that starts in tile t; those keys lie in the window [t TILE, t TILE + WIN), WIN = TILE + SHORT - 1, which
// the workgroup loads coalesced (only the positions of its segments). Each key's rank in its segment is the count
// of keys that go before it (smaller transformed key, or equal and earlier: stable), at most SHORT compares from
// workgroup memory (tiny segments sit in one subgroup's lanes, so the reads are broadcasts). The keys are then
// scattered to their ranks in workgroup memory and written back coalesced. Positions of other segments (length
// 0/1, longer, or started in an earlier tile) are neither read nor written.
//   tile_starts: first[t] = the first segment whose start is >= t TILE (a binary search over the offsets per
//     tile, t = 0 .. tiles), so segments [first[t], first[t + 1]) start in tile t, with SKIP_TILE set where none of
//     them is short. Gated (offsets binned on the GPU in the same submission, gate = its counts): every first[t] =
//     SKIP_TILE unless the binning found short segments and no bad offsets, and invocation 0 writes sort_mid's
//     grid and count (gate[4 .. 8): x, y, 1, count; count 0 on bad offsets) and its larger size class's grid
//     (gate[8 .. 11): the same, or 0 when the binning found no mid segment that long, gate[11]), so that bad
//     offsets leave every key as it was;
//   sort_short: one workgroup per tile.
// Offsets are checked (non-decreasing, the last <= n) before these run, or the gate stops them. Workgroup memory:
// 1 (2 with PAIRS) arrays of WIN u32 (TILE 2048 for keys, 1024 for pairs; SHORT 256: 9.0 or 10.0 KiB).
//! import sort/keys.wgsl
//! import shared/lower_bound.wgsl

// src/primitives/sort/segmented.cpp: short_params.
struct short_params {
  key_kind: u32,
  descending: u32,
  mask_lo: u32,
  mask_hi: u32,
  n: u32,           // keys (positions past n are never loaded)
  n_segments: u32,
  grid_x: u32,      // workgroups per row of the 2-D grid
  tiles: u32,       // ceil(n / TILE)
  gated: u32,       // tile_starts: gate the sorts on the binning's counts (gate)
  max_dim: u32,     // workgroups per grid dimension (sort_mid's indirect grid)
}

@group(0) @binding(0) var<uniform> params: short_params;
@group(0) @binding(1) var<storage, read> offsets: array<u32>;
@group(0) @binding(2) var<storage, read_write> first: array<u32>;
@group(0) @binding(3) var<storage, read_write> keys: array<u32>;
@group(0) @binding(4) var<storage, read_write> vals: array<u32>;
// The GPU binning's counts (segmented_bin.wgsl: [0] mid, [2] bad offsets, [3] short, [11] long mid), then sort_mid's
// indirect grids ([4 .. 8): x, y, 1, count; [8 .. 11): the larger size class's x, y, 1).
@group(0) @binding(5) var<storage, read_write> gate: array<u32>;

@compute @workgroup_size(WG_SIZE)
fn tile_starts(@builtin(local_invocation_index) l: u32, @builtin(workgroup_id) wid: vec3u) {
  let t = (wid.y * params.grid_x + wid.x) * WG_SIZE + l;
  if (t > params.tiles) {
    return;
  }
  // lower_bound of t TILE over offsets[0 ..= n_segments] (non-decreasing)
  if (params.gated != 0u) {
    let broken = gate[2] != 0u;
    if (t == 0u) {
      let mid = select(gate[0], 0u, broken);
      let gx = min(mid, params.max_dim);
      let gy = select(0u, (mid + gx - 1u) / max(gx, 1u), mid != 0u);
      gate[4] = gx;
      gate[5] = gy;
      gate[6] = 1u;
      gate[7] = mid;
      // The larger size class's grid: the same list, or nothing when no mid segment is that long.
      let big = gate[11] != 0u;
      gate[8] = select(0u, gx, big);
      gate[9] = select(0u, gy, big);
      gate[10] = 1u;
    }
    if (broken || gate[3] == 0u) {
      first[t] = SKIP_TILE;
      return;
    }
  }
  let f = offsets_lower_bound(t * TILE, params.n_segments + 1u);
  // Whether a segment of 2 .. SHORT keys starts in tile t, from the first SKIP_LOOK segments starting there (more
  // than that: maybe), so that sort_short leaves a tile without one at once (segments of ~1000: most tiles).
  let next = (t + 1u) * TILE;
  var has_short = false;
  var s = f;
  for (; s < min(f + SKIP_LOOK, params.n_segments); s += 1u) {
    let b = offsets[s];
    if (b >= next) {
      break;
    }
    let len = offsets[s + 1u] - b;
    if (len >= 2u && len <= SHORT) {
      has_short = true;
      break;
    }
  }
  if (s == f + SKIP_LOOK && s < params.n_segments && offsets[s] < next) {
    has_short = true;
  }
  first[t] = f | select(SKIP_TILE, 0u, has_short);
}

const WIN: u32 = TILE + SHORT - 1u;
// first[t]'s top bit: no short segment starts in tile t (segment indices stay below 2^29: the offsets fit one
// binding)
const SKIP_TILE: u32 = 0x80000000u;
const SKIP_LOOK: u32 = 4u;
const WIN_ITEMS: u32 = (WIN + WG_SIZE - 1u) / WG_SIZE;

// First each position's segment, (segment start in the window << 16) | length (0 where not this tile's); each
// invocation then reads its positions' and puts their transformed keys there; after the ranking, the sorted raw keys.
var<workgroup> wk: array<u32, WIN>;
var<workgroup> wv: array<u32, VALS_WIN>;  // PAIRS: the sorted values (VALS_WIN = WIN, else 1)
var<workgroup> w_skip: u32;

// Marks the positions of segment s (starting in the tile at lo) if it has 2 .. SHORT keys. Invocation l starts at
// position l % len of its segment, so that neighbours marking segments of equal length hit different banks.
fn mark_segment(s: u32, lo: u32, l: u32) {
  let b = offsets[s];
  let len = offsets[s + 1u] - b;
  if (len >= 2u && len <= SHORT) {
    let st = b - lo;
    let info = (st << 16u) | len;
    var q = l % len;
    for (var c = 0u; c < len; c += 1u) {
      wk[st + q] = info;
      q += 1u;
      if (q == len) {
        q = 0u;
      }
    }
  }
}

@compute @workgroup_size(WG_SIZE)
fn sort_short(@builtin(local_invocation_index) l: u32, @builtin(workgroup_id) wid: vec3u) {
  let t = wid.y * params.grid_x + wid.x;
  if (t >= params.tiles) {
    return;
  }
  if (l == 0u) {
    w_skip = first[t] & SKIP_TILE;
  }
  if (workgroupUniformLoad(&w_skip) != 0u) {
    return;
  }
  let lo = t * TILE;
  let s0 = first[t] & ~SKIP_TILE;
  let s1 = min(first[t + 1u] & ~SKIP_TILE, params.n_segments);
  for (var i = l; i < WIN; i += WG_SIZE) {
    wk[i] = 0u;
  }
  workgroupBarrier();
  // One invocation per segment marks its positions (at most SHORT each). Past 2 TILE segments (long runs of empty
  // ones), one invocation per position finds the segment starting there (the last one at that position) instead.
  if (s1 - s0 <= 2u * TILE) {
    for (var s = s0 + l; s < s1; s += WG_SIZE) {
      mark_segment(s, lo, l);
    }
  } else {
    for (var p = l; p < TILE; p += WG_SIZE) {
      let x = lo + p;
      var a = s0;
      var z = s1;
      while (a < z) {
        let m = a + (z - a) / 2u;
        if (offsets[m] <= x) {
          a = m + 1u;
        } else {
          z = m;
        }
      }
      if (a > s0 && offsets[a - 1u] == x) {
        mark_segment(a - 1u, lo, l);
      }
    }
  }
  workgroupBarrier();
  // Coalesced loads of the marked positions: raw keys (and values) in registers, transformed keys in wk.
  var rk: array<u32, WIN_ITEMS>;
  var rv: array<u32, WIN_ITEMS>;
  var ri: array<u32, WIN_ITEMS>;
  for (var q = 0u; q < WIN_ITEMS; q += 1u) {
    let i = l + q * WG_SIZE;
    var info = 0u;
    if (i < WIN) {
      info = wk[i];
    }
    ri[q] = info;
    if (info != 0u) {
      let x = keys[lo + i];
      rk[q] = x;
      wk[i] = sortable(x);
      if (PAIRS) {
        rv[q] = vals[lo + i];
      }
    }
  }
  workgroupBarrier();
  // Ranks: the keys of the segment that are smaller, or equal and earlier. One loop over the whole segment, so that
  // the lanes of a subgroup sorting segments of one length take the same number of steps (two loops, before and
  // after i, took the longest of each).
  var dest: array<u32, WIN_ITEMS>;
  for (var q = 0u; q < WIN_ITEMS; q += 1u) {
    let info = ri[q];
    if (info != 0u) {
      let i = l + q * WG_SIZE;
      let st = info >> 16u;
      let e = st + (info & 0xffffu);
      let x = wk[i];
      var r = st;
      for (var j = st; j < e; j += 1u) {
        let y = wk[j];
        r += u32(select(y < x, y <= x, j < i));  // stable: an equal key before i goes before it
      }
      dest[q] = r;
    }
  }
  workgroupBarrier();
  for (var q = 0u; q < WIN_ITEMS; q += 1u) {
    if (ri[q] != 0u) {
      wk[dest[q]] = rk[q];
      if (PAIRS) {
        wv[dest[q]] = rv[q];
      }
    }
  }
  workgroupBarrier();
  for (var q = 0u; q < WIN_ITEMS; q += 1u) {
    if (ri[q] != 0u) {
      let i = l + q * WG_SIZE;
      keys[lo + i] = wk[i];
      if (PAIRS) {
        vals[lo + i] = wv[i];
      }
    }
  }
}
