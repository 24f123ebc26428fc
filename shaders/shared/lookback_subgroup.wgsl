// The look-back of shared/lookback.wgsl walked by subgroup 0 alone (the Decoupled Fallback paper's recipe): its
// lanes read li.size predecessor states at once, a ballot finds the first that is not AGGREGATE, and a shuffle
// tree folds the window in tile order, with no workgroup barrier per step. The workgroup meets only for a verdict:
// done (an INCLUSIVE state, or past tile 0), or a predecessor that stayed NOT_READY for spin_limit polls, whose
// aggregate the whole workgroup then computes (lookback_fallback) before subgroup 0 walks on.
// Same contract and result as look_back (the window's values combine in tile order: for an associative operator
// the same value; float sums may round differently). Needs the subgroup lanes import, a power-of-two subgroup
// size, and a 32-bit T (subgroup shuffles). Call from uniform control flow.

var<workgroup> wg_walk_tile: u32;

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
    let earlier = subgroupShuffleDown(v, d);
    if ((li.lane & (2u * d - 1u)) == 0u) {
      v = combine(earlier, v);
    }
  }
  return subgroupShuffle(v, 0u);
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
        var f = PAST_TILE_ZERO;
        var v = identity();
        if (li.lane <= j) {
          let s = state_at(j - li.lane);
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
            f = NOT_READY;
          }
          if (stress && tile % 3u == 2u && j - li.lane + 1u == tile) {
            f = NOT_READY;
          }
          v = t_from_words(w);
        }
        let stop = first_lane(subgroupBallot(f != AGGREGATE), li.size);
        var stop_flag = AGGREGATE;
        if (stop < li.size) {
          stop_flag = subgroupShuffle(f, stop);
        }
        // Lanes before the stop, and the stop itself when it is INCLUSIVE, join the prefix.
        var x = v;
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
    // VERDICT_WAIT: tile j stayed NOT_READY; the whole workgroup computes its aggregate.
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
    workgroupBarrier();  // every invocation has read wg_prefix / wg_walk_tile before subgroup 0 writes them again
  }
  return lookback_result(prefix, inclusive);
}
