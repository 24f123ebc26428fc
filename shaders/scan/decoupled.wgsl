// Single-pass scan with decoupled look-back and fallback (Smith, Levien & Owens, SPAA 2025).
// Each workgroup claims the next tile from an atomic counter (so a tile only ever waits on tiles whose
// workgroups have started), scans its TILE elements (ITEMS vec4 per invocation, folded serially, then a
// workgroup scan of the per-invocation totals), publishes its aggregate, and walks back over its predecessors'
// published states. A predecessor that stays NOT_READY for spin_limit polls is not waited for: the workgroup
// reduces that tile's input itself (same folding order, so the same bits) and moves on. No workgroup ever waits
// without bound, so the scan needs no forward-progress guarantee.
//
// Tile state: two u32 atomics per tile, each (flag << 16) | one 16-bit half of the value, written with atomicMax
// so a state only moves forward (NOT_READY < AGGREGATE < INCLUSIVE); a reader trusts a value only when both
// halves carry the same flag. state[0] is the tile counter, state[1] counts fallbacks (for tests).
// The workgroup scan (workgroup_scan, lane_info) comes from the lanes import the dispatch layer picks:
// subgroups when the adapter has them, workgroup memory otherwise.
// carry[carry_index] is the total of earlier chunks (an array larger than one binding is scanned in chunks);
// the last tile writes the running total to carry[carry_index + 1].

const NOT_READY: u32 = 0u;
const AGGREGATE: u32 = 1u;
const INCLUSIVE: u32 = 2u;
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
@group(0) @binding(1) var<storage, read> src: array<T>;
@group(0) @binding(2) var<storage, read> src_vec: array<vec4<T>>;
@group(0) @binding(3) var<storage, read_write> dst: array<T>;
@group(0) @binding(4) var<storage, read_write> dst_vec: array<vec4<T>>;
@group(0) @binding(5) var<storage, read_write> state: array<atomic<u32>>;
@group(0) @binding(6) var<storage, read_write> carry: array<T>;

const PAST_TILE_ZERO: u32 = 3u;
const VERDICT_WALK: u32 = 0u;
const VERDICT_INCLUSIVE: u32 = 1u;
const VERDICT_PAST_ZERO: u32 = 2u;
const VERDICT_WAIT: u32 = 3u;

var<workgroup> wg_tile: u32;
var<workgroup> wg_flag: u32;
var<workgroup> wg_prefix: T;
var<workgroup> wg_window_flag: array<u32, WINDOW>;
var<workgroup> wg_window_value: array<T, WINDOW>;
var<private> vals: array<T, ITEMS4>;
// STAGED: loads and stores go through workgroup memory, so that global accesses are coalesced (invocation l
// touches vec4 k * WG_SIZE + l) while each invocation still scans ITEMS consecutive vec4 values.
var<workgroup> wg_stage: array<vec4<T>, STAGE_SIZE>;

// Index into wg_stage of invocation l's j-th vec4, skewed by l / 8 so that the 16-byte reads of eight
// neighbouring invocations fall into different banks.
fn stage_index(l: u32, j: u32) -> u32 {
  return l * ITEMS + (j + l / 8u) % ITEMS;
}

fn publish(tile: u32, flag: u32, v: T) {
  let b = bitcast<u32>(v);
  atomicMax(&state[2u + 2u * tile], (flag << 16u) | (b & 0xffffu));
  atomicMax(&state[3u + 2u * tile], (flag << 16u) | (b >> 16u));
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
  let v0 = (tile * TILE + l * ITEMS4) / 4u;
  let first = src_vec[v0];
  var acc = combine(combine(combine(first.x, first.y), first.z), first.w);
  for (var j = 1u; j < ITEMS; j += 1u) {
    let v = src_vec[v0 + j];
    acc = combine(combine(combine(combine(acc, v.x), v.y), v.z), v.w);
  }
  return acc;
}


