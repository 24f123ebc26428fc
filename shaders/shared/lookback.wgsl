// Decoupled look-back with fallback (Smith, Levien & Owens, SPAA 2025), shared by the single-pass kernels.
// Tiles are claimed in order from an atomic counter (claim_tile), so a tile only ever waits on tiles whose
// workgroups have started. A tile publishes its aggregate, then walks back over its predecessors' published
// states (look_back). A predecessor that stays NOT_READY for spin_limit polls is not waited for: the waiting
// workgroup computes that tile's aggregate itself (lookback_fallback) and moves on. No workgroup ever waits
// without bound, so nothing needs a forward-progress guarantee.
//
// Tile state: two u32 atomics per tile, each (flag << 16) | one 16-bit half of the value, written with atomicMax
// so a state only moves forward (NOT_READY < AGGREGATE < INCLUSIVE); a reader trusts a value only when both
// halves carry the same flag.
//
// Contract with the importing file:
//   - the prelude's T, identity() and combine(a, b) (associative), and a lanes import (lane_info);
//   - const WINDOW: tile states read at once (at most WG_SIZE);
//   - a binding `state: array<atomic<u32>>`, cleared before the dispatch: state[0] the tile counter, state[1]
//     counts fallbacks (for tests), state[2 + 2t] and state[3 + 2t] tile t's state;
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

fn publish(tile: u32, flag: u32, v: T) {
  let b = bitcast<u32>(v);
  atomicMax(&state[2u + 2u * tile], (flag << 16u) | (b & 0xffffu));
  atomicMax(&state[3u + 2u * tile], (flag << 16u) | (b >> 16u));
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
        let lo = atomicLoad(&state[2u + 2u * (j - l)]);
        let hi = atomicLoad(&state[3u + 2u * (j - l)]);
        f = lo >> 16u;
        if (f != (hi >> 16u)) {
          f = NOT_READY;  // halves from two different writes: not yet consistent
        }
        if (stress && tile % 3u == 2u && j - l + 1u == tile) {
          f = NOT_READY;
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
      inclusive = true;
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
