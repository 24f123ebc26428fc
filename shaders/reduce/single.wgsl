// Single-dispatch reduction: the fast reduce's tile walk (one partial per workgroup), then the LAST workgroup to
// finish folds the partials, so a call is one dispatch instead of two (every pass boundary is a barrier and a
// launch). No workgroup waits for another to start, so nothing assumes forward progress between workgroups.
//
// WGSL atomics are relaxed: seeing the counter reach the last ticket says nothing about the visibility of other
// locations. So each partial is published as four atomic words, word j = (epoch << 8) | byte j of its bits, where
// epoch (params, 24 bits, never 0) is new for every call: a word is accepted only when it carries this call's
// epoch, and one location's own writes do become visible (coherence). A partial whose words do not all show up
// within spin_limit polls is not waited for: the last workgroup recomputes it from the input with the same walk
// and the same workgroup tree, so the value is the same bits either way. Partials are then folded in index order
// (invocation l takes l, l + WG_SIZE, ...) and through the same workgroup tree: the result is deterministic.
//
// state[0]: arrival counter (the last workgroup resets it to 0 for the next call; every other increment precedes
// its own in the counter's modification order); state[1]: recomputed partials (tests); state[2 + 4 g + j]: words.
// Needs a commutative combine and a 32-bit accumulator (plain accumulation; compensated sums take two passes).
//! import reduce/walk.wgsl

struct single_params {
  n: u32,
  n_vec: u32,
  out_offset: u32,
  epoch: u32,       // 1 .. 2^24 - 1
  spin_limit: u32,  // polls of a partial's words before recomputing it
  stress: u32,      // testing::set_lookback_stress: recompute every other partial without polling
  pad0: u32,
  pad1: u32,
}

@group(0) @binding(0) var<uniform> params: single_params;
//! if VIEW_GATHER
@group(0) @binding(1) var<storage, read> view_index: array<u32>;
//! else
@group(0) @binding(1) var<storage, read> src_vec: array<EV>;
//! endif
@group(0) @binding(2) var<storage, read> src: array<E>;
@group(0) @binding(3) var<storage, read_write> dst: array<T>;
@group(0) @binding(4) var<storage, read_write> state: array<atomic<u32>>;

const MAX_GROUPS: u32 = 1024u;
const PER_LANE: u32 = (MAX_GROUPS + WG_SIZE - 1u) / WG_SIZE;
var<private> mine: array<u32, PER_LANE>;  // this invocation's published partials (bits), by k
var<workgroup> wg_ticket: u32;
var<workgroup> wg_missing_count: atomic<u32>;
var<workgroup> wg_missing: array<u32, MAX_GROUPS>;
var<workgroup> wg_recomputed: array<T, MAX_GROUPS>;

// Polls partial g's four words; its bits when all carry this call's epoch, else (after spin_limit polls) none.
struct polled { ok: bool, bits: u32, }
fn poll_partial(g: u32) -> polled {
  var have = 0u;  // bit j: word j seen with this epoch
  var bits = 0u;
  for (var tries = 0u; tries <= params.spin_limit; tries += 1u) {
    for (var j = 0u; j < 4u; j += 1u) {
      if ((have & (1u << j)) == 0u) {
        let w = atomicLoad(&state[2u + 4u * g + j]);
        if ((w >> 8u) == params.epoch) {
          have |= 1u << j;
          bits |= (w & 0xffu) << (8u * j);
        }
      }
    }
    if (have == 15u) {
      return polled(true, bits);
    }
  }
  return polled(false, 0u);
}

@compute @workgroup_size(WG_SIZE)
fn reduce(@builtin(local_invocation_index) l: u32, @builtin(workgroup_id) wid: vec3u,
          @builtin(num_workgroups) nwg: vec3u, li: lane_info) {
  accum_init(nwg.x);
  let groups = nwg.x;
  let total = workgroup_reduce(l, reduce_walk(wid.x, groups, l, params.n, params.n_vec), li);
  if (l == 0u) {
    let b = bitcast<u32>(total);
    for (var j = 0u; j < 4u; j += 1u) {
      atomicStore(&state[2u + 4u * wid.x + j], (params.epoch << 8u) | ((b >> (8u * j)) & 0xffu));
    }
    wg_ticket = atomicAdd(&state[0], 1u);
  }
  if (l == 0u) {
    atomicStore(&wg_missing_count, 0u);
  }
  let ticket = workgroupUniformLoad(&wg_ticket);
  if (ticket + 1u != groups) {
    return;
  }
  // The last to arrive: every other workgroup has published (maybe not visibly yet) and incremented.
  if (l == 0u) {
    atomicStore(&state[0], 0u);
  }
  var seen = 0u;  // bit k: this invocation's k-th partial (g = l + k * WG_SIZE) was published visibly
  var k = 0u;
  for (var g = l; g < groups; g += WG_SIZE) {
    var p = polled(false, 0u);
    if (params.stress == 0u || (g & 1u) == 0u) {
      p = poll_partial(g);
    }
    if (p.ok) {
      seen |= 1u << k;
      mine[k] = p.bits;
    } else {
      wg_missing[atomicAdd(&wg_missing_count, 1u)] = g;
    }
    k += 1u;
  }
  let missing = workgroupUniformLoad(&wg_missing_count);
  // Recompute the missing partials with the whole workgroup (the same walk and tree as their own workgroups).
  for (var i = 0u; i < missing; i += 1u) {
    let g = wg_missing[i];
    let v = workgroup_reduce(l, reduce_walk(g, groups, l, params.n, params.n_vec), li);
    if (l == 0u) {
      wg_recomputed[g] = v;
    }
  }
  if (l == 0u && missing > 0u) {
    atomicAdd(&state[1], missing);
  }
  workgroupBarrier();
  // Fold in index order: published partials as read above, missing ones from wg_recomputed.
  var acc = identity();
  k = 0u;
  for (var g = l; g < groups; g += WG_SIZE) {
    if ((seen & (1u << k)) != 0u) {
      acc = combine(acc, bitcast<T>(mine[k]));
    } else {
      acc = combine(acc, wg_recomputed[g]);
    }
    k += 1u;
  }
  let result = workgroup_reduce(l, acc, li);
  if (l == 0u) {
    dst[params.out_offset] = result;
  }
}
