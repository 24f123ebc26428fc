// The offsets each tile owns: one invocation per tile boundary t <= params.tiles, bounds[t] = the first offset
// index s with offsets[s] >= t * TILE (a binary search; bounds[tiles] = n_seg + 1). Tile t owns the offsets
// [bounds[t], bounds[t + 1]): with offsets in order they start inside it, and every index 0..n_seg is owned by
// one tile, so the tile passes can check each offset against the next one. Offsets out of order leave bounds
// that are still in 0..n_seg + 1 (the tile passes count the breakage).
//
// Contract: reads the importer's params.n_seg, params.tiles, offsets: array<u32> (n_seg + 1), the constants TILE
// and WG_SIZE; writes bounds: array<u32> (tiles + 1). No workgroup memory, no barriers. Dispatch a 2-D grid of
// ceil((tiles + 1) / WG_SIZE) workgroups (an importer may write its own entry point around tile_bound).

//! import shared/lower_bound.wgsl

// bounds[t] for one boundary t <= params.tiles.
fn tile_bound(t: u32) {
  if (t == params.tiles) {
    bounds[t] = params.n_seg + 1u;
    return;
  }
  bounds[t] = offsets_lower_bound(t * TILE, params.n_seg + 1u);
}

// The boundary of this invocation, if any (the 2-D grid's index).
fn boundary_index(gid: vec3<u32>, nwg: vec3<u32>) -> u32 {
  return gid.y * nwg.x * WG_SIZE + gid.x;
}

@compute @workgroup_size(WG_SIZE)
fn bounds_pass(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let t = boundary_index(gid, nwg);
  if (t <= params.tiles) {
    tile_bound(t);
  }
}
