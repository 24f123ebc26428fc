// One digit pass of the Onesweep radix sort (Adinets & Merrill, 2022) with the decoupled fallback of our scan
// (Smith, Levien & Owens, SPAA 2025), so that it needs no forward-progress guarantee.
// Each workgroup claims the next tile of TILE = WG_SIZE * ITEMS keys from an atomic counter (a tile only waits on
// tiles whose workgroups have started), then:
// 1. ranks its keys: each subgroup owns a contiguous segment of ITEMS * subgroup_size keys, read striped (lane i
//    reads element k * size + i: coalesced); per key, nine ballots find the lanes with the same digit (all four
//    words of the ballot: any subgroup size 4..128), the lowest of them adds their number to the subgroup's
//    running count of that digit in workgroup memory, and each key's rank is that count plus its peers in lower
//    lanes. At most SLOTS subgroups rank at once (their histograms fill the pool); more subgroups (small subgroup
//    sizes) rank in phases, each continuing the counts of the previous ones. Then the subgroup counts are scanned
//    per digit: every key has its rank among the tile's keys of its digit, in input order (stable).
// 2. publishes its digit counts per (tile, digit) and looks back over predecessors for each digit's prefix, all
//    digits at once (invocation d owns digit d, WG_SIZE == RADIX), one predecessor tile per step. A tile whose state
//    stays NOT_READY for spin_limit polls is not waited for: the workgroup re-reads that tile's keys, counts its
//    digits itself and publishes them (the same values the tile would publish).
// 3. writes its keys (then its values) into workgroup memory in sorted order, and from there to the output in order
//    of sorted position: consecutive invocations write consecutive addresses within a digit's run.
// Tile state: one u32 per (tile, digit), (flag << 30) | count, written with atomicMax so it only moves forward
// (NOT_READY < AGGREGATE < INCLUSIVE); counts fit in 30 bits as n <= 2^29 (one binding). state[digit_pass] is the
// pass's tile counter, state[4 + digit_pass] counts fallbacks; tile states start at STATE_BASE.
// The missing keys of the last tile rank as digit 255 after every real key and are never written or counted.
//! import sort/keys.wgsl

const TILE: u32 = WG_SIZE * ITEMS;
const NOT_READY: u32 = 0u;
const AGGREGATE: u32 = 1u;
const INCLUSIVE: u32 = 2u;
const COUNT_MASK: u32 = 0x3fffffffu;
const STATE_BASE: u32 = 8u;

struct onesweep_params {
  n: u32,
  tiles: u32,
  shift: u32,
  digit_pass: u32,
  spin_limit: u32,
  stress: u32,
  key_kind: u32,
  descending: u32,
  pairs: u32,
  pad0: u32,
  pad1: u32,
  pad2: u32,
}

@group(0) @binding(0) var<uniform> params: onesweep_params;
@group(0) @binding(1) var<storage, read> keys_in: array<u32>;
@group(0) @binding(2) var<storage, read> vals_in: array<u32>;
@group(0) @binding(3) var<storage, read> hist: array<u32>;
@group(0) @binding(4) var<storage, read_write> keys_out: array<u32>;
@group(0) @binding(5) var<storage, read_write> vals_out: array<u32>;
@group(0) @binding(6) var<storage, read_write> state: array<atomic<u32>>;

// The subgroup histograms while ranking, then the tile in sorted order.
var<workgroup> wg_pool: array<u32, POOL>;
var<workgroup> wg_bins: array<atomic<u32>, RADIX>;   // a predecessor's digit counts (fallback)
var<workgroup> wg_count: array<u32, RADIX>;          // counts of the ranked keys, then the tile's digit starts
var<workgroup> wg_global: array<u32, RADIX>;         // output index of sorted position 0 of the tile, per digit
var<workgroup> wg_tile: u32;
var<workgroup> wg_subgroups: u32;
var<workgroup> wg_uniform: u32;
var<workgroup> wg_poll: atomic<u32>;

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

