// The decoupled look-back with fallback (Smith, Levien & Owens, SPAA 2025): the one copy, used by every
// single-pass kernel (scan/decoupled.wgsl, select/decoupled.wgsl). Tiles are claimed in order from an atomic
// counter (claim_tile), so a tile only ever waits on tiles whose workgroups have started. A tile publishes its
// aggregate (publish_aggregate), then walks back over its predecessors' published states (look_back). A
// predecessor that stays NOT_READY for spin_limit polls is not waited for: the waiting workgroup computes that
// tile's aggregate itself (the importer's lookback_fallback), publishes it, and walks on. No workgroup ever waits
// without bound, so nothing needs a forward-progress guarantee.
//
// Two walks, one chosen by the constant SUBGROUP_LOOKBACK (wgsl_compose's `//! if`, so the other is not compiled):
//   - false: the workgroup reads WINDOW states at once (invocations l < WINDOW), invocation 0 folds them up to
//     the first that is not AGGREGATE, the workgroup meets for the verdict (a barrier per step);
//   - true: subgroup 0 alone reads li.size states at once, a ballot finds the first that is not AGGREGATE, a
//     shuffle tree folds the window in tile order; the workgroup meets only for the verdict (done, or fall
//     back). Needs the subgroup lanes import, a power-of-two subgroup size (4..128) and a 32-bit T (shuffles).
// Both return the same value for an associative combine (float sums may round differently: the folding order
// within a window differs).
// (H200, u32 sum scan at 2^28: subgroup walk 0.82 ms, window walk 0.86 ms, one tile per step 1.47 ms.)
//
// Tile state: 2 * T_WORDS u32 atomics per tile (two for a 32-bit T, four for a 64-bit one), each
// (flag << 16) | one 16-bit piece of the value, written with atomicMax so a state only moves forward
// (NOT_READY < AGGREGATE < INCLUSIVE); a reader trusts a value only when every piece carries the same flag. That
// is sound for any number of pieces because a tile's value under one flag is unique: its AGGREGATE has the same
// bits whoever computes it (the fallback folds as the tile's own workgroup does), and only the tile itself
// publishes its INCLUSIVE value. No 64-bit atomics are needed.
//
// Stress mode (testing::set_lookback_stress; `stress` below): every tile t with t % 3 == 1 holds back its
// aggregate for a while and every tile t with t % 3 == 2 reads its predecessor as NOT_READY, so the fallback runs
// on every driver, however the workgroups happen to be scheduled (the host sets spin_limit = 1 with it).
//
// Contract with the importer:
//   reads   the prelude's T, identity(), combine(a, b) (associative), T_WORDS, t_to_words(), t_from_words();
//           a lanes import (lane_info; with SUBGROUP_LOOKBACK its subgroup fields);
//           const WINDOW (states read at once by the window walk, 1..WG_SIZE), const SUBGROUP_LOOKBACK (bool);
//           fn lookback_fallback(tile: u32, l: u32, li: lane_info) -> T: the aggregate of the full tile `tile`,
//           computed from the input by the whole workgroup (uniform control flow), with the same bits as the
//           tile's own workgroup publishes;
//   binds   `state: array<atomic<u32>>`, cleared before the dispatch: state[0] the tile counter, state[1] counts
//           fallbacks (tests, stats), state[state_at(t) ..] the 2 T_WORDS words of tile t;
//   workgroup memory: wg_tile, wg_flag, wg_walk_tile (u32), wg_prefix (T), WINDOW u32 + WINDOW T;
//   barriers: claim_tile, look_back and tile_prefix contain barriers (workgroupUniformLoad): call them from uniform control
//           flow with every invocation; publish_aggregate and publish contain none.
// The flags and the stress rules come from tile/lookback_core.wgsl, which also walks chains of one-word states
// per invocation (the onesweep sort's one chain per digit); the walks here assume one chain of tiles.
//! import tile/lookback_core.wgsl

const VERDICT_WALK: u32 = 0u;
const VERDICT_INCLUSIVE: u32 = 1u;
const VERDICT_PAST_ZERO: u32 = 2u;
const VERDICT_WAIT: u32 = 3u;

var<workgroup> wg_tile: u32;
var<workgroup> wg_flag: u32;
var<workgroup> wg_walk_tile: u32;
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

