// One digit pass of the Onesweep radix sort (Adinets & Merrill, 2022) with the decoupled fallback of our scan
// (Smith, Levien & Owens, SPAA 2025), so that it needs no forward-progress guarantee.
// The dispatch runs slot params.slot of the plan (sort/buffers.wgsl): which pass, which buffer it reads and which
// it writes, all read from the state buffer; an inactive slot returns at once. Each workgroup claims the next tile
// of TILE = WG_SIZE * ITEMS keys from the slot's atomic counter (a tile only waits on tiles whose workgroups have
// started), keeps its keys in registers (loaded by one loop of plain loads per buffer the plan may pick: a branch
// on the buffer at every key cost 9 % of a pass on the H200), then (WG_SIZE is RADIX or a multiple of it: invocations d < RADIX own
// digit d in the per-digit steps, the others only rank, count and scatter):
// 1. ranks its keys: each subgroup owns a contiguous segment of ITEMS * subgroup_size keys, read striped (lane i
//    reads element k * size + i: coalesced); per key, eight ballots find the lanes with the same digit (only the
//    first ballot word when the subgroup has at most 32 lanes, all four otherwise: any size 4..128), the lowest of
//    them adds their number to the subgroup's running count of that digit in workgroup memory, and each key's rank
//    is that count plus its peers in lower lanes (RANK_MATCH, NVIDIA's policy: the peers from a match word per
//    subgroup and digit instead of the ballots). RANK_ATOMIC (the GPU policy) bumps the count with a workgroup
//    atomic and needs no barrier per key; otherwise (CPU adapters, whose workgroup atomics are slow) a workgroup
//    barrier orders each key's step. At most SLOTS subgroups rank at once (their histograms fill the
//    pool); more subgroups (small subgroup sizes) rank in phases, each continuing the counts of the previous ones.
//    Then the subgroup counts are scanned per digit: every key has its rank among the tile's keys of its digit, in
//    input order (stable). With one phase and FOLDED (GPUs: subgroups of 16 lanes or more) the tile's digit starts
//    are scanned right then and added into the slots' prefixes, so each key's rank is its place in the tile after
//    one lookup; otherwise the starts are added after the look-back. Only the slots in use are zeroed and scanned.
// 2. publishes its digit counts per (tile, digit) (with EARLY, before step 1, from a workgroup histogram of its
//    keys, as CUB's early counts) and looks back for each digit's prefix: invocation d owns digit
//    d (d < RADIX) and walks digit d's chain back on its own (tile/lookback_core.wgsl's walk_word_chain), without
//    barriers, reading WINDOW predecessor states at once and polling a NOT_READY one alone; it publishes its
//    INCLUSIVE prefix as soon as it has it. A digit whose predecessor stays NOT_READY for spin_limit polls stops;
//    then the workgroup meets, and if any digit stopped, counts the highest such tile's digits itself from its
//    keys and publishes them (the same values that tile publishes), and the stopped digits walk on.
// 3. writes its keys (each word of 64-bit keys in turn, then its values) into workgroup memory in sorted order,
//    and from there to the output in order of sorted position: consecutive invocations write consecutive addresses
//    within a digit's run. With ROUNDS > 1 the pool holds CHUNK sorted positions at a time and round r stages and
//    writes positions [r * CHUNK, (r + 1) * CHUNK): less workgroup memory for two barriers more per round.
// Tile state: one u32 per (tile, digit) at states_of(slot) + tile * RADIX + digit, lookback_core's one-word state
// (flag << 30) | count, written with atomicMax so it only moves forward; counts fit in 30 bits as n < 2^30.
// The missing keys of the last tile rank as digit 255 after every real key and are never written or counted.
//! import sort/buffers.wgsl
//! import tile/lookback_core.wgsl

const TILE: u32 = WG_SIZE * ITEMS;
// CHUNK_ITEMS = ITEMS / ROUNDS comes from the host (a whole number there: ITEMS is a multiple of ROUNDS) so that
// the loops over it can be unrolled.
const CHUNK: u32 = WG_SIZE * CHUNK_ITEMS;
const INACTIVE: u32 = 0xffffffffu;
const COPY_INPUT: u32 = 0xfffffffeu;  // slot 0 with no active pass, not in place: the tile's keys copied IN -> X

// The subgroup histograms while ranking (atomics for RANK_ATOMIC), then the tile in sorted order.
//! if RANK_ATOMIC
var<workgroup> wg_pool: array<atomic<u32>, POOL>;

