// The blocks of the comparator sort (src/primitives/sort/comparator.cpp): every tile of TILE = WG_SIZE * ITEMS
// keys of the input (the last may be shorter) sorted by one workgroup into the output, stably, by merge_keys.wgsl's
// key_le (ties keep the input order). A merge sort in workgroup memory (the shape of CUB's BlockMergeSort):
//   1. each invocation reads its ITEMS consecutive keys into registers and sorts them by an odd-even transposition
//      network (only neighbours swap, and only when the later key goes strictly first: stable);
//   2. log2(WG_SIZE) passes merge neighbouring sorted runs of ITEMS, 2 ITEMS, ... keys: the invocations' keys go
//      to workgroup memory, each invocation finds the merge path at its first output within its pair of runs (a
//      binary search) and merges ITEMS keys in a row into its registers (the front keys of both runs held, as in
//      sort/merge_tile.wgsl), with PAIRS their tile positions too;
//   3. the sorted tile goes out through workgroup memory, coalesced; with PAIRS each output's value is read from
//      its key's input position.
// A tile's keys past the input's end never take part (the last invocations hold none, or fewer than ITEMS).
// Bindings 0-5: sort/merge_level_bindings.wgsl (keys_a and keys_b bind the same input; keys_out must be another
// buffer). PAIRS (a constant of the composition): whether values travel (params.pairs is not read).
//! import sort/merge_level_bindings.wgsl

const TILE: u32 = WG_SIZE * ITEMS;

var<workgroup> tile_keys: array<u32, TILE>;
//! if PAIRS
var<workgroup> tile_pos: array<u32, TILE>;  // each key's position in the input tile
//! endif

fn goes_first(x: u32, y: u32) -> bool {  // x before or tied with y
  return key_le(word_key(x), word_key(y));
}

@compute @workgroup_size(WG_SIZE)
fn merge_block(@builtin(local_invocation_index) l: u32, @builtin(workgroup_id) wid: vec3u) {
  let first = (wid.y * params.grid_x + wid.x) * TILE;
  if (first >= params.out_count) {
    return;  // the whole workgroup: uniform
  }
  let count = min(TILE, params.out_count - first);
  let d = l * ITEMS;  // the invocation's first key in the tile
  var k: array<u32, ITEMS>;
  var p: array<u32, ITEMS>;
  for (var q = 0u; q < ITEMS; q += 1u) {
    k[q] = keys_a[first + min(d + q, count - 1u)];
    p[q] = d + q;
  }
  // 1. ITEMS keys sorted in registers (a swap only between two real keys).
  for (var r = 0u; r < ITEMS; r += 1u) {
    for (var q = r & 1u; q + 1u < ITEMS; q += 2u) {
      if (d + q + 1u < count && !goes_first(k[q], k[q + 1u])) {
        let x = k[q];
        k[q] = k[q + 1u];
        k[q + 1u] = x;
        let y = p[q];
        p[q] = p[q + 1u];
        p[q + 1u] = y;
      }
    }
  }
  // 2. Runs of ITEMS, 2 ITEMS, ... merged pairwise until one run holds the tile.
  for (var run = ITEMS; run < TILE; run <<= 1u) {
    workgroupBarrier();  // the previous pass's reads are done
    for (var q = 0u; q < ITEMS; q += 1u) {
      if (d + q < count) {
        tile_keys[d + q] = k[q];
//! if PAIRS
        tile_pos[d + q] = p[q];
//! endif
      }
    }
    workgroupBarrier();
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
          if (goes_first(tile_keys[s + mid - 1u], tile_keys[s + la + dd - mid])) {
            lo = mid;
          } else {
            hi = mid - 1u;
          }
        }
        var ai = s + lo;
        var bi = s + la + dd - lo;
        let a_end = s + la;
        let b_end = s + la + lb;
        var ka = tile_keys[min(ai, TILE - 1u)];
        var kb = tile_keys[min(bi, TILE - 1u)];
        for (var q = 0u; q < ITEMS; q += 1u) {  // outputs past the pair's end (q >= la + lb - dd) are never stored
          var take_a = ai < a_end;
          if (take_a && bi < b_end) {
            take_a = goes_first(ka, kb);
          }
          if (take_a) {
            k[q] = ka;
//! if PAIRS
            p[q] = tile_pos[ai];
//! endif
            ai += 1u;
            ka = tile_keys[min(ai, TILE - 1u)];
          } else {
            k[q] = kb;
//! if PAIRS
            p[q] = tile_pos[bi];
//! endif
            bi += 1u;
            kb = tile_keys[min(bi, TILE - 1u)];
          }
        }
      }
    }
  }
  // 3. Out through workgroup memory, coalesced.
  workgroupBarrier();
  for (var q = 0u; q < ITEMS; q += 1u) {
    if (d + q < count) {
      tile_keys[d + q] = k[q];
//! if PAIRS
      tile_pos[d + q] = p[q];
//! endif
    }
  }
  workgroupBarrier();
  for (var i = l; i < count; i += WG_SIZE) {
    keys_out[first + i] = tile_keys[i];
//! if PAIRS
    vals_out[first + i] = vals_in[first + tile_pos[i]];
//! endif
  }
}
