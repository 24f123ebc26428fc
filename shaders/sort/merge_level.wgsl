// One level of a merge sort inside one binding (the comparator sort, src/primitives/sort/comparator.cpp), the
// level kept for comparison (WGPRIM_COMPARATOR_MERGE=level; sort/merge_tile.wgsl is the default): the input holds
// sorted runs of params.la keys (the last may be shorter); pairs of neighbouring runs merge into runs of 2 la in the
// output, every pair in the same dispatch. Each invocation writes ITEMS consecutive outputs of one pair (2 la is a
// multiple of ITEMS): it finds the merge path at its first output by a binary search over the pair in global memory
// (sort/merge_path.wgsl; merge_keys.wgsl's key_le: ties from the left run, stable) and merges sequentially from
// there. A run without a partner is copied. Values (pairs) follow their keys. Bindings:
// sort/merge_level_bindings.wgsl (keys_a and keys_b bind the same input).
//! import sort/merge_path.wgsl
//! import sort/merge_level_bindings.wgsl

@compute @workgroup_size(WG_SIZE)
fn merge_level(@builtin(local_invocation_index) l: u32, @builtin(workgroup_id) wid: vec3u) {
  let n = params.out_count;
  let run = params.la;
  let first = ((wid.y * params.grid_x + wid.x) * WG_SIZE + l) * ITEMS;
  if (first >= n) {
    return;
  }
  let s = first / (2u * run) * (2u * run);  // the pair's first key
  let la = min(run, n - s);
  let lb = min(run, n - s - la);
  let sb = s + la;  // B's first key
  let d = first - s;
  let lo = pair_path(s, la, lb, d);
  var ai = lo;
  var bi = d - lo;
  let stop = min(d + ITEMS, la + lb);
  for (var o = d; o < stop; o += 1u) {
    var take_a = ai < la;
    if (take_a && bi < lb) {
      take_a = key_le(key_a(s + ai), key_b(sb + bi));
    }
    var src_i = sb + bi;
    if (take_a) {
      src_i = s + ai;
      ai += 1u;
    } else {
      bi += 1u;
    }
    keys_out[s + o] = keys_a[src_i];
    if (params.pairs != 0u) {
      vals_out[s + o] = vals_in[src_i];
    }
  }
}