fn pool_get(i: u32) -> u32 {
  return atomicLoad(&wg_pool[i]);
}

fn pool_set(i: u32, v: u32) {
  atomicStore(&wg_pool[i], v);
}
//! else
var<workgroup> wg_pool: array<u32, POOL>;

fn pool_get(i: u32) -> u32 {
  return wg_pool[i];
}

fn pool_set(i: u32, v: u32) {
  wg_pool[i] = v;
}
//! endif
var<workgroup> wg_bins: array<atomic<u32>, RADIX>;   // a predecessor's digit counts (fallback)
var<workgroup> wg_count: array<u32, RADIX>;          // counts of the ranked keys, then the tile's digit starts
var<workgroup> wg_global: array<u32, RADIX>;         // output index of sorted position 0 of the tile, per digit
var<workgroup> wg_tile: u32;
var<workgroup> wg_n: u32;
var<workgroup> wg_uniform: u32;
var<workgroup> wg_stuck: atomic<u32>;

// The tile states of slot j: two regions of params.tiles * RADIX words, used by slots in turn. The host zeroes
// region 0 before slot 0; every tile of slot j zeroes its own states in the other region for slot j + 1, which
// runs after the whole of slot j (a later dispatch), while slot j - 1, the last to use it, is done.
fn states_of(j: u32) -> u32 {
  return TILE_STATES + (j % 2u) * params.tiles * RADIX;
}

// Lanes below `lane`, as a ballot.
fn lower_lanes(lane: u32) -> vec4<u32> {
  var m = vec4<u32>(0u);
  for (var w = 0u; w < 4u; w += 1u) {
    let first = w * 32u;
    if (lane >= first + 32u) {
      m[w] = 0xffffffffu;
    } else if (lane > first) {
      m[w] = (1u << (lane - first)) - 1u;
    }
  }
  return m;
}

// What key_digit needs of the invocation's tile (set once per tile).
var<private> p_first: u32;  // the index in the tile of the invocation's first key
var<private> p_step: u32;   // between its keys (the subgroup size)
var<private> p_valid: u32;  // the tile's keys
var<private> p_pass: u32;

// The digit of the invocation's k-th key (lo, hi); the tile's missing keys take digit 255, after every real key.
fn key_digit(k: u32, lo: u32, hi: u32) -> u32 {
  return select(255u, digit_of(vec2<u32>(lo, hi), p_pass), p_first + k * p_step < p_valid);
}

// RELOAD: each key's digit computed once after the loads and kept packed, four to a word, so that the keys
// themselves need no registers while the tile ranks and looks back; the scatter reads them again, word by word for
// 64-bit keys (the tile was just read: from the caches).
const DIG_WORDS: u32 = (ITEMS + 3u) / 4u;
var<private> p_dig: array<u32, DIG_WORDS>;

// The digit of the invocation's k-th key: packed (RELOAD) or taken again from the key.
fn digit_at(k: u32, lo: u32, hi: u32) -> u32 {
  if (RELOAD) {
    return (p_dig[k / 4u] >> ((k % 4u) * 8u)) & 0xffu;
  }
  return key_digit(k, lo, hi);
}

fn popcount4(v: vec4<u32>) -> u32 {
  let c = countOneBits(v);
  return c.x + c.y + c.z + c.w;
}

fn lowest_lane(v: vec4<u32>) -> u32 {
  if (v.x != 0u) {
    return firstTrailingBit(v.x);
  }
  if (v.y != 0u) {
    return 32u + firstTrailingBit(v.y);
  }
  if (v.z != 0u) {
    return 64u + firstTrailingBit(v.z);
  }
  return 96u + firstTrailingBit(v.w);
}

// The lanes of the subgroup whose digit is d (the caller's own included), from eight ballots.
fn peers_of(d: u32, everyone: vec4<u32>, narrow: bool) -> vec4<u32> {
  if (narrow) {  // at most 32 lanes: one ballot word
    var m = everyone.x;
    for (var b = 0u; b < 8u; b += 1u) {
      let bit_set = ((d >> b) & 1u) != 0u;
      let ballot = subgroupBallot(bit_set).x;
      m &= select(~ballot, ballot, bit_set);
    }
    return vec4<u32>(m, 0u, 0u, 0u);
  }
  var m = everyone;
  for (var b = 0u; b < 8u; b += 1u) {
    let bit_set = ((d >> b) & 1u) != 0u;
    let ballot = subgroupBallot(bit_set);
    m &= select(~ballot, ballot, bit_set);
  }
  return m;
}

