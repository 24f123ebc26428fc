// The subgroup-raked tile layout of the decoupled scan (scan/decoupled.wgsl imports it when RAKED; the layout of
// Smith, Levien & Owens, SPAA 2025). A full tile of WG_SIZE * ITEMS vec4 is split into one contiguous chunk of
// size * ITEMS vec4 per subgroup; lane `lane` of subgroup `id` holds vec4 k * size + lane of its chunk
// (k < ITEMS), so each load and store instruction of a subgroup touches one contiguous run of `size` vec4
// (coalesced, without staging through workgroup memory as STAGED does). Each vec4 is folded serially
// (x, y, z, w); then, for k = 0, 1, ..., a subgroup inclusive scan over the lanes' folds, behind the subgroup's
// running total of the earlier k (always the left operand: combine need not commute). The subgroup totals meet
// in workgroup memory (across_subgroups). The tile's own aggregate (raked_load_scan) and the look-back's fallback
// (raked_tile_aggregate) run the same combines in the same order, so a tile's AGGREGATE has the same bits
// whoever publishes it.
//
// Contract: the subgroup lanes import (shared/lanes_subgroup.wgsl) with full subgroups (a subgroup size that
// divides WG_SIZE: lavapipe 8, NVIDIA 32, AMD 64); the importing file's ITEMS, ITEMS4, TILE, src_vec, dst_vec and
// `vals` (vals[4 k .. 4 k + 3]: this invocation's vec4 k). Full tiles only.

// raked_prefix[k]: combine of the tile's elements before this invocation's vec4 k (unset for the tile's first
// vec4, subgroup 0 lane 0 k 0: see raked_has_prefix).
var<private> raked_prefix: array<T, ITEMS>;

fn fold4(v: vec4<T>) -> T {
  return combine(combine(combine(v.x, v.y), v.z), v.w);
}

// Index in src_vec / dst_vec of this invocation's vec4 k of tile `tile`.
fn raked_index(tile: u32, k: u32, li: lane_info) -> u32 {
  return tile * (TILE / 4u) + (li.id * ITEMS + k) * li.size + li.lane;
}

struct raked_step {
  lane_before: T,  // combine of the subgroup's values before this lane's (k = 0, lane 0: unset)
  run: T,          // the subgroup's running total through this k
}

// Step k of a subgroup's chunk: `x` is this lane's fold of its vec4 k, `run` the subgroup's total of the
// earlier k (unused for k = 0).
fn raked_scan_step(run: T, k: u32, x: T, li: lane_info) -> raked_step {
  let inclusive = subgroup_scan_inclusive(x, li);
  let lower = shuffle_up_t(inclusive, 1u);  // lane 0 gets no value here
  let total = shuffle_t(inclusive, li.size - 1u);
  if (k == 0u) {
    return raked_step(lower, total);
  }
  var before = run;
  if (li.lane > 0u) {
    before = combine(run, lower);
  }
  return raked_step(before, combine(run, total));
}

// Whether this invocation's vec4 k has anything of the tile before it (all but the tile's first vec4).
fn raked_has_prefix(k: u32, li: lane_info) -> bool {
  return k > 0u || li.lane > 0u || li.id > 0u;
}

// Loads the full tile `tile` into vals and scans it: fills raked_prefix, returns the tile's aggregate (the same
// in every invocation). Call from uniform control flow, once per workgroup, before any other use of
// wg_subgroup_totals.
fn raked_load_scan(tile: u32, li: lane_info) -> T {
  for (var k = 0u; k < ITEMS; k += 1u) {  // every load first: ITEMS in flight
    let v = src_vec[raked_index(tile, k, li)];
    vals[4u * k] = v.x;
    vals[4u * k + 1u] = v.y;
    vals[4u * k + 2u] = v.z;
    vals[4u * k + 3u] = v.w;
  }
  var run = identity();
  for (var k = 0u; k < ITEMS; k += 1u) {
    let v = vec4<T>(vals[4u * k], vals[4u * k + 1u], vals[4u * k + 2u], vals[4u * k + 3u]);
    let s = raked_scan_step(run, k, fold4(v), li);
    raked_prefix[k] = s.lane_before;
    run = s.run;
  }
  // No barrier before: a workgroup scans one tile, and nothing has read wg_subgroup_totals yet.
  let sp = across_subgroups(run, li);
  if (li.id > 0u) {
    for (var k = 0u; k < ITEMS; k += 1u) {
      if (k == 0u && li.lane == 0u) {
        raked_prefix[k] = sp.before;
      } else {
        raked_prefix[k] = combine(sp.before, raked_prefix[k]);
      }
    }
  }
  return sp.total;
}

// The look-back's fallback: the aggregate of the full tile `tile`, folded and combined exactly as
// raked_load_scan does, straight from memory (vals and raked_prefix stay as they are). Uniform control flow.
fn raked_tile_aggregate(tile: u32, li: lane_info) -> T {
  var run = identity();
  for (var k = 0u; k < ITEMS; k += 1u) {
    run = raked_scan_step(run, k, fold4(src_vec[raked_index(tile, k, li)]), li).run;
  }
  workgroupBarrier();  // earlier readers of wg_subgroup_totals are done
  return across_subgroups(run, li).total;
}

// Writes vals back where raked_load_scan read them.
fn raked_store(tile: u32, li: lane_info) {
  for (var k = 0u; k < ITEMS; k += 1u) {
    dst_vec[raked_index(tile, k, li)] = vec4<T>(vals[4u * k], vals[4u * k + 1u], vals[4u * k + 2u], vals[4u * k + 3u]);
  }
}
