// Decoupled look-back with fallback (Smith, Levien & Owens, SPAA 2025), shared by the single-pass kernels.
// Tiles are claimed in order from an atomic counter (claim_tile), so a tile only ever waits on tiles whose
// workgroups have started. A tile publishes its aggregate, then walks back over its predecessors' published
// states (look_back). A predecessor that stays NOT_READY for spin_limit polls is not waited for: the waiting
// workgroup computes that tile's aggregate itself (lookback_fallback) and moves on. No workgroup ever waits
// without bound, so nothing needs a forward-progress guarantee.
//
// Tile state: 2 * T_WORDS u32 atomics per tile (two for a 32-bit T, four for a 64-bit one), each
// (flag << 16) | one 16-bit piece of the value, written with atomicMax so a state only moves forward
// (NOT_READY < AGGREGATE < INCLUSIVE); a reader trusts a value only when every piece carries the same flag. That
// is sound for any number of pieces because a tile's value under one flag is unique: its AGGREGATE has the same
// bits whoever computes it (the fallback folds as the tile's own workgroup does), and only the tile itself
// publishes its INCLUSIVE value. No 64-bit atomics are needed.
//
// Contract with the importing file:
//   - the prelude's T, identity() and combine(a, b) (associative), T_WORDS, t_to_words() and t_from_words(), and a
//     lanes import (lane_info);
//   - const WINDOW: tile states read at once (at most WG_SIZE);
//   - a binding `state: array<atomic<u32>>`, cleared before the dispatch: state[0] the tile counter, state[1]
//     counts fallbacks (for tests), state[2 + 2 T_WORDS t ...] the 2 T_WORDS words of tile t's state;
//   - fn lookback_fallback(tile: u32, l: u32, li: lane_info) -> T: the aggregate of the full tile `tile`,
//     computed from the input by the whole workgroup (uniform control flow), with the same bits as the tile's own
//     workgroup publishes.

const NOT_READY: u32 = 0u;
const AGGREGATE: u32 = 1u;
const INCLUSIVE: u32 = 2u;

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

// The next tile in order, the same in every invocation.
fn claim_tile(l: u32) -> u32 {
  if (l == 0u) {
    wg_tile = atomicAdd(&state[0], 1u);
  }
  return workgroupUniformLoad(&wg_tile);
}

// The first of tile t's state words.
fn state_at(tile: u32) -> u32 {
  return 2u + 2u * T_WORDS * tile;
}

fn publish(tile: u32, flag: u32, v: T) {
  let w = t_to_words(v);
  let s = state_at(tile);
  atomicMax(&state[s], (flag << 16u) | (w.x & 0xffffu));
  atomicMax(&state[s + 1u], (flag << 16u) | (w.x >> 16u));
  if (T_WORDS == 2u) {
    atomicMax(&state[s + 2u], (flag << 16u) | (w.y & 0xffffu));
    atomicMax(&state[s + 3u], (flag << 16u) | (w.y >> 16u));
  }
}

// Invocation 0 of every tile but the first publishes the tile's aggregate. stress (tests only) holds back every
// third tile's aggregate so that its successor gives up waiting and falls back.
fn publish_aggregate(tile: u32, l: u32, aggregate: T, stress: bool) {
  if (tile == 0u || l != 0u) {
    return;
  }
  if (stress && tile % 3u == 1u) {
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

struct lookback_result {
  prefix: T,        // combine of the tiles before this one (identity for tile 0)
  inclusive: bool,  // the walk stopped at an INCLUSIVE state (false: it went past tile 0)
}

// prefix = combine of the tiles before `tile`, walked right to left, WINDOW tiles at a time: invocations
// l < WINDOW read the states of tiles j - l at once, invocation 0 folds the window up to the first tile that is
// not AGGREGATE, and the whole workgroup acts on its verdict (uniformly, through workgroupUniformLoad): done,
// walk on, poll again, or fall back. Call from uniform control flow.
// (H200, 2026-11-29, u32 sum scan at 2^28: this window 0.87 ms; one tile per step 1.47 ms; invocation 0 walking
// alone with 8 loads in flight and no barriers until a verdict 1.60 ms.)
// `stress` (testing::set_lookback_stress): every tile t with t % 3 == 2 reads its predecessor as NOT_READY, so the
// fallback runs on every driver, however the workgroups happen to be scheduled.
fn look_back(tile: u32, l: u32, li: lane_info, spin_limit: u32, stress: bool) -> lookback_result {
  var prefix = identity();
  if (tile == 0u) {
    return lookback_result(prefix, false);
  }
  var j = tile - 1u;
  var spins = 0u;
  var inclusive = false;
  loop {
    if (l < WINDOW) {
      var f = PAST_TILE_ZERO;
      var v = identity();
      if (l <= j) {
        let s = state_at(j - l);
        let lo = atomicLoad(&state[s]);
        let hi = atomicLoad(&state[s + 1u]);
        f = lo >> 16u;
        var consistent = f == (hi >> 16u);
        var w = vec2<u32>((hi << 16u) | (lo & 0xffffu), 0u);
        if (T_WORDS == 2u) {
          let lo2 = atomicLoad(&state[s + 2u]);
          let hi2 = atomicLoad(&state[s + 3u]);
          consistent = consistent && f == (lo2 >> 16u) && f == (hi2 >> 16u);
          w.y = (hi2 << 16u) | (lo2 & 0xffffu);
        }
        if (!consistent) {
          f = NOT_READY;  // pieces from different writes: not yet consistent
        }
        if (stress && tile % 3u == 2u && j - l + 1u == tile) {
          f = NOT_READY;
        }
        v = t_from_words(w);
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
      inclusive = true;
      break;
    }
    if (verdict == VERDICT_PAST_ZERO) {
      break;
    }
    if (verdict == VERDICT_WALK) {
      if (j < WINDOW) {
        break;  // the window ended at tile 0 (AGGREGATE after a fallback): everything is folded, past tile 0
      }
      j -= WINDOW;  // the whole window was AGGREGATE
      spins = 0u;
      continue;
    }
    // VERDICT_WAIT: tile j - steps is not ready.
    if (steps > 0u) {
      j -= steps;
      spins = 0u;
    }
    spins += 1u;
    if (spins < spin_limit) {
      continue;
    }
    // Fallback: compute the predecessor's aggregate here instead of waiting for its workgroup.
    let agg = lookback_fallback(j, l, li);
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
  return lookback_result(prefix, inclusive);
}
