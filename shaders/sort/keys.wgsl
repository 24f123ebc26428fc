// Radix-sort keys: the bit transform that turns a key into an unsigned integer whose order is the sort order, the
// 8-bit digit of a pass, and the state buffer every sort kernel shares. Keys stay in memory as they were given (the
// transform is applied each time a digit is taken), so float NaNs keep their payloads and signs in the output.
// KEY_WORDS (a constant of the including kernel) is 1 for 32-bit keys and 2 for 64-bit keys, stored as two u32
// words per key, low word first (no 64-bit shader types needed). Pass p takes bits 8 (p % 4) .. 8 (p % 4) + 7 of
// word p / 4 of the transformed key.
// The key type and the order are run-time parameters (one compiled kernel serves every type and order): the
// including kernel's `params` has key_kind and descending.
// key_kind 0 unsigned: as is. 1 signed: the sign bit flipped. 2 float: negative values have every bit flipped, others
// the sign bit set (the usual total order: -inf < ... < -0.0 < +0.0 < ... < +inf), and every NaN becomes all ones,
// so NaNs sort last and compare equal (the sort is stable, so NaNs keep their input order).
// descending != 0: the transformed key is complemented: exactly the reverse order of distinct keys, equal keys still
// in input order (stable), NaNs first.
// Then only the compared bits are kept (params.mask_lo / mask_hi: bits [begin_bit, end_bit), cub's begin_bit /
// end_bit): keys equal on them compare equal, and every digit pass outside them sees digit 0 only.
//
// State buffer (u32 words, shared by the histogram, plan, pass and finish kernels of one sort):
//   [0, 8)          the tile counter of each slot (pass kernels claim tiles in order from it)
//   [8, 16)         look-back fallbacks of each slot (tests and stats)
//   [HIST, +2048)   digit counts: row p = pass p's 256 counts (histogram kernel)
//   [STARTS, +2048) row p = the exclusive scan of row p of HIST: where each digit's run starts in the output
//   [PLAN, +16)     PLAN: the number of active passes; PLAN + 1 + j: the pass slot j runs (plan kernel)
//   DEVICE_N        a counted range's key count (sort/count.wgsl), copied there by the host's recording
//   [TILE_STATES..) the current slot's tile states (onesweep)
// A pass is inactive when one digit holds every key: it would not move anything.

// The parameters of every sort kernel (src/primitives/sort/sort.hpp: sort_params).
struct sort_params {
  n: u32,           // keys
  tiles: u32,       // tiles of the kernel's size
  slot: u32,        // pass kernels: the slot (j-th active pass) this dispatch runs
  grid_x: u32,      // workgroups per row of a 2-D grid
  key_kind: u32,
  descending: u32,
  pairs: u32,       // values travel with the keys
  in_place: u32,    // the input is the output buffer (no separate input binding)
  spin_limit: u32,  // onesweep: polls of a NOT_READY predecessor before counting its tile here
  stress: u32,      // onesweep: test-only delays and ignored states that force fallbacks
  workgroups: u32,  // histogram / finish: workgroups walking the blocks
  blocks: u32,      // histogram / finish: blocks of WG_SIZE * ITEMS keys
  mask_lo: u32,     // the compared bits of the transformed key: low word
  mask_hi: u32,     // high word (64-bit keys)
  pass_lo: u32,     // the digit passes [pass_lo, pass_hi) that cover the compared bits
  pass_hi: u32,
  device_n: u32,    // 1: the key count is on the device (sort/count.wgsl), n is the capacity
  pad0: u32,
  pad1: u32,
  pad2: u32,
}

const RADIX: u32 = 256u;
const HIST: u32 = 16u;
const STARTS: u32 = 2064u;
const PLAN: u32 = 4112u;
const TILE_STATES: u32 = 4160u;

fn sortable(k: u32) -> u32 {
  var s = k;
  if (params.key_kind == 1u) {
    s = k ^ 0x80000000u;
  } else if (params.key_kind == 2u) {
    if ((k & 0x7fffffffu) > 0x7f800000u) {
      s = 0xffffffffu;
    } else if ((k & 0x80000000u) != 0u) {
      s = ~k;
    } else {
      s = k | 0x80000000u;
    }
  }
  if (params.descending != 0u) {
    s = ~s;
  }
  return s & params.mask_lo;
}

// The same transform on a 64-bit key (x: low word, y: high word).
fn sortable2(k: vec2<u32>) -> vec2<u32> {
  var s = k;
  if (params.key_kind == 1u) {
    s.y = k.y ^ 0x80000000u;
  } else if (params.key_kind == 2u) {
    let mag = k.y & 0x7fffffffu;
    if (mag > 0x7ff00000u || (mag == 0x7ff00000u && k.x != 0u)) {
      s = vec2<u32>(0xffffffffu);
    } else if ((k.y & 0x80000000u) != 0u) {
      s = ~k;
    } else {
      s.y = k.y | 0x80000000u;
    }
  }
  if (params.descending != 0u) {
    s = ~s;
  }
  return s & vec2<u32>(params.mask_lo, params.mask_hi);
}

// The digit of pass `dpass` of a key given as (low word, high word); the high word is ignored for 32-bit keys.
fn digit_of(k: vec2<u32>, dpass: u32) -> u32 {
  let shift = (dpass % 4u) * 8u;
  if (KEY_WORDS == 1u) {
    return (sortable(k.x) >> shift) & 0xffu;
  }
  let s = sortable2(k);
  return (select(s.x, s.y, dpass >= 4u) >> shift) & 0xffu;
}
