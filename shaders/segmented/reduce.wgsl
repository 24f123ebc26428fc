// Segmented reduce over CSR offsets in one pass over the values: tiles of TILE = WG_SIZE * ITEMS elements,
// whatever the segment lengths (many short segments in one tile, one segment over many tiles).
//   bounds (segmented/bounds.wgsl): tile t owns offsets [bounds[t], bounds[t+1]).
//   tile: per tile, its owned offsets mark group starts in workgroup memory (code s + 1 at a non-empty segment's
//     first element, NONE at offsets[n_seg], what follows the last segment) and write identity() for empty
//     segments; each invocation folds ITEMS consecutive values, and a flag-value workgroup scan
//     (tile/flagged_scan.wgsl) gives it the group open at its start. A segment that starts and ends inside the
//     tile is written here. The tile leaves (has a start, value since its last start) in tiles[2t..2t+1] and, for
//     the segment open at its start that closes inside it (S[t] = tiles[3T + t], NONE if none), that segment's
//     part in this tile in tiles[2T + t].
//   spine_up, spine_top, spine_down: the tile pairs scanned in blocks (contiguous runs of tiles per invocation), and
//     out[S[t]] = carry(t) . tiles[2T + t]: the segments that cross tile boundaries.
// SCAN (a composition constant) turns the passes into a segmented scan (groups start at element 0, at every
// non-empty segment and after the last one): tile_pass only leaves the tile pairs, the spine the carry into each
// tile (tiles[2T + t]), and scan_pass rescans each tile with its carry into out (n values).
// Offsets that decrease or pass n are counted in broken[0] (the dispatch layer turns it into an error); every
// index stays bounded by n, n_seg or TILE whatever the offsets hold. T is one 32-bit word (t_to_words().x).

const TILE: u32 = WG_SIZE * ITEMS;
const NONE: u32 = 0xffffffffu;
const EMPTY_PART: u32 = 0x80000000u;  // in S[t]: the segment has no value in tile t (n_seg < 2^31)

struct segr_params {
  n: u32,
  n_seg: u32,
  tiles: u32,
  grid_x: u32,
  exclusive: u32,
  blocks: u32,
  pad1: u32,
  pad2: u32,
}

@group(0) @binding(0) var<uniform> params: segr_params;
@group(0) @binding(1) var<storage, read> src: array<T>;
@group(0) @binding(2) var<storage, read> offsets: array<u32>;
@group(0) @binding(3) var<storage, read_write> bounds: array<u32>;
@group(0) @binding(4) var<storage, read_write> tiles: array<u32>;
@group(0) @binding(5) var<storage, read_write> out: array<T>;
@group(0) @binding(6) var<storage, read_write> broken: array<atomic<u32>>;

//! import tile/flagged_scan.wgsl
//! import segmented/bounds.wgsl

var<workgroup> wg_code: array<u32, TILE>;

fn emit(code: u32, v: T) {
  if (SCAN == 0u && code != 0u && code != NONE) {
    out[code - 1u] = v;
  }
}

// Group starts of tile t into wg_code (empty segments get identity() in out when SCAN == 0); ends with a barrier.
fn mark_starts(l: u32, t: u32, start: u32) {
  let n = params.n;
  let ns = params.n_seg;
  for (var j = l; j < TILE; j += WG_SIZE) {
    wg_code[j] = 0u;
  }
  workgroupBarrier();
  let s0 = bounds[t];
  let s1 = bounds[t + 1u];
  if (s1 < s0 && l == 0u) {
    atomicAdd(&broken[0], 1u);
  }
  for (var s = s0 + l; s < s1; s += WG_SIZE) {
    let o = offsets[s];
    if (s >= ns) {  // the last offset: what follows it is no segment's
      if (o > n) {
        atomicAdd(&broken[0], 1u);
      } else if (o >= start && o - start < TILE) {
        wg_code[o - start] = NONE;
      }
      continue;
    }
    let e = offsets[s + 1u];
    if (o > e) {
      atomicAdd(&broken[0], 1u);
    } else if (o == e) {
      if (SCAN == 0u) {
        out[s] = identity();
      }
    } else if (o >= start && o - start < TILE) {
      wg_code[o - start] = s + 1u;
    }
  }
  workgroupBarrier();
}

