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

// Shuffles of a T. A 64-bit T (T_WIDE: i64, u64, f64) moves as two u32 words through t_to_words / t_from_words
// (the prelude's): 64-bit subgroup operations need Vulkan's shaderSubgroupExtendedTypes, which wgpu does not
// request. Any other T (32-bit scalars, vectors of them) is shuffled as it is.
//! if T_WIDE
fn shuffle_t(v: T, i: u32) -> T {
  let w = t_to_words(v);
  return t_from_words(vec2<u32>(subgroupShuffle(w.x, i), subgroupShuffle(w.y, i)));
}

fn shuffle_up_t(v: T, d: u32) -> T {
  let w = t_to_words(v);
  return t_from_words(vec2<u32>(subgroupShuffleUp(w.x, d), subgroupShuffleUp(w.y, d)));
}

fn shuffle_down_t(v: T, d: u32) -> T {
  let w = t_to_words(v);
  return t_from_words(vec2<u32>(subgroupShuffleDown(w.x, d), subgroupShuffleDown(w.y, d)));
}

fn shuffle_xor_t(v: T, m: u32) -> T {
  let w = t_to_words(v);
  return t_from_words(vec2<u32>(subgroupShuffleXor(w.x, m), subgroupShuffleXor(w.y, m)));
}
//! else
fn shuffle_t(v: T, i: u32) -> T {
  return subgroupShuffle(v, i);
}

fn shuffle_up_t(v: T, d: u32) -> T {
  return subgroupShuffleUp(v, d);
}

fn shuffle_down_t(v: T, d: u32) -> T {
  return subgroupShuffleDown(v, d);
}

fn shuffle_xor_t(v: T, m: u32) -> T {
  return subgroupShuffleXor(v, m);
}
//! endif

fn subgroup_reduce(x: T, li: lane_info) -> T {
  var v = x;
  for (var offset = li.size / 2u; offset > 0u; offset >>= 1u) {
    v = combine(v, shuffle_xor_t(v, offset));
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

// Inclusive scan inside a subgroup: Hillis-Steele over lanes with subgroupShuffleUp; the earlier lane's value is
// always the left operand, so it is correct for operators that do not commute.
fn subgroup_scan_inclusive(x: T, li: lane_info) -> T {
  var v = x;
  for (var d = 1u; d < li.size; d <<= 1u) {
    let other = shuffle_up_t(v, d);
    if (li.lane >= d) {
      v = combine(other, v);
    }
  }
  return v;
}

struct scan_parts {
  exclusive: T,  // combine of the values of all lower invocations (identity for invocation 0)
  aggregate: T,  // combine of all values, the same bits in every invocation
}

// Subgroup totals meet in workgroup memory: `before` = combine of the totals of the lower subgroups (identity
// for subgroup 0), `total` = combine of all of them, folded left to right in subgroup order by every invocation
// (the same bits everywhere). `sub_total` counts in lane size - 1. The caller orders earlier readers of
// wg_subgroup_totals before the call (a barrier).
struct subgroup_prefix {
  before: T,
  total: T,
}

fn across_subgroups(sub_total: T, li: lane_info) -> subgroup_prefix {
  if (li.lane == li.size - 1u) {
    wg_subgroup_totals[li.id] = sub_total;
  }
  workgroupBarrier();
  var total = wg_subgroup_totals[0];
  var before = identity();
  if (li.id > 0u) {
    before = total;
  }
  for (var i = 1u; i < li.count; i += 1u) {
    total = combine(total, wg_subgroup_totals[i]);
    if (i < li.id) {
      before = total;
    }
  }
  return subgroup_prefix(before, total);
}

// Workgroup scan: subgroup scans, then each invocation folds the totals of the subgroups before its own.
// Two barriers instead of the 2 log2(WG_SIZE) of the workgroup-memory scan.
fn workgroup_scan(l: u32, x: T, li: lane_info) -> scan_parts {
  workgroupBarrier();  // earlier readers of wg_subgroup_totals are done
  let inclusive = subgroup_scan_inclusive(x, li);
  let lower = shuffle_up_t(inclusive, 1u);
  let sp = across_subgroups(inclusive, li);
  var exclusive = sp.before;
  if (li.lane > 0u) {
    exclusive = lower;
    if (li.id > 0u) {
      exclusive = combine(sp.before, lower);
    }
  }
  return scan_parts(exclusive, sp.total);
}