@compute @workgroup_size(WG_SIZE)
fn onesweep(@builtin(local_invocation_index) l: u32, li: lane_info) {
  if (l == 0u) {
    wg_tile = atomicAdd(&state[params.digit_pass], 1u);
    wg_subgroups = li.count;
    atomicStore(&wg_poll, 0u);
  }
  let tile = workgroupUniformLoad(&wg_tile);
  if (tile >= params.tiles) {
    return;
  }
  let subgroups = workgroupUniformLoad(&wg_subgroups);
  let base = tile * TILE;
  let valid = min(TILE, params.n - base);
  // Where each digit starts in the output: the exclusive scan of this pass's histogram.
  let digit_start = workgroup_scan(l, hist[params.digit_pass * RADIX + l], li).exclusive;
  wg_count[l] = 0u;

  // 1. Rank.
  let segment = li.id * ITEMS * li.size;
  var keys: array<u32, ITEMS>;
  var digits: array<u32, ITEMS>;
  var ranks: array<u32, ITEMS>;
  for (var k = 0u; k < ITEMS; k += 1u) {
    let i = segment + k * li.size + li.lane;
    keys[k] = 0u;
    digits[k] = 255u;
    if (i < valid) {
      keys[k] = keys_in[base + i];
      digits[k] = digit_of(keys[k], params.shift);
    }
  }
  let below = lower_lanes(li.lane);
  let slot = li.id % SLOTS;
  let phases = (subgroups + SLOTS - 1u) / SLOTS;
  for (var phase = 0u; phase < phases; phase += 1u) {
    for (var i = l; i < SLOTS * RADIX; i += WG_SIZE) {
      wg_pool[i] = 0u;
    }
    workgroupBarrier();
    let ranking = li.id / SLOTS == phase;
    for (var k = 0u; k < ITEMS; k += 1u) {
      if (ranking) {  // subgroup-uniform: the other subgroups only meet the barrier
        let d = digits[k];
        var peers = subgroupBallot(true);
        for (var b = 0u; b < 8u; b += 1u) {
          let bit_set = ((d >> b) & 1u) != 0u;
          let ballot = subgroupBallot(bit_set);
          peers &= select(~ballot, ballot, bit_set);
        }
        let lower = popcount4(peers & below);
        var before = 0u;
        if (lower == 0u) {
          // The lowest lane of each digit updates the count: one writer per slot entry per step.
          let at = slot * RADIX + d;
          before = wg_pool[at];
          wg_pool[at] = before + popcount4(peers);
        }
        ranks[k] = subgroupShuffle(before, lowest_lane(peers)) + lower;
      }
      workgroupBarrier();  // this step's counts are visible to the next step's lowest lanes
    }
    // Per digit: the keys of earlier subgroups (earlier phases: wg_count) before each slot's keys.
    var running = wg_count[l];
    for (var s = 0u; s < SLOTS; s += 1u) {
      let c = wg_pool[s * RADIX + l];
      wg_pool[s * RADIX + l] = running;
      running += c;
    }
    wg_count[l] = running;
    workgroupBarrier();
    if (ranking) {
      for (var k = 0u; k < ITEMS; k += 1u) {
        ranks[k] += wg_pool[slot * RADIX + digits[k]];
      }
    }
    workgroupBarrier();  // read before the next phase clears the slots
  }
  var count = wg_count[l];
  if (l == 255u) {
    count -= TILE - valid;  // the missing keys of the last tile
  }
  let tile_start = workgroup_scan(l, wg_count[l], li).exclusive;

  // 2. Publish, look back.
  if (tile == 0u) {
    atomicMax(&state[STATE_BASE + l], (INCLUSIVE << 30u) | count);
  } else {
    if (params.stress != 0u && tile % 3u == 1u) {
      // Test-only: hold this tile's counts back so that its successor gives up waiting and falls back.
      if (l == 0u) {
        var sink = 0u;
        for (var i = 0u; i < 20000u; i += 1u) {
          sink += atomicLoad(&state[4u + params.digit_pass]);
        }
        if (sink == 0xffffffffu) {
          atomicAdd(&state[4u + params.digit_pass], 0u);
        }
      }
      workgroupBarrier();
    }
    atomicMax(&state[STATE_BASE + tile * RADIX + l], (AGGREGATE << 30u) | count);
  }
  var prefix = 0u;
  if (tile > 0u) {
    var j = tile - 1u;
    var done = false;
    var consumed = false;  // this digit's count of tile j is already in prefix
    var spins = 0u;
    loop {
      var poll = 0u;
      if (!done && !consumed) {
        let s = atomicLoad(&state[STATE_BASE + j * RADIX + l]);
        let f = s >> 30u;
        if (f == NOT_READY) {
          poll = 1u;
        } else {
          prefix += s & COUNT_MASK;
          done = f == INCLUSIVE || j == 0u;
          consumed = !done;
        }
      }
      if (!done) {
        poll += 0x10000u;
      }
      if (poll != 0u) {
        atomicAdd(&wg_poll, poll);
      }
      workgroupBarrier();
      if (l == 0u) {
        wg_uniform = atomicLoad(&wg_poll);
        atomicStore(&wg_poll, 0u);
      }
      let verdict = workgroupUniformLoad(&wg_uniform);
      if ((verdict >> 16u) == 0u) {
        break;  // every digit has its prefix
      }
      if ((verdict & 0xffffu) == 0u) {
        j -= 1u;  // every digit still walking took tile j's AGGREGATE (so j > 0)
        consumed = false;
        spins = 0u;
        continue;
      }
      spins += 1u;
      if (spins < params.spin_limit) {
        continue;
      }
      // Fallback: count tile j's digits here instead of waiting for its workgroup (j is a full tile).
      atomicStore(&wg_bins[l], 0u);
      workgroupBarrier();
      for (var k = 0u; k < ITEMS; k += 1u) {
        let i = j * TILE + k * WG_SIZE + l;
        if (i < params.n) {
          atomicAdd(&wg_bins[digit_of(keys_in[i], params.shift)], 1u);
        }
      }
      workgroupBarrier();
      let c = atomicLoad(&wg_bins[l]);
      atomicMax(&state[STATE_BASE + j * RADIX + l], (AGGREGATE << 30u) | c);
      if (!done && !consumed) {
        prefix += c;
      }
      if (l == 0u) {
        atomicAdd(&state[4u + params.digit_pass], 1u);
      }
      if (j == 0u) {
        break;  // every digit now has tiles 0..tile-1
      }
      j -= 1u;
      consumed = false;
      spins = 0u;
      workgroupBarrier();  // wg_bins read before a later fallback clears it
    }
    atomicMax(&state[STATE_BASE + tile * RADIX + l], (INCLUSIVE << 30u) | (prefix + count));
  }
  wg_global[l] = digit_start + prefix - tile_start;
  wg_count[l] = tile_start;
  workgroupBarrier();

  // 3. Scatter through workgroup memory.
  for (var k = 0u; k < ITEMS; k += 1u) {
    wg_pool[wg_count[digits[k]] + ranks[k]] = keys[k];
  }
  workgroupBarrier();
  var sorted_digits: array<u32, ITEMS>;
  for (var k = 0u; k < ITEMS; k += 1u) {
    let s = k * WG_SIZE + l;
    if (s < valid) {
      let key = wg_pool[s];
      let d = digit_of(key, params.shift);
      sorted_digits[k] = d;
      keys_out[wg_global[d] + s] = key;
    }
  }
  if (params.pairs != 0u) {
    var vals: array<u32, ITEMS>;
    for (var k = 0u; k < ITEMS; k += 1u) {
      let i = segment + k * li.size + li.lane;
      vals[k] = 0u;
      if (i < valid) {
        vals[k] = vals_in[base + i];
      }
    }
    workgroupBarrier();  // every key read from the pool
    for (var k = 0u; k < ITEMS; k += 1u) {
      wg_pool[wg_count[digits[k]] + ranks[k]] = vals[k];
    }
    workgroupBarrier();
    for (var k = 0u; k < ITEMS; k += 1u) {
      let s = k * WG_SIZE + l;
      if (s < valid) {
        vals_out[wg_global[sorted_digits[k]] + s] = wg_pool[s];
      }
    }
  }
}
