// Merge-path split points of two sorted runs that may exceed one binding (sort/merge_keys.wgsl): for diagonals
// d = t * step (t < diagonals, the last clamped to la + lb), a(d) into splits[split_base + t] (cleared before).
// One dispatch binds one window of A and one of B; the host dispatches every pair of windows, so that each
// candidate a (A[a - 1] in some A window, B[d - a] in some B window) is tested by exactly one dispatch. Each
// invocation (one diagonal) searches the candidates its windows hold and takes the atomic maximum of the largest
// one that passes (the predicate is monotone, so the maximum over all windows is a(d)), and of lo itself.
//! import sort/merge_keys.wgsl

@group(0) @binding(0) var<uniform> params: merge_params;
@group(0) @binding(1) var<storage, read> keys_a: array<u32>;
@group(0) @binding(2) var<storage, read> keys_b: array<u32>;
@group(0) @binding(3) var<storage, read_write> splits: array<atomic<u32>>;

@compute @workgroup_size(WG_SIZE)
fn merge_split(@builtin(global_invocation_id) gid: vec3u) {
  let t = gid.x;
  if (t >= params.diagonals) {
    return;
  }
  let total = params.la + params.lb;
  let d = min(t * params.step, total);
  let lo = select(0u, d - params.lb, d > params.lb);
  let hi = min(d, params.la);
  atomicMax(&splits[params.split_base + t], lo);
  // Candidates here: a - 1 in [a_first, a_first + a_count) and d - a in [b_first, b_first + b_count).
  var s = max(lo, params.a_first);  // the search interval is (s, e]
  if (d + 1u > params.b_first + params.b_count) {
    s = max(s, d - (params.b_first + params.b_count));
  }
  if (d < params.b_first) {
    return;
  }
  let e = min(min(hi, params.a_first + params.a_count), d - params.b_first);
  if (s >= e) {
    return;
  }
  let a = search_path(s, e, d);
  if (a > s) {
    atomicMax(&splits[params.split_base + t], a);
  }
}