struct tile_state {
  flag: u32,  // NOT_READY also when the pieces come from different writes
  value: T,
}

// Tile `tile`'s published state as one reader sees it. `stress`: the reader of tile `reader` sees its
// predecessor as NOT_READY when reader % 3 == 2.
fn read_state(tile: u32, reader: u32, stress: bool) -> tile_state {
  let s = state_at(tile);
  let lo = atomicLoad(&state[s]);
  let hi = atomicLoad(&state[s + 1u]);
  var f = lo >> 16u;
  var consistent = f == (hi >> 16u);
  var w = vec2<u32>((hi << 16u) | (lo & 0xffffu), 0u);
  if (T_WORDS == 2u) {
    let lo2 = atomicLoad(&state[s + 2u]);
    let hi2 = atomicLoad(&state[s + 3u]);
    consistent = consistent && f == (lo2 >> 16u) && f == (hi2 >> 16u);
    w.y = (hi2 << 16u) | (lo2 & 0xffffu);
  }
  if (!consistent || stress_hides(tile, reader, stress)) {
    f = NOT_READY;
  }
  return tile_state(f, t_from_words(w));
}

// Invocation 0 of every tile but the first publishes the tile's aggregate (stress: see the top).
fn publish_aggregate(tile: u32, l: u32, aggregate: T, stress: bool) {
  if (tile == 0u || l != 0u) {
    return;
  }
  if (stress && tile % 3u == 1u) {
    stress_hold_back(1u);
  }
  publish(tile, AGGREGATE, aggregate);
}

// The fallback step of both walks: tile j stayed NOT_READY, so the workgroup computes its aggregate, publishes it
// (its waiters may move on) and counts the fallback. Uniform control flow.
fn fall_back(j: u32, l: u32, li: lane_info) -> T {
  let agg = lookback_fallback(j, l, li);
  if (l == 0u) {
    publish(j, AGGREGATE, agg);
    atomicAdd(&state[1], 1u);
  }
  return agg;
}

struct lookback_result {
  prefix: T,        // combine of the tiles before this one (identity for tile 0)
  inclusive: bool,  // the walk stopped at an INCLUSIVE state (false: it went past tile 0)
}

// prefix = combine of the tiles before `tile`. Call from uniform control flow.
fn look_back(tile: u32, l: u32, li: lane_info, spin_limit: u32, stress: bool) -> lookback_result {
//! if SUBGROUP_LOOKBACK
  return look_back_subgroup(tile, l, li, spin_limit, stress);
//! else
  return look_back_window(tile, l, li, spin_limit, stress);
//! endif
}

// The decoupled step of a tile, whole: publish its aggregate, walk back, and when the walk went past tile 0 add
// `carry_in` (the total of earlier chunks; has_carry false: none), then invocation 0 publishes the tile's
// INCLUSIVE state. Returns the tile's exclusive prefix (in every invocation). Call from uniform control flow.
fn tile_prefix(tile: u32, l: u32, li: lane_info, aggregate: T, carry_in: T, has_carry: bool, spin_limit: u32,
               stress: bool) -> T {
  publish_aggregate(tile, l, aggregate, stress);
  let walked = look_back(tile, l, li, spin_limit, stress);
  var prefix = walked.prefix;
  if (!walked.inclusive && has_carry) {
    prefix = combine(carry_in, prefix);  // the walk reached past tile 0 (or this is tile 0): add earlier chunks
  }
  if (l == 0u) {
    publish(tile, INCLUSIVE, combine(prefix, aggregate));
  }
  return prefix;
}

//! if SUBGROUP_LOOKBACK
fn first_lane(b: vec4<u32>, size: u32) -> u32 {
  if (b.x != 0u) { return firstTrailingBit(b.x); }
  if (b.y != 0u) { return 32u + firstTrailingBit(b.y); }
  if (b.z != 0u) { return 64u + firstTrailingBit(b.z); }
  if (b.w != 0u) { return 96u + firstTrailingBit(b.w); }
  return size;
}

