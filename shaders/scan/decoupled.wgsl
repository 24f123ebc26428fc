// Single-pass scan with decoupled look-back and fallback (Smith, Levien & Owens, SPAA 2025; the look-back is
// tile/lookback.wgsl). Each workgroup claims the next tile from an atomic counter, scans its TILE elements
// (ITEMS vec4 per invocation, folded serially, then a workgroup scan of the per-invocation totals), publishes
// its aggregate, and walks back over its predecessors' published states. A predecessor that stays NOT_READY for
// spin_limit polls is not waited for: the workgroup reduces that tile's input itself (same folding order, so the
// same bits) and moves on.
//
// Three layouts of a full tile (the policy picks one; a partial last tile always takes the direct, bounds-checked
// path, and is nobody's predecessor): direct (invocation l scans vec4 l * ITEMS .. l * ITEMS + ITEMS - 1, loaded
// straight from memory), STAGED (the same assignment, loads and stores coalesced through workgroup memory) and
// RAKED (one contiguous chunk per subgroup, lanes interleaved vec4 by vec4, scanned with subgroup operations:
// scan/tile_raked.wgsl, composed in only when RAKED is true, as is every line that calls it).
//
// The walk back over predecessors is tile/lookback.wgsl's (SUBGROUP_LOOKBACK picks its walk).
//
// state[0] is the tile counter, state[1] counts fallbacks (for tests), then 2 T_WORDS u32 per tile (the import).
// The workgroup scan (workgroup_scan, lane_info) comes from the lanes import the dispatch layer picks:
// subgroups when the adapter has them, workgroup memory otherwise.
// carry[carry_index] is the total of earlier chunks (an array larger than one binding is scanned in chunks);
// the last tile writes the running total to carry[carry_index + 1].
// VIEW_FUSED: the input is a view (tile/load.wgsl's load_input, then the prelude's lift: a transform view's
// expression) read with scalar loads in the direct layout; src then holds E, the view's element type.
//! import tile/lookback.wgsl
//! import tile/load.wgsl
//! if RAKED
//! import scan/tile_raked.wgsl
//! endif

const ITEMS4: u32 = ITEMS * 4u;
const TILE: u32 = WG_SIZE * ITEMS * 4u;

struct scan_params {
  n: u32,
  tiles: u32,
  grid_x: u32,
  exclusive: u32,
  use_carry: u32,
  carry_index: u32,
  spin_limit: u32,
  stress: u32,
}

@group(0) @binding(0) var<uniform> params: scan_params;
@group(0) @binding(1) var<storage, read> src: array<E>;
//! if VIEW_GATHER
@group(0) @binding(2) var<storage, read> view_index: array<u32>;
//! else
@group(0) @binding(2) var<storage, read> src_vec: array<vec4<T>>;
//! endif
@group(0) @binding(3) var<storage, read_write> dst: array<T>;
@group(0) @binding(4) var<storage, read_write> dst_vec: array<vec4<T>>;
@group(0) @binding(5) var<storage, read_write> state: array<atomic<u32>>;
@group(0) @binding(6) var<storage, read_write> carry: array<T>;

var<private> vals: array<T, ITEMS4>;
// STAGED: loads and stores go through workgroup memory, so that global accesses are coalesced (invocation l
// touches vec4 k * WG_SIZE + l) while each invocation still scans ITEMS consecutive vec4 values.
var<workgroup> wg_stage: array<vec4<T>, STAGE_SIZE>;

// Index into wg_stage of invocation l's j-th vec4, skewed by l / 8 so that the 16-byte reads of eight
// neighbouring invocations fall into different banks.
fn stage_index(l: u32, j: u32) -> u32 {
  return l * ITEMS + (j + l / 8u) % ITEMS;
}

// Serial fold of this invocation's elements, in the order the fallback repeats.
fn fold_vals() -> T {
  var acc = vals[0];
  for (var k = 1u; k < ITEMS4; k += 1u) {
    acc = combine(acc, vals[k]);
  }
  return acc;
}

// The same fold straight from memory, for a full tile of a predecessor (fallback).
fn fold_tile_from_memory(tile: u32, l: u32) -> T {
//! if VIEW_FUSED
  let first = tile * TILE + l * ITEMS4;
  var acc = lift(load_input(first));
  for (var k = 1u; k < ITEMS4; k += 1u) {
    acc = combine(acc, lift(load_input(first + k)));
  }
  return acc;
//! else
  let v0 = (tile * TILE + l * ITEMS4) / 4u;
  let first = src_vec[v0];
  var acc = combine(combine(combine(first.x, first.y), first.z), first.w);
  for (var j = 1u; j < ITEMS; j += 1u) {
    let v = src_vec[v0 + j];
    acc = combine(combine(combine(combine(acc, v.x), v.y), v.z), v.w);
  }
  return acc;
//! endif
}

// The look-back's fallback: a predecessor's aggregate, folded and combined exactly as its own workgroup does
// (predecessors are full tiles, so in the layout the policy picked).
fn lookback_fallback(tile: u32, l: u32, li: lane_info) -> T {
//! if RAKED
  return raked_tile_aggregate(tile, li);
//! else
  return workgroup_scan(l, fold_tile_from_memory(tile, l), li).aggregate;
//! endif
}


