// The blocks of the comparator sort (src/primitives/sort/comparator.cpp): every tile of TILE = WG_SIZE * ITEMS
// keys of the input (the last may be shorter) sorted by one workgroup into the output, stably, by merge_keys.wgsl's
// key_le (ties keep the input order): each invocation reads its ITEMS consecutive keys, tile/merge_sort.wgsl sorts
// the tile, and it goes out from workgroup memory, coalesced; with PAIRS each output's value is read from its key's
// input position. Bindings 0-5: sort/merge_level_bindings.wgsl (keys_a and keys_b bind the same input; keys_out
// another buffer). PAIRS (a constant of the composition, = MS_POSITIONS): whether values travel.
//! import sort/merge_level_bindings.wgsl
//! import tile/merge_sort.wgsl

fn ms_goes_first(x: u32, y: u32) -> bool {
  return key_le(word_key(x), word_key(y));
}

@compute @workgroup_size(WG_SIZE)
fn merge_block(@builtin(local_invocation_index) l: u32, @builtin(workgroup_id) wid: vec3u) {
  let first = (wid.y * params.grid_x + wid.x) * TILE;
  if (first >= params.out_count) {
    return;  // the whole workgroup: uniform
  }
  let count = min(TILE, params.out_count - first);
  let d = l * ITEMS;
  var k: array<u32, ITEMS>;
  var p: array<u32, ITEMS>;
  for (var q = 0u; q < ITEMS; q += 1u) {
    k[q] = keys_a[first + min(d + q, count - 1u)];
  }
  tile_merge_sort(l, count, &k, &p);
  tile_merge_stage(l, count, &k, &p);
  for (var i = l; i < count; i += WG_SIZE) {
    keys_out[first + i] = ms_keys[i];
//! if PAIRS
    vals_out[first + i] = vals_in[first + ms_pos[i]];
//! endif
  }
}
