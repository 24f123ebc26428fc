// Workgroup reduction through subgroups (when the adapter has them): a butterfly of subgroupShuffleXor inside
// each subgroup, one value per subgroup in workgroup memory, then every subgroup folds those values the same
// way, so all invocations get the total without divergent subgroup operations. Any subgroup size that divides
// WG_SIZE works (lavapipe: 8, NVIDIA: 32). Needs a commutative combine (the butterfly pairs lanes both ways).

struct lane_info {
  @builtin(subgroup_size) size: u32,
  @builtin(subgroup_invocation_id) lane: u32,
  @builtin(subgroup_id) id: u32,
  @builtin(num_subgroups) count: u32,
}

var<workgroup> wg_subgroup_totals: array<T, WG_SIZE>;

fn subgroup_reduce(x: T, li: lane_info) -> T {
  var v = x;
  for (var offset = li.size / 2u; offset > 0u; offset >>= 1u) {
    v = combine(v, subgroupShuffleXor(v, offset));
  }
  return v;
}

fn workgroup_reduce(l: u32, x: T, li: lane_info) -> T {
  let s = subgroup_reduce(x, li);
  if (li.lane == 0u) {
    wg_subgroup_totals[li.id] = s;
  }
  workgroupBarrier();
  var t = identity();
  for (var i = li.lane; i < li.count; i += li.size) {
    t = combine(t, wg_subgroup_totals[i]);
  }
  let total = subgroup_reduce(t, li);
  workgroupBarrier();
  return total;
}
