// Placeholder for shared/lookback_subgroup.wgsl where the look-back is walked by the workgroup (no subgroups, or
// the policy's choice): the same signature, never called (SUBGROUP_LOOKBACK guards the call), so the module needs
// no subgroup operations.

fn look_back_subgroup(tile: u32, l: u32, li: lane_info, spin_limit: u32, stress: bool) -> lookback_result {
  return look_back(tile, l, li, spin_limit, stress);
}