@compute @workgroup_size(WG_SIZE)
fn scan(@builtin(local_invocation_index) l: u32, li: lane_info) {
  if (l == 0u) {
    wg_tile = atomicAdd(&state[0], 1u);
  }
  let tile = workgroupUniformLoad(&wg_tile);
  if (tile >= params.tiles) {
    return;
  }
  let full = (tile + 1u) * TILE <= params.n;
  let first = tile * TILE + l * ITEMS4;
  if (full && STAGED) {
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
  let parts = workgroup_scan(l, fold_vals(), li);
  let aggregate = parts.aggregate;
  let thread_prefix = parts.exclusive;

  var carry_in = identity();
  if (params.use_carry != 0u) {
    carry_in = carry[params.carry_index];
  }
  if (tile > 0u && l == 0u) {
    if (params.stress != 0u && tile % 3u == 1u) {
      // Test-only: hold this tile's aggregate back so that its successor gives up waiting and falls back.
      var sink = 0u;
      for (var i = 0u; i < 20000u; i += 1u) {
        sink += atomicLoad(&state[1]);
      }
      if (sink == 0xffffffffu) {
        atomicAdd(&state[1], 0u);
      }
    }
    publish(tile, AGGREGATE, aggregate);
  }

  // Look-back: prefix = combine of the tiles before this one, walked right to left, WINDOW tiles at a time:
  // invocations l < WINDOW read the states of tiles j - l at once, invocation 0 folds the window up to the first
  // tile that is not AGGREGATE, and the whole workgroup acts on its verdict (uniformly, through
  // workgroupUniformLoad): done, walk on, poll again, or fall back.
  // (H200, 2026-11-29, u32 sum at 2^28: this window 0.87 ms; one tile per step 1.47 ms; invocation 0 walking
  // alone with 8 loads in flight and no barriers until a verdict 1.60 ms.)
  var prefix = identity();
  var reached_inclusive = false;
  if (tile > 0u) {
    var j = tile - 1u;
    var spins = 0u;
    loop {
      if (l < WINDOW) {
        var f = PAST_TILE_ZERO;
        var v = identity();
        if (l <= j) {
          let lo = atomicLoad(&state[2u + 2u * (j - l)]);
          let hi = atomicLoad(&state[3u + 2u * (j - l)]);
          f = lo >> 16u;
          if (f != (hi >> 16u)) {
            f = NOT_READY;  // halves from two different writes: not yet consistent
          }
          v = bitcast<T>((hi << 16u) | (lo & 0xffffu));
        }
        wg_window_flag[l] = f;
        wg_window_value[l] = v;
      }
      workgroupBarrier();
      if (l == 0u) {
        var acc = prefix;
        var verdict = VERDICT_WALK;
        var i = 0u;
        for (; i < WINDOW; i += 1u) {
          let f = wg_window_flag[i];
          if (f == AGGREGATE) {
            acc = combine(wg_window_value[i], acc);
            continue;
          }
          if (f == INCLUSIVE) {
            acc = combine(wg_window_value[i], acc);
            verdict = VERDICT_INCLUSIVE;
          } else if (f == PAST_TILE_ZERO) {
            verdict = VERDICT_PAST_ZERO;
          } else {
            verdict = VERDICT_WAIT;  // tile j - i is not ready
          }
          break;
        }
        wg_prefix = acc;
        wg_flag = (i << 2u) | verdict;  // one uniform load carries both
      }
      let packed = workgroupUniformLoad(&wg_flag);
      let verdict = packed & 3u;
      let steps = packed >> 2u;
      prefix = wg_prefix;
      if (verdict == VERDICT_INCLUSIVE) {
        reached_inclusive = true;
        break;
      }
      if (verdict == VERDICT_PAST_ZERO) {
        break;
      }
      if (verdict == VERDICT_WALK) {
        j -= WINDOW;  // the whole window was AGGREGATE (and tile 0 not in it)
        spins = 0u;
        continue;
      }
      // VERDICT_WAIT: tile j - steps is not ready.
      if (steps > 0u) {
        j -= steps;
        spins = 0u;
      }
      spins += 1u;
      if (spins < params.spin_limit) {
        continue;
      }
      // Fallback: reduce the predecessor's tile here instead of waiting for its workgroup.
      let agg = workgroup_scan(l, fold_tile_from_memory(j, l), li).aggregate;
      if (l == 0u) {
        publish(j, AGGREGATE, agg);
        atomicAdd(&state[1], 1u);
      }
      prefix = combine(agg, prefix);
      if (j == 0u) {
        break;
      }
      j -= 1u;
      spins = 0u;
    }
  }
  if (!reached_inclusive && params.use_carry != 0u) {
    prefix = combine(carry_in, prefix);  // the walk reached past tile 0 (or this is tile 0): add earlier chunks
  }
  let inclusive = combine(prefix, aggregate);
  if (l == 0u) {
    publish(tile, INCLUSIVE, inclusive);
    if (tile == params.tiles - 1u) {
      carry[params.carry_index + 1u] = inclusive;
    }
  }

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