// combine(x[size - 1], ..., x[1], x[0]) over the subgroup's lanes (higher lanes hold earlier tiles), in every lane.
fn fold_window_lanes(x: T, li: lane_info) -> T {
  var v = x;
  for (var d = 1u; d < li.size; d <<= 1u) {
    let earlier = shuffle_down_t(v, d);
    if ((li.lane & (2u * d - 1u)) == 0u) {
      v = combine(earlier, v);
    }
  }
  return shuffle_t(v, 0u);
}

fn look_back_subgroup(tile: u32, l: u32, li: lane_info, spin_limit: u32, stress: bool) -> lookback_result {
  var prefix = identity();
  if (tile == 0u) {
    return lookback_result(prefix, false);
  }
  var j = tile - 1u;  // the latest tile not yet folded into prefix
  var inclusive = false;
  loop {
    if (li.id == 0u) {
      var spins = 0u;
      var verdict = VERDICT_WALK;
      loop {
        var st = tile_state(PAST_TILE_ZERO, identity());
        if (li.lane <= j) {
          st = read_state(j - li.lane, tile, stress);
        }
        let stop = first_lane(subgroupBallot(st.flag != AGGREGATE), li.size);
        var stop_flag = AGGREGATE;
        if (stop < li.size) {
          stop_flag = subgroupShuffle(st.flag, stop);
        }
        // Lanes before the stop, and the stop itself when it is INCLUSIVE, join the prefix.
        var x = st.value;
        if (li.lane > stop || (li.lane == stop && stop_flag != INCLUSIVE)) {
          x = identity();
        }
        prefix = combine(fold_window_lanes(x, li), prefix);
        if (stop == li.size) {
          if (j < li.size) {
            verdict = VERDICT_PAST_ZERO;  // the window ended at tile 0 (AGGREGATE after a fallback): all folded
            break;
          }
          j -= li.size;  // the whole window was AGGREGATE
          spins = 0u;
          continue;
        }
        if (stop_flag == INCLUSIVE) {
          verdict = VERDICT_INCLUSIVE;
          break;
        }
        if (stop_flag == PAST_TILE_ZERO) {
          verdict = VERDICT_PAST_ZERO;
          break;
        }
        // Tile j - stop is not ready.
        if (stop > 0u) {
          j -= stop;
          spins = 0u;
        }
        spins += 1u;
        if (spins >= spin_limit) {
          verdict = VERDICT_WAIT;
          break;
        }
      }
      if (li.lane == 0u) {
        wg_prefix = prefix;
        wg_walk_tile = j;
        wg_flag = verdict;
      }
    }
    let verdict = workgroupUniformLoad(&wg_flag);
    prefix = wg_prefix;
    j = wg_walk_tile;
    if (verdict == VERDICT_INCLUSIVE) {
      inclusive = true;
      break;
    }
    if (verdict == VERDICT_PAST_ZERO) {
      break;
    }
    // VERDICT_WAIT: tile j stayed NOT_READY.
    prefix = combine(fall_back(j, l, li), prefix);
    if (j == 0u) {
      break;
    }
    j -= 1u;
    workgroupBarrier();  // every invocation has read wg_prefix / wg_walk_tile before subgroup 0 writes them again
  }
  return lookback_result(prefix, inclusive);
}
//! else
// Right to left, WINDOW tiles at a time: invocations l < WINDOW read the states of tiles j - l at once,
// invocation 0 folds the window up to the first tile that is not AGGREGATE, and the whole workgroup acts on its
// verdict (uniformly, through workgroupUniformLoad): done, walk on, poll again, or fall back.
fn look_back_window(tile: u32, l: u32, li: lane_info, spin_limit: u32, stress: bool) -> lookback_result {
  var prefix = identity();
  if (tile == 0u) {
    return lookback_result(prefix, false);
  }
  var j = tile - 1u;
  var spins = 0u;
  var inclusive = false;
  loop {
    if (l < WINDOW) {
      var st = tile_state(PAST_TILE_ZERO, identity());
      if (l <= j) {
        st = read_state(j - l, tile, stress);
      }
      wg_window_flag[l] = st.flag;
      wg_window_value[l] = st.value;
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
    prefix = combine(fall_back(j, l, li), prefix);
    if (j == 0u) {
      break;
    }
    j -= 1u;
    spins = 0u;
  }
  return lookback_result(prefix, inclusive);
}
//! endif