@compute @workgroup_size(WG_SIZE)
fn tile_pass(@builtin(local_invocation_index) l: u32, @builtin(workgroup_id) wid: vec3<u32>) {
  let t = wid.y * params.grid_x + wid.x;
  if (t >= params.tiles) {
    return;
  }
  let n = params.n;
  let ns = params.n_seg;
  let start = t * TILE;
  mark_starts(l, t, start);

  // This invocation's values: groups that start and end here are written at once; `pre` is the part of the
  // group open at its start (code 0 here), `acc` the group open at its end (code `code`).
  let first = start + l * ITEMS;
  var code = 0u;
  var acc = identity();
  var pre = identity();
  var closes = false;  // the group open at this invocation's start closes inside its span
  var pre_empty = false;  // ... at this invocation's first value (no value of it here)
  var started = false;
  for (var k = 0u; k < ITEMS; k += 1u) {
    let i = first + k;
    if (i >= n) {
      break;
    }
    let x = src[i];
    var c = wg_code[l * ITEMS + k];
    if (i == 0u && c == 0u) {
      c = NONE;  // element 0 starts a group (no segment's when offsets[0] > 0)
    }
    if (c != 0u) {
      if (code == 0u) {
        pre = acc;
        pre_empty = !started;
        closes = true;
      } else {
        emit(code, acc);
      }
      code = c;
      acc = x;
    } else if (!started) {
      acc = x;
    } else {
      acc = combine(acc, x);
    }
    started = true;
  }
  let has_last = first < n && n - first <= ITEMS;  // the array's last element is here: its group closes
  if (has_last) {
    if (code == 0u) {
      pre = acc;
      closes = true;
    } else {
      emit(code, acc);
    }
  }
  var mine = flagged(code, acc);
  if (code == 0u && closes) {
    mine = flagged(0u, pre);  // only when has_last: nothing after it is read
  }
  let r = flagged_scan(l, mine);
  if (closes && SCAN == 0u) {
    // No combine with identity(): the CPU twin starts every segment from its first value (exact for every op).
    var v = r.exclusive.v;
    if (!pre_empty) {
      v = select(combine(v, pre), pre, l == 0u && r.exclusive.f == 0u);
    }
    if (r.exclusive.f != 0u) {
      emit(r.exclusive.f, v);
    } else {
      // The segment open at the tile's start (it began in an earlier tile, or it is no segment) closes here.
      let T_ = params.tiles;
      let bp = bounds[t];
      var sp = NONE;
      if (t > 0u && bp > 0u && bp <= ns) {
        sp = bp - 1u;
        if (l == 0u && pre_empty) {
          sp |= EMPTY_PART;  // the segment ends at the tile's start: its value is the carry alone
        }
      }
      tiles[2u * T_ + t] = t_to_words(v).x;
      tiles[3u * T_ + t] = sp;
    }
  }
  if (l == WG_SIZE - 1u) {
    tiles[2u * t] = select(0u, 1u, r.total.f != 0u);
    tiles[2u * t + 1u] = t_to_words(r.total.v).x;
  }
  // No invocation closes the tile's opening segment: say so.
  let tile_has_last = start < n && n - start <= TILE;
  if (l == 0u && r.total.f == 0u && !tile_has_last && SCAN == 0u) {
    tiles[3u * params.tiles + t] = NONE;
  }
}

fn tile_pair(t: u32) -> flagged {
  return flagged(tiles[2u * t], t_from_words(vec2<u32>(tiles[2u * t + 1u], 0u)));
}

// The spine over tiles, in blocks of SPINE_BLOCK = WG_SIZE * SPINE_K tiles (SPINE_K consecutive tiles per
// invocation): spine_up folds each block into tiles[4T + 2b..], spine_top (one workgroup) scans the block pairs
// into the carry of each block (tiles[4T + 2B + b]), spine_down rescans each block with its carry. With one block
// (params.blocks == 1) only spine_down runs, with carry identity().
const SPINE_BLOCK: u32 = WG_SIZE * SPINE_K;

fn block_carry_slot(b: u32) -> u32 {
  return 4u * params.tiles + 2u * params.blocks + b;
}

// Invocation l's first tile in spine block b (it folds SPINE_K consecutive tiles from there).
fn block_first_tile(l: u32, b: u32) -> u32 {
  return min(b * SPINE_BLOCK + l * SPINE_K, params.tiles);
}

// The flagged scan over spine block b of each invocation's fold of its SPINE_K tiles (spine_up and spine_down).
// Contains the barriers of flagged_scan: call it from uniform control flow.
fn scan_block_tiles(l: u32, b: u32) -> flagged_scan_result {
  let first = block_first_tile(l, b);
  let last = min(first + SPINE_K, params.tiles);
  var p = flagged(0u, identity());
  for (var t = first; t < last; t += 1u) {
    p = flagged_combine(p, tile_pair(t));
  }
  return flagged_scan(l, p);
}