// Publishes the tile's count of digit l (l < RADIX): INCLUSIVE for tile 0, else AGGREGATE. Under stress, tiles
// t % 3 == 1 hold theirs back first (their successors then fall back). Called by every invocation (a barrier inside,
// in control flow uniform over the workgroup: tile comes from workgroupUniformLoad).
fn publish_counts(tile: u32, own: u32, l: u32, count: u32) {
  if (tile == 0u) {
    if (l < RADIX) {
      atomicMax(&state[own], (INCLUSIVE << 30u) | count);
    }
    return;
  }
  if (params.stress != 0u && tile % 3u == 1u) {
    if (l == 0u) {
      stress_hold_back(8u + params.slot);
    }
    workgroupBarrier();
  }
  if (l < RADIX) {
    atomicMax(&state[own], (AGGREGATE << 30u) | count);
  }
}

@compute @workgroup_size(WG_SIZE)
fn onesweep(@builtin(local_invocation_index) l: u32, li: lane_info) {
  if (l == 0u) {
    let p = plan_of(params.slot);
    var packed = INACTIVE;
    if (p.on) {
      wg_tile = atomicAdd(&state[params.slot], 1u);
      packed = p.dpass | (p.src << 8u) | (p.dst << 16u);
    } else if (params.slot == 0u && params.in_place == 0u) {
      // No pass is active (every key shares each compared digit): the input is the sorted output, and slot 0 copies
      // it to X, the finish kernel's work for this case (the host records no finish for the onesweep).
      wg_tile = atomicAdd(&state[0u], 1u);
      packed = COPY_INPUT;
    }
    wg_uniform = packed;
    wg_n = sort_n();
    atomicStore(&wg_stuck, 0u);
  }
  let packed = workgroupUniformLoad(&wg_uniform);
  if (packed == INACTIVE) {
    return;  // the plan skips this slot
  }
  let tile = workgroupUniformLoad(&wg_tile);
  let n = workgroupUniformLoad(&wg_n);
  if (tile >= params.tiles || tile * TILE >= n) {
    return;  // past the keys (a counted range's tiles past its count: nothing waits on them)
  }
  if (packed == COPY_INPUT) {
    // The tile's key words (the tiles' word ranges cover every value index below n too).
    for (var k = 0u; k < ITEMS * KEY_WORDS; k += 1u) {
      copy_word_to_x(ROLE_IN, tile * TILE * KEY_WORDS + k * WG_SIZE + l, n);
    }
    return;
  }
  if (l < RADIX) {
    atomicStore(&state[states_of(params.slot + 1u) + tile * RADIX + l], 0u);  // for the next slot
  }
  let states = states_of(params.slot);
  let dpass = packed & 0xffu;
  let src = (packed >> 8u) & 0xffu;
  let dst = packed >> 16u;
  let base = tile * TILE;
  let valid = min(TILE, n - base);
  if (l < RADIX) {
    wg_count[l] = 0u;
  }

  // 1. Rank.
  let segment = li.id * ITEMS * li.size;
  // Each key's digit is taken again where it is needed (key_digit) rather than kept in a register array: fewer live
  // registers while ranking, more tiles resident (H200: 4.84 against 6.07 ms per pass of the split atomic ranking).
  p_first = segment + li.lane;
  p_step = li.size;
  p_valid = valid;
  p_pass = dpass;
  var key_lo: array<u32, ITEMS>;
  var key_hi: array<u32, ITEMS>;
  var ranks: array<u32, ITEMS>;
  // One loop of plain loads per buffer (src is workgroup-uniform): no branch on the buffer between the loads.
  if (src == ROLE_IN) {
    //! unroll
    for (var k = 0u; k < ITEMS; k += 1u) {
      let i = min(segment + k * li.size + li.lane, valid - 1u);
      key_lo[k] = keys_in[KEY_WORDS * (base + i)];
      key_hi[k] = select(0u, keys_in[KEY_WORDS * (base + i) + KEY_WORDS - 1u], KEY_WORDS == 2u);
    }
  } else if (src == ROLE_X) {
    //! unroll
    for (var k = 0u; k < ITEMS; k += 1u) {
      let i = min(segment + k * li.size + li.lane, valid - 1u);
      key_lo[k] = keys_x[KEY_WORDS * (base + i)];
      key_hi[k] = select(0u, keys_x[KEY_WORDS * (base + i) + KEY_WORDS - 1u], KEY_WORDS == 2u);
    }
  } else {
    //! unroll
    for (var k = 0u; k < ITEMS; k += 1u) {
      let i = min(segment + k * li.size + li.lane, valid - 1u);
      key_lo[k] = keys_y[KEY_WORDS * (base + i)];
      key_hi[k] = select(0u, keys_y[KEY_WORDS * (base + i) + KEY_WORDS - 1u], KEY_WORDS == 2u);
    }
  }
  if (RELOAD) {
    p_dig = array<u32, DIG_WORDS>();  // zeroed whole: no loop indexes the array by a variable
    //! unroll
    for (var k = 0u; k < ITEMS; k += 1u) {
      p_dig[k / 4u] |= key_digit(k, key_lo[k], key_hi[k]) << ((k % 4u) * 8u);
    }
  }
  // EARLY (CUB's early counts): the tile's digit counts from a workgroup histogram of its keys, published before
  // it ranks, so that a successor's look-back finds an AGGREGATE instead of waiting out this tile's ranking.
  let own = states + tile * RADIX + l;
  if (EARLY && !ABLATE_LOOKBACK) {
    if (l < RADIX) {
      atomicStore(&wg_bins[l], 0u);
    }
    workgroupBarrier();
    //! unroll
    for (var k = 0u; k < ITEMS; k += 1u) {
      atomicAdd(&wg_bins[digit_at(k, key_lo[k], key_hi[k])], 1u);
    }
    workgroupBarrier();
    var early = 0u;
    if (l < RADIX) {
      early = atomicLoad(&wg_bins[l]);
    }
    if (l == RADIX - 1u) {
      early -= TILE - valid;  // the missing keys of the last tile (digit 255)
    }
    publish_counts(tile, own, l, early);
  }
  let below = lower_lanes(li.lane);
  let narrow = li.size <= 32u;
  let everyone = subgroupBallot(true);
  let slot = li.id % SLOTS;
  let phases = (li.count + SLOTS - 1u) / SLOTS;
  // The slots in use: fewer subgroups than SLOTS (NVIDIA: 8 of 32 lanes) leave the rest unzeroed and unscanned.
  let used = min(SLOTS, li.count);
  let folded = FOLDED && phases == 1u && !ABLATE_RANK;
  // RANK_MATCH (the host sizes the pool for it): the match words of the ranking subgroups (RADIX each) after their
  // counts; subgroups of more than 32 lanes rank by ballots.
  let match_base = used * RADIX;
  let matched = RANK_MATCH && RANK_ATOMIC && narrow;
  var folded_start = 0u;  // invocation d < RADIX: the tile's start of digit d (one phase, FOLDED)
//! if ABLATE_RANK
  // Measurement only (WGPRIM_ONESWEEP_ABLATE=rank): the digit counts from shared atomics, each key's rank its index
  // in the tile; the output is not sorted.
  if (l < RADIX) {
    atomicStore(&wg_bins[l], 0u);
  }
  workgroupBarrier();
  //! unroll
  for (var k = 0u; k < ITEMS; k += 1u) {
    atomicAdd(&wg_bins[digit_at(k, key_lo[k], key_hi[k])], 1u);
    ranks[k] = segment + k * li.size + li.lane;
  }
  workgroupBarrier();
  if (l < RADIX) {
    wg_count[l] = atomicLoad(&wg_bins[l]);
  }
  workgroupBarrier();
//! else
  for (var phase = 0u; phase < phases; phase += 1u) {
    for (var i = l; i < select(used, 2u * used, matched) * RADIX; i += WG_SIZE) {
      pool_set(i, 0u);  // the slots' counts (and the match words after them)
    }
    workgroupBarrier();
    let ranking = li.id / SLOTS == phase;
//! if RANK_ATOMIC
    // The lowest lane of each digit adds the digit's lanes to its subgroup's count with one atomic, whose old value
    // is the base of their ranks: no barrier per key. Stable as long as a subgroup's atomics on one word take effect
    // in the order its steps issue them (they come from one subgroup, in program order).
    // Three loops whose steps do not wait on each other (every key's ballots, then the counts' atomics, then the
    // shuffles), so that the compiler can overlap the keys' latencies; no array besides ranks: ranks[k] holds the
    // key's peers in lower lanes (bits 0-7), the lowest peer's lane (8-14) and the number of peers (15-22), then in
    // the lowest peer the count before them (from bit 15 on).
    if (ranking) {
      if (matched) {
//! if RANK_MATCH
        // RANK_MATCH (at most 32 lanes): each lane sets its bit in its subgroup's word of its digit with a workgroup
        // atomicOr, and after a subgroup barrier that word is the key's peers (CUB's WARP_MATCH_ATOMIC_OR; H100: 98
        // registers instead of 128, 8.5 % less time than eight ballots, sort/policy.hpp). The word is emptied before
        // the subgroup's next use of it in one of three ways (MATCH_CLEAR, WGPRIM_ONESWEEP_MATCH_CLEAR):
        // 0 (leader): the lowest peer stores 0 once every lane has read it (a second barrier) and a third barrier
        //   orders that before the next key's bits;
        // 1 (own): each lane takes its own bit back with an atomicXor after a second barrier (other lanes' next bits
        //   are other bits or other words, so the XOR commutes with them);
        // 2 (pair): two words per digit, used by alternate keys (the subgroup's count words while ranking, which are
        //   zero until the counts' loop below, and its match words); each lane takes back its bit of the previous key
        //   after this key's barrier: every lane read the previous key's word before arriving at this barrier, and
        //   the lane's own bit of the key after next goes in after its removal (program order), while the other
        //   lanes' removals precede their arrival at that key's barrier. One subgroup barrier per key; the last
        //   key's table is the match words, so the count words end empty (one more barrier before the counts).
        var prev_at = 0u;
        //! unroll
        for (var k = 0u; k < ITEMS; k += 1u) {
          var table = match_base;
          if (MATCH_CLEAR == 2u && (ITEMS - 1u - k) % 2u == 1u) {
            table = 0u;
          }
          let at = table + li.id % SLOTS * RADIX + digit_at(k, key_lo[k], key_hi[k]);
          atomicOr(&wg_pool[at], 1u << li.lane);
          subgroupBarrier();
          let m = atomicLoad(&wg_pool[at]);
          if (MATCH_CLEAR == 2u) {
            if (k > 0u) {
              atomicXor(&wg_pool[prev_at], 1u << li.lane);
            }
            prev_at = at;
          } else if (MATCH_CLEAR == 1u) {
            subgroupBarrier();
            atomicXor(&wg_pool[at], 1u << li.lane);
          } else {
            subgroupBarrier();
            if ((m & below.x) == 0u) {
              atomicStore(&wg_pool[at], 0u);
            }
            subgroupBarrier();
          }
          ranks[k] = countOneBits(m & below.x) | (firstTrailingBit(m) << 8u) | (countOneBits(m) << 15u);
        }
        if (MATCH_CLEAR == 2u) {
          subgroupBarrier();  // every lane's removals from the count words before the counts' atomics
        }
//! endif
      } else if (narrow) {
        // At most 32 lanes (NVIDIA, lavapipe): one ballot word, scalar masks; the branch is taken once per tile,
        // not per key, so the loop holds no vec4 mask (H200: see bench/results/2026-12-03-h200-session19).
        //! unroll
        for (var k = 0u; k < ITEMS; k += 1u) {
          let d = digit_at(k, key_lo[k], key_hi[k]);
          var m = everyone.x;
          for (var b = 0u; b < 8u; b += 1u) {
            let bit_set = ((d >> b) & 1u) != 0u;
            let ballot = subgroupBallot(bit_set).x;
            m &= select(~ballot, ballot, bit_set);
          }
          ranks[k] = countOneBits(m & below.x) | (firstTrailingBit(m) << 8u) | (countOneBits(m) << 15u);
        }
      } else {
        //! unroll
        for (var k = 0u; k < ITEMS; k += 1u) {
          let peers = peers_of(digit_at(k, key_lo[k], key_hi[k]), everyone, false);
          ranks[k] = popcount4(peers & below) | (lowest_lane(peers) << 8u) | (popcount4(peers) << 15u);
        }
      }
      //! unroll
      for (var k = 0u; k < ITEMS; k += 1u) {
        if ((ranks[k] & 0xffu) == 0u) {
          let d = digit_at(k, key_lo[k], key_hi[k]);
          ranks[k] = (ranks[k] & 0x7fffu) | (atomicAdd(&wg_pool[slot * RADIX + d], ranks[k] >> 15u) << 15u);
        }
      }
      //! unroll
      for (var k = 0u; k < ITEMS; k += 1u) {
        ranks[k] = subgroupShuffle(ranks[k] >> 15u, (ranks[k] >> 8u) & 0x7fu) + (ranks[k] & 0xffu);
      }
    }
    workgroupBarrier();
//! else
    //! unroll
    for (var k = 0u; k < ITEMS; k += 1u) {
      if (ranking) {  // subgroup-uniform: the other subgroups only meet the barrier
        let d = digit_at(k, key_lo[k], key_hi[k]);
        let peers = peers_of(d, everyone, narrow);
        let lower = popcount4(peers & below);
        var before = 0u;
        if (lower == 0u) {
          // The lowest lane of each digit updates the count: one writer per slot entry per step.
          let at = slot * RADIX + d;
          before = pool_get(at);
          pool_set(at, before + popcount4(peers));
        }
        ranks[k] = subgroupShuffle(before, lowest_lane(peers)) + lower;
      }
      workgroupBarrier();  // this step's counts are visible to the next step's lowest lanes
    }
//! endif
    if (folded) {
      // One phase (every subgroup ranked at once: all GPUs with subgroups of 16 lanes or more): the tile's digit
      // starts are scanned here and added to the slots' prefixes, so that each key finds its place in the tile with
      // one lookup (FOLDED; H200: see bench/results/2026-12-03-h200-session19).
      var total = 0u;
      if (l < RADIX) {
        for (var s = 0u; s < used; s += 1u) {
          total += pool_get(s * RADIX + l);
        }
      }
      let start = workgroup_scan(l, total, li).exclusive;
      if (l < RADIX) {
        var running = start;
        for (var s = 0u; s < used; s += 1u) {
          let c = pool_get(s * RADIX + l);
          pool_set(s * RADIX + l, running);
          running += c;
        }
        wg_count[l] = total;
        folded_start = start;
      }
    } else if (l < RADIX) {
      // Per digit: the keys of earlier subgroups (earlier phases: wg_count) before each slot's keys.
      var running = wg_count[l];
      for (var s = 0u; s < used; s += 1u) {
        let c = pool_get(s * RADIX + l);
        pool_set(s * RADIX + l, running);
        running += c;
      }
      wg_count[l] = running;
    }
    workgroupBarrier();
    if (ranking) {
      //! unroll
      for (var k = 0u; k < ITEMS; k += 1u) {
        ranks[k] += pool_get(slot * RADIX + digit_at(k, key_lo[k], key_hi[k]));
      }
    }
    workgroupBarrier();  // read before the next phase clears the slots
  }
//! endif
  var count = 0u;
  if (l < RADIX) {
    count = wg_count[l];
  }
  // The tile's start of each digit: scanned above with one phase (the ranks include it), here otherwise.
  var tile_start = 0u;
  if (folded) {
    tile_start = folded_start;
  } else {
    tile_start = workgroup_scan(l, count, li).exclusive;
  }
  if (l == RADIX - 1u) {
    count -= TILE - valid;  // the missing keys of the last tile (after every real key: no tile_start moves)
  }

  // 2. Publish (unless EARLY did), look back.
  var prefix = 0u;
//! if ABLATE_LOOKBACK
  // Measurement only (WGPRIM_ONESWEEP_ABLATE=lookback): no tile states, every tile's prefix 0 (not sorted).
//! else
  if (!EARLY) {
    publish_counts(tile, own, l, count);
  }
  if (tile > 0u) {
    var w = word_walk_start(tile);
    w.done = l >= RADIX;  // the other invocations only meet the barriers and count in the fallback
    loop {
      // Each digit walks its chain alone (tile/lookback_core.wgsl): no barriers until it is done or stuck, and it
      // publishes its inclusive prefix as soon as it has it (the successors' walks stop there).
      if (!w.done) {
        w = walk_word_chain(w, states + l, RADIX, tile, params.spin_limit, params.stress != 0u);
        if (w.done) {
          atomicMax(&state[own], (INCLUSIVE << 30u) | (w.prefix + count));
        } else {
          atomicMax(&wg_stuck, w.next + 1u);
        }
      }
      workgroupBarrier();
      if (l == 0u) {
        wg_uniform = atomicLoad(&wg_stuck);
        atomicStore(&wg_stuck, 0u);
      }
      let stuck = workgroupUniformLoad(&wg_uniform);
      if (stuck == 0u) {
        break;  // every digit has its prefix
      }
      // Fallback: count tile js's digits here instead of waiting for its workgroup (js < tile: a full tile).
      let js = stuck - 1u;
      if (l < RADIX) {
        atomicStore(&wg_bins[l], 0u);
      }
      workgroupBarrier();
      for (var k = 0u; k < ITEMS; k += 1u) {
        atomicAdd(&wg_bins[digit_of(load_key(src, js * TILE + k * WG_SIZE + l), dpass)], 1u);
      }
      workgroupBarrier();
      var c = 0u;
      if (l < RADIX) {
        c = atomicLoad(&wg_bins[l]);
        atomicMax(&state[states + js * RADIX + l], (AGGREGATE << 30u) | c);
      }
      if (l == 0u) {
        atomicAdd(&state[8u + params.slot], 1u);
      }
      if (!w.done && w.next == js) {
        w.prefix += c;
        if (js == 0u) {
          w.done = true;
          atomicMax(&state[own], (INCLUSIVE << 30u) | (w.prefix + count));
        } else {
          w.next = js - 1u;
        }
      }
    }
    prefix = w.prefix;
  }
//! endif
  if (l < RADIX) {
    wg_global[l] = atomicLoad(&state[STARTS + dpass * RADIX + l]) + prefix - tile_start;
    wg_count[l] = tile_start;
  }
  workgroupBarrier();

  // 3. Scatter through workgroup memory: sorted position of each key, then each word in turn.
//! if ABLATE_SCATTER
  // Measurement only (WGPRIM_ONESWEEP_ABLATE=scatter): nothing written but a word no key produces (keeps the ranks
  // and keys live).
  var sink = wg_global[l % RADIX];
  //! unroll
  for (var k = 0u; k < ITEMS; k += 1u) {
    sink ^= ranks[k] + key_lo[k] + key_hi[k];
  }
  if (sink == 0x9e3779b9u) {
    store_key_word(dst, base, sink);
  }
//! else
//! if ABLATE_RANK
//! else
  if (!folded) {
    //! unroll
    for (var k = 0u; k < ITEMS; k += 1u) {
      ranks[k] += wg_count[digit_at(k, key_lo[k], key_hi[k])];
    }
  }
//! endif
  // ROUNDS > 1 (WGPRIM_ONESWEEP_ROUNDS, measurement): the pool holds a CHUNK of the tile at a time, so the kernel
  // needs less workgroup memory; round r stages and writes sorted positions [r * CHUNK, (r + 1) * CHUNK).
  var sorted_digits: array<u32, CHUNK_ITEMS>;
  for (var r = 0u; r < ROUNDS; r += 1u) {
    let lo = r * CHUNK;
    if (r > 0u) {
      workgroupBarrier();  // every read of the previous round's chunk done
    }
    if (KEY_WORDS == 1u) {
      if (RELOAD) {
        // The keys again, one loop of plain loads per buffer (src is workgroup-uniform), each into its sorted place.
        if (src == ROLE_IN) {
          //! unroll
          for (var k = 0u; k < ITEMS; k += 1u) {
            if (ranks[k] - lo < CHUNK) {
              pool_set(ranks[k] - lo, keys_in[base + min(segment + k * li.size + li.lane, valid - 1u)]);
            }
          }
        } else if (src == ROLE_X) {
          //! unroll
          for (var k = 0u; k < ITEMS; k += 1u) {
            if (ranks[k] - lo < CHUNK) {
              pool_set(ranks[k] - lo, keys_x[base + min(segment + k * li.size + li.lane, valid - 1u)]);
            }
          }
        } else {
          //! unroll
          for (var k = 0u; k < ITEMS; k += 1u) {
            if (ranks[k] - lo < CHUNK) {
              pool_set(ranks[k] - lo, keys_y[base + min(segment + k * li.size + li.lane, valid - 1u)]);
            }
          }
        }
      } else {
        //! unroll
        for (var k = 0u; k < ITEMS; k += 1u) {
          if (ranks[k] - lo < CHUNK) {
            pool_set(ranks[k] - lo, key_lo[k]);
          }
        }
      }
      workgroupBarrier();
      // One loop of plain stores per buffer (dst is workgroup-uniform); each sorted key read from the pool once (its
      // reads are atomic loads with RANK_ATOMIC, which the compiler does not merge).
      if (dst == ROLE_X) {
        //! unroll
        for (var k = 0u; k < CHUNK_ITEMS; k += 1u) {
          let s = lo + k * WG_SIZE + l;
          let v = pool_get(s - lo);
          sorted_digits[k] = digit_of(vec2<u32>(v, 0u), dpass);
          if (s < valid) {
            keys_x[wg_global[sorted_digits[k]] + s] = v;
          }
        }
      } else {
        //! unroll
        for (var k = 0u; k < CHUNK_ITEMS; k += 1u) {
          let s = lo + k * WG_SIZE + l;
          let v = pool_get(s - lo);
          sorted_digits[k] = digit_of(vec2<u32>(v, 0u), dpass);
          if (s < valid) {
            keys_y[wg_global[sorted_digits[k]] + s] = v;
          }
        }
      }
    } else {
      //! unroll
      for (var k = 0u; k < ITEMS; k += 1u) {
        if (ranks[k] - lo < CHUNK) {
          pool_set(ranks[k] - lo, digit_at(k, key_lo[k], key_hi[k]));
        }
      }
      workgroupBarrier();
      //! unroll
      for (var k = 0u; k < CHUNK_ITEMS; k += 1u) {
        sorted_digits[k] = pool_get(k * WG_SIZE + l);
      }
      for (var word = 0u; word < 2u; word += 1u) {
        workgroupBarrier();  // every read of the pool done
        if (RELOAD) {
          // This word of the keys again, one loop of plain loads per buffer (src is workgroup-uniform).
          if (src == ROLE_IN) {
            //! unroll
            for (var k = 0u; k < ITEMS; k += 1u) {
              if (ranks[k] - lo < CHUNK) {
                pool_set(ranks[k] - lo, keys_in[2u * (base + min(segment + k * li.size + li.lane, valid - 1u)) + word]);
              }
            }
          } else if (src == ROLE_X) {
            //! unroll
            for (var k = 0u; k < ITEMS; k += 1u) {
              if (ranks[k] - lo < CHUNK) {
                pool_set(ranks[k] - lo, keys_x[2u * (base + min(segment + k * li.size + li.lane, valid - 1u)) + word]);
              }
            }
          } else {
            //! unroll
            for (var k = 0u; k < ITEMS; k += 1u) {
              if (ranks[k] - lo < CHUNK) {
                pool_set(ranks[k] - lo, keys_y[2u * (base + min(segment + k * li.size + li.lane, valid - 1u)) + word]);
              }
            }
          }
        } else {
          //! unroll
          for (var k = 0u; k < ITEMS; k += 1u) {
            if (ranks[k] - lo < CHUNK) {
              pool_set(ranks[k] - lo, select(key_lo[k], key_hi[k], word == 1u));
            }
          }
        }
        workgroupBarrier();
        //! unroll
        for (var k = 0u; k < CHUNK_ITEMS; k += 1u) {
          let s = lo + k * WG_SIZE + l;
          if (s < valid) {
            store_key_word(dst, 2u * (wg_global[sorted_digits[k]] + s) + word, pool_get(s - lo));
          }
        }
      }
    }
    if (params.pairs != 0u) {
      // The values of this round's keys, one loop of plain loads per buffer, each loaded only in its key's round.
      var vals: array<u32, ITEMS>;
      if (src == ROLE_IN) {
        //! unroll
        for (var k = 0u; k < ITEMS; k += 1u) {
          if (ranks[k] - lo < CHUNK) {
            vals[k] = vals_in[base + min(segment + k * li.size + li.lane, valid - 1u)];
          }
        }
      } else if (src == ROLE_X) {
        //! unroll
        for (var k = 0u; k < ITEMS; k += 1u) {
          if (ranks[k] - lo < CHUNK) {
            vals[k] = vals_x[base + min(segment + k * li.size + li.lane, valid - 1u)];
          }
        }
      } else {
        //! unroll
        for (var k = 0u; k < ITEMS; k += 1u) {
          if (ranks[k] - lo < CHUNK) {
            vals[k] = vals_y[base + min(segment + k * li.size + li.lane, valid - 1u)];
          }
        }
      }
      workgroupBarrier();  // every key read from the pool
      //! unroll
      for (var k = 0u; k < ITEMS; k += 1u) {
        if (ranks[k] - lo < CHUNK) {
          pool_set(ranks[k] - lo, vals[k]);
        }
      }
      workgroupBarrier();
      if (dst == ROLE_X) {
        //! unroll
        for (var k = 0u; k < CHUNK_ITEMS; k += 1u) {
          let s = lo + k * WG_SIZE + l;
          if (s < valid) {
            vals_x[wg_global[sorted_digits[k]] + s] = pool_get(s - lo);
          }
        }
      } else {
        //! unroll
        for (var k = 0u; k < CHUNK_ITEMS; k += 1u) {
          let s = lo + k * WG_SIZE + l;
          if (s < valid) {
            vals_y[wg_global[sorted_digits[k]] + s] = pool_get(s - lo);
          }
        }
      }
    }
  }
//! endif
}
