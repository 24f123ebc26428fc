// The partition of a tiled merge level (the comparator sort, src/primitives/sort/comparator.cpp; sort/merge_tile.wgsl
// merges): one invocation per output tile of params.step keys finds, once, where the merge path of its pair crosses
// the tile's first output (sort/merge_path.wgsl: a binary search in global memory) and writes it to splits[split_base + t]: the
// tile's outputs start at A key a = splits[split_base + t] and B key d - a of its pair (d: the tile's first output relative
// to the pair). A tile never straddles two pairs (sort/merge_tile_pairs.wgsl: which pair, with RUNS equal runs or a
// table of runs of any length). keys_a and keys_b bind the same input.
//! import sort/merge_path.wgsl
//! import sort/merge_tile_pairs.wgsl

@group(0) @binding(0) var<uniform> params: merge_params;
@group(0) @binding(1) var<storage, read> keys_a: array<u32>;
@group(0) @binding(2) var<storage, read> keys_b: array<u32>;
@group(0) @binding(3) var<storage, read_write> splits: array<u32>;

@compute @workgroup_size(WG_SIZE)
fn merge_tile_split(@builtin(local_invocation_index) l: u32, @builtin(workgroup_id) wid: vec3u) {
  let t = (wid.y * params.grid_x + wid.x) * WG_SIZE + l;
  if (t >= params.diagonals) {
    return;
  }
  let g = tile_pair_of(t);
  splits[params.split_base + t] = pair_path(g.s, g.la, g.lb, g.d0);
}
