// The tile merge sort (CUB's BlockMergeSort): up to TILE = WG_SIZE * ITEMS keys, ITEMS per invocation (invocation
// l holds tile positions l * ITEMS .. l * ITEMS + ITEMS - 1), sorted stably: each invocation's keys by an odd-even
// transposition network in registers (only neighbours swap, and only when the later key goes strictly first), then
// log2(WG_SIZE) passes that merge neighbouring sorted runs of ITEMS, 2 ITEMS, ... keys: the keys go to workgroup
// memory, each invocation finds the merge path at its first output within its pair of runs (a binary search) and
// merges ITEMS keys in a row back into its registers, the front keys of both runs held (ties from the left run).
//
// Contract:
//   reads/writes the caller's k (keys, loaded by the caller) and, with MS_POSITIONS, p (set here to each key's tile
//              position, moved with its key); on return invocation l holds the sorted tile's positions l * ITEMS ..
//              in k and p.
//              Positions at or past `count` are pads: never compared, never moved, their values unspecified.
//   workgroup memory ms_keys (TILE u32) and, with MS_POSITIONS, ms_pos (TILE u32): tile_merge_stage leaves the
//              sorted tile there for a coalesced write-out.
//   barriers   two per pass and two in tile_merge_stage: every invocation of the workgroup calls both, in uniform
//              control flow, with the same count (1..TILE). Any subgroup size; no subgroup operations.
//   hooks      fn ms_goes_first(x: u32, y: u32) -> bool: x goes before y or ties with it (the importer's order,
//              a strict weak order's complement).
//   constants  WG_SIZE, ITEMS (a power of two), MS_POSITIONS (a compose-time condition).

const TILE: u32 = WG_SIZE * ITEMS;

var<workgroup> ms_keys: array<u32, TILE>;
//! if MS_POSITIONS
var<workgroup> ms_pos: array<u32, TILE>;
//! endif

// The invocation's keys (and positions) into workgroup memory at its tile positions, between two barriers: every
// earlier read of ms_keys is done before, and every invocation's keys are there after.
fn tile_merge_stage(l: u32, count: u32, k: ptr<function, array<u32, ITEMS>>, p: ptr<function, array<u32, ITEMS>>) {
  workgroupBarrier();
  let d = l * ITEMS;
  for (var q = 0u; q < ITEMS; q += 1u) {
    if (d + q < count) {
      ms_keys[d + q] = (*k)[q];
//! if MS_POSITIONS
      ms_pos[d + q] = (*p)[q];
//! endif
    }
  }
  workgroupBarrier();
}

fn tile_merge_sort(l: u32, count: u32, k: ptr<function, array<u32, ITEMS>>, p: ptr<function, array<u32, ITEMS>>) {
  let d = l * ITEMS;
  for (var q = 0u; q < ITEMS; q += 1u) {
    (*p)[q] = d + q;
  }
  for (var r = 0u; r < ITEMS; r += 1u) {
    for (var q = r & 1u; q + 1u < ITEMS; q += 2u) {
      if (d + q + 1u < count && !ms_goes_first((*k)[q], (*k)[q + 1u])) {
        let x = (*k)[q];
        (*k)[q] = (*k)[q + 1u];
        (*k)[q + 1u] = x;
//! if MS_POSITIONS
        let y = (*p)[q];
        (*p)[q] = (*p)[q + 1u];
        (*p)[q + 1u] = y;
//! endif
      }
    }
  }
  for (var run = ITEMS; run < TILE; run <<= 1u) {
    tile_merge_stage(l, count, k, p);
    let s = d / (2u * run) * (2u * run);  // the pair's first key: A = [s, s + la), B = [s + la, s + la + lb)
    if (s < count) {
      let la = min(run, count - s);
      let lb = min(run, count - s - la);
      let dd = d - s;  // the invocation's first output within the pair
      if (dd < la + lb) {
        var lo = select(0u, dd - lb, dd > lb);
        var hi = min(dd, la);
        while (lo < hi) {
          let mid = hi - (hi - lo) / 2u;
          if (ms_goes_first(ms_keys[s + mid - 1u], ms_keys[s + la + dd - mid])) {
            lo = mid;
          } else {
            hi = mid - 1u;
          }
        }
        var ai = s + lo;
        var bi = s + la + dd - lo;
        let a_end = s + la;
        let b_end = s + la + lb;
        var ka = ms_keys[min(ai, TILE - 1u)];
        var kb = ms_keys[min(bi, TILE - 1u)];
        for (var q = 0u; q < ITEMS; q += 1u) {  // outputs past the pair's end (q >= la + lb - dd) are pads
          var take_a = ai < a_end;
          if (take_a && bi < b_end) {
            take_a = ms_goes_first(ka, kb);
          }
          if (take_a) {
            (*k)[q] = ka;
//! if MS_POSITIONS
            (*p)[q] = ms_pos[ai];
//! endif
            ai += 1u;
            ka = ms_keys[min(ai, TILE - 1u)];
          } else {
            (*k)[q] = kb;
//! if MS_POSITIONS
            (*p)[q] = ms_pos[bi];
//! endif
            bi += 1u;
            kb = ms_keys[min(bi, TILE - 1u)];
          }
        }
      }
    }
  }
}