@compute @workgroup_size(WG_SIZE)
fn spine_up(@builtin(local_invocation_index) l: u32, @builtin(workgroup_id) wid: vec3<u32>) {
  let T_ = params.tiles;
  let b = wid.x;
  let r = scan_block_tiles(l, b);
  if (l == 0u) {
    tiles[4u * T_ + 2u * b] = r.total.f;
    tiles[4u * T_ + 2u * b + 1u] = t_to_words(r.total.v).x;
  }
}

@compute @workgroup_size(WG_SIZE)
fn spine_top(@builtin(local_invocation_index) l: u32) {
  let nb = params.blocks;
  let per = (nb + WG_SIZE - 1u) / WG_SIZE;
  let first = min(l * per, nb);
  let last = min(first + per, nb);
  let base = 4u * params.tiles;
  var p = flagged(0u, identity());
  for (var b = first; b < last; b += 1u) {
    p = flagged_combine(p, flagged(tiles[base + 2u * b], t_from_words(vec2<u32>(tiles[base + 2u * b + 1u], 0u))));
  }
  let r = flagged_scan(l, p);
  var c = r.exclusive;
  for (var b = first; b < last; b += 1u) {
    tiles[block_carry_slot(b)] = t_to_words(c.v).x;
    c = flagged_combine(c, flagged(tiles[base + 2u * b], t_from_words(vec2<u32>(tiles[base + 2u * b + 1u], 0u))));
  }
}

@compute @workgroup_size(WG_SIZE)
fn spine_down(@builtin(local_invocation_index) l: u32, @builtin(workgroup_id) wid: vec3<u32>) {
  let T_ = params.tiles;
  let b = wid.x;
  let first = block_first_tile(l, b);
  let last = min(first + SPINE_K, T_);
  let r = scan_block_tiles(l, b);
  // The block's carry leads (its flag does not matter: only values are carried).
  var c = r.exclusive;
  if (params.blocks > 1u) {
    let carry = t_from_words(vec2<u32>(tiles[block_carry_slot(b)], 0u));
    if (c.f == 0u) {
      if (l == 0u) {
        c.v = carry;
      } else {
        c.v = combine(carry, c.v);
      }
    }
  }
  for (var t = first; t < last; t += 1u) {
    if (SCAN != 0u) {
      tiles[2u * T_ + t] = t_to_words(c.v).x;  // the carry into tile t
      c = flagged_combine(c, tile_pair(t));
      continue;
    }
    let s = tiles[3u * T_ + t];
    if (s != NONE && (s & ~EMPTY_PART) < params.n_seg) {
      if ((s & EMPTY_PART) != 0u) {
        out[s & ~EMPTY_PART] = c.v;
      } else {
        out[s] = combine(c.v, t_from_words(vec2<u32>(tiles[2u * T_ + t], 0u)));
      }
    }
    c = flagged_combine(c, tile_pair(t));
  }
}

// SCAN: the tile again with its carry: out[i] = the inclusive (or, with params.exclusive, exclusive) scan of
// element i's group.
@compute @workgroup_size(WG_SIZE)
fn scan_pass(@builtin(local_invocation_index) l: u32, @builtin(workgroup_id) wid: vec3<u32>) {
  let t = wid.y * params.grid_x + wid.x;
  if (t >= params.tiles) {
    return;
  }
  let n = params.n;
  let start = t * TILE;
  mark_starts(l, t, start);
  let first = start + l * ITEMS;
  var p = flagged(0u, identity());
  for (var k = 0u; k < ITEMS; k += 1u) {
    let i = first + k;
    if (i >= n) {
      break;
    }
    var c = wg_code[l * ITEMS + k];
    if (i == 0u) {
      c = NONE;
    }
    if (c != 0u) {
      p = flagged(c, src[i]);
    } else if (k == 0u) {
      p.v = src[i];
    } else {
      p.v = combine(p.v, src[i]);
    }
  }
  let r = flagged_scan(l, p);
  let carry = t_from_words(vec2<u32>(tiles[2u * params.tiles + t], 0u));
  var running = carry;
  if (r.exclusive.f != 0u) {
    running = r.exclusive.v;
  } else if (l > 0u) {
    running = combine(carry, r.exclusive.v);
  }
  for (var k = 0u; k < ITEMS; k += 1u) {
    let i = first + k;
    if (i >= n) {
      break;
    }
    let x = src[i];
    var before = running;
    if (i == 0u || wg_code[l * ITEMS + k] != 0u) {
      before = identity();
      running = x;
    } else {
      running = combine(running, x);
    }
    if (params.exclusive != 0u) {
      out[i] = before;
    } else {
      out[i] = running;
    }
  }
}
