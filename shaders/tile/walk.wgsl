// The tile walk of every reduction (CUB's AgentReduce loop): workgroup g of `groups` visits tiles g, g + groups,
// ... of WG_SIZE * ITEMS * 4 elements, the full tiles without bounds checks, then one partial tile with checks.
// VEC_LOADS: ITEMS coalesced vec4 loads per invocation per tile, and group 0 takes the 0-3 elements past the last
// whole vec4; else 4 * ITEMS scalar loads consecutive across invocations (what CPU adapters vectorise best),
// through load_input (tile/load.wgsl: the input buffer, or a view fused into the load).
// Each element goes to the importer's accumulate hook on one of four chains (independent dependency chains per
// invocation); within a chain an invocation sees its elements in increasing index order.
// Deterministic: the same (g, groups, l, n) always hands the same elements to the same chains in the same order,
// which the single-dispatch reduce relies on when it recomputes a partial.
//
// Contract:
//   reads      src_vec: array<EV> (VEC_LOADS; only for a plain buffer input) and src: array<E> (its 0-3 tail), or
//              load_input(i) (scalar loads), all declared by the importer;
//   writes     nothing itself: the hooks fold the elements;
//   workgroup memory, barriers, subgroup operations: none (the hooks may use per-invocation workgroup columns),
//              so any subgroup size and non-uniform callers are fine;
//   hooks      struct walk_state; fn walk_take(s: ptr<function, walk_state>, chain: u32, x: E, i: u32) folds
//              element x (index i in the bound chunk) into chain 0..3; fn walk_tile_end(s) runs after every full
//              tile (the exact sum normalises its batch there: at most 4 * ITEMS elements per batch, plus the
//              partial tile and 3 tail elements before the importer's last normalisation);
//   constants  WG_SIZE, ITEMS, VEC_LOADS and LOAD_FIRST (compose-time conditions: LOAD_FIRST, with VEC_LOADS, loads a
//              whole tile into registers before the hooks see it, for hooks that write workgroup memory).
//   n_vec = n / 4 (VEC_LOADS only). Offsets are u32: the host keeps n + groups * tile below 2^32.
//! import tile/load.wgsl

//! if VEC_LOADS
// Vec4 j (elements 4 j .. 4 j + 3) to the four chains.
fn walk_take_vec4(s: ptr<function, walk_state>, v: EV, j: u32) {
  walk_take(s, 0u, v[0], 4u * j);
  walk_take(s, 1u, v[1], 4u * j + 1u);
  walk_take(s, 2u, v[2], 4u * j + 2u);
  walk_take(s, 3u, v[3], 4u * j + 3u);
}
//! endif

fn tile_walk(s: ptr<function, walk_state>, g: u32, groups: u32, l: u32, n: u32, n_vec: u32) {
//! if VEC_LOADS
  let tile = WG_SIZE * ITEMS;  // in vec4
  var base = g * tile;
  let stride = groups * tile;
  while (base + tile <= n_vec) {
//! if LOAD_FIRST
    // Every load of the tile before any hook (both loops written out: v stays in registers), so that the tile's loads
    // are in flight together even when a hook writes workgroup memory (the exact sum's limbs), across which a
    // compiler may not move a load.
    var v: array<EV, ITEMS>;
    //! unroll
    for (var k = 0u; k < ITEMS; k += 1u) {
      v[k] = src_vec[base + k * WG_SIZE + l];
    }
    //! unroll
    for (var k = 0u; k < ITEMS; k += 1u) {
      let j = base + k * WG_SIZE + l;
      walk_take_vec4(s, v[k], j);
    }
//! else
    for (var k = 0u; k < ITEMS; k += 1u) {
      let j = base + k * WG_SIZE + l;
      walk_take_vec4(s, src_vec[j], j);
    }
//! endif
    walk_tile_end(s);
    base += stride;
  }
  if (base < n_vec) {
    for (var k = 0u; k < ITEMS; k += 1u) {
      let j = base + k * WG_SIZE + l;
      if (j < n_vec) {
        walk_take_vec4(s, src_vec[j], j);
      }
    }
  }
  let tail = n_vec * 4u;
  if (g == 0u && tail + l < n) {
    walk_take(s, 0u, src[tail + l], tail + l);
  }
//! else
  let tile = WG_SIZE * ITEMS * 4u;  // in elements
  var base = g * tile;
  let stride = groups * tile;
  while (base + tile <= n) {
    for (var k = 0u; k < ITEMS * 4u; k += 4u) {
      let i = base + k * WG_SIZE + l;
      walk_take(s, 0u, load_input(i), i);
      walk_take(s, 1u, load_input(i + WG_SIZE), i + WG_SIZE);
      walk_take(s, 2u, load_input(i + 2u * WG_SIZE), i + 2u * WG_SIZE);
      walk_take(s, 3u, load_input(i + 3u * WG_SIZE), i + 3u * WG_SIZE);
    }
    walk_tile_end(s);
    base += stride;
  }
  if (base < n) {
    for (var k = 0u; k < ITEMS * 4u; k += 1u) {
      let i = base + k * WG_SIZE + l;
      if (i < n) {
        walk_take(s, 0u, load_input(i), i);
      }
    }
  }
//! endif
}