@compute @workgroup_size(WG_SIZE)
fn scan(@builtin(local_invocation_index) l: u32, li: lane_info) {
  let tile = claim_tile(l);
  if (tile >= params.tiles) {
    return;
  }
  let full = (tile + 1u) * TILE <= params.n;
  let first = tile * TILE + l * ITEMS4;
  let raked = full && RAKED;
//! if VIEW_FUSED
  for (var k = 0u; k < ITEMS4; k += 1u) {
    vals[k] = identity();
    if (first + k < params.n) {
      vals[k] = lift(load_input(first + k));
    }
  }
//! else
  if (raked) {
    // loaded and scanned below
  } else if (full && STAGED) {
    let tile_vec = tile * TILE / 4u;
    for (var k = 0u; k < ITEMS; k += 1u) {
      let g = k * WG_SIZE + l;             // coalesced global vec4 index within the tile
      let owner = g / ITEMS;               // the invocation that scans it, as its (g % ITEMS)-th vec4
      wg_stage[stage_index(owner, g % ITEMS)] = src_vec[tile_vec + g];
    }
    workgroupBarrier();
    for (var j = 0u; j < ITEMS; j += 1u) {
      let v = wg_stage[stage_index(l, j)];
      vals[4u * j] = v.x;
      vals[4u * j + 1u] = v.y;
      vals[4u * j + 2u] = v.z;
      vals[4u * j + 3u] = v.w;
    }
  } else if (full) {
    for (var j = 0u; j < ITEMS; j += 1u) {
      let v = src_vec[first / 4u + j];
      vals[4u * j] = v.x;
      vals[4u * j + 1u] = v.y;
      vals[4u * j + 2u] = v.z;
      vals[4u * j + 3u] = v.w;
    }
  } else {
    for (var k = 0u; k < ITEMS4; k += 1u) {
      vals[k] = identity();
      if (first + k < params.n) {
        vals[k] = src[first + k];
      }
    }
  }
//! endif
  var aggregate: T;
  var thread_prefix: T;
//! if RAKED
  if (raked) {
    aggregate = raked_load_scan(tile, li);
  } else {
//! else
  {
//! endif
    let parts = workgroup_scan(l, fold_vals(), li);
    aggregate = parts.aggregate;
    thread_prefix = parts.exclusive;
  }

  var carry_in = identity();
  if (params.use_carry != 0u) {
    carry_in = carry[params.carry_index];
  }
  let prefix = tile_prefix(tile, l, li, aggregate, carry_in, params.use_carry != 0u, params.spin_limit,
                           params.stress != 0u);
  if (l == 0u && tile == params.tiles - 1u) {
    carry[params.carry_index + 1u] = combine(prefix, aggregate);
  }

//! if RAKED
  if (raked) {
    // Each vec4 is scanned behind its own prefix: this invocation's vec4 j and j + 1 are not neighbours in the
    // array (the other lanes' vec4 lie between them).
    for (var j = 0u; j < ITEMS; j += 1u) {
      let has_prefix = raked_has_prefix(j, li);
      var running = prefix;
      if (has_prefix) {
        running = combine(prefix, raked_prefix[j]);
      }
      for (var c = 0u; c < 4u; c += 1u) {
        let k = 4u * j + c;
        if (params.exclusive != 0u) {
          let x = vals[k];
          vals[k] = running;
          running = combine(running, x);
        } else {
          if (tile == 0u && !has_prefix && c == 0u && params.use_carry == 0u) {
            running = vals[k];  // keep the first element's bits (no combine with the identity)
          } else {
            running = combine(running, vals[k]);
          }
          vals[k] = running;
        }
      }
    }
  } else {
//! else
  {
//! endif
    var running = prefix;
    if (l > 0u) {
      running = combine(prefix, thread_prefix);
    }
    if (params.exclusive != 0u) {
      for (var k = 0u; k < ITEMS4; k += 1u) {
        let x = vals[k];
        vals[k] = running;
        running = combine(running, x);
      }
    } else {
      for (var k = 0u; k < ITEMS4; k += 1u) {
        if (tile == 0u && l == 0u && k == 0u && params.use_carry == 0u) {
          running = vals[0];  // keep the first element's bits (no combine with the identity)
        } else {
          running = combine(running, vals[k]);
        }
        vals[k] = running;
      }
    }
  }
//! if RAKED
  if (raked) {
    raked_store(tile, li);
  } else
//! endif
  if (full && STAGED) {
    workgroupBarrier();  // every invocation has read its staged input
    for (var j = 0u; j < ITEMS; j += 1u) {
      wg_stage[stage_index(l, j)] = vec4<T>(vals[4u * j], vals[4u * j + 1u], vals[4u * j + 2u], vals[4u * j + 3u]);
    }
    workgroupBarrier();
    let tile_vec = tile * TILE / 4u;
    for (var k = 0u; k < ITEMS; k += 1u) {
      let g = k * WG_SIZE + l;
      dst_vec[tile_vec + g] = wg_stage[stage_index(g / ITEMS, g % ITEMS)];
    }
  } else if (full) {
    for (var j = 0u; j < ITEMS; j += 1u) {
      dst_vec[first / 4u + j] = vec4<T>(vals[4u * j], vals[4u * j + 1u], vals[4u * j + 2u], vals[4u * j + 3u]);
    }
  } else {
    for (var k = 0u; k < ITEMS4; k += 1u) {
      if (first + k < params.n) {
        dst[first + k] = vals[k];
      }
    }
  }
}
