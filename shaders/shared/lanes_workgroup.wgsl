// Workgroup reduction without subgroups: the tree in workgroup memory. Same interface as lanes_subgroup.wgsl.
//! import shared/workgroup.wgsl

struct lane_info {
  @builtin(local_invocation_id) local_id: vec3u,
}

fn workgroup_reduce(l: u32, x: T, li: lane_info) -> T {
  return workgroup_reduce_tree(l, x);
}

struct scan_parts {
  exclusive: T,  // combine of the values of all lower invocations (identity for invocation 0)
  aggregate: T,  // combine of all values, the same bits in every invocation
}

fn workgroup_scan(l: u32, x: T, li: lane_info) -> scan_parts {
  workgroupBarrier();  // earlier readers of wg_data are done
  workgroup_scan_inclusive(l, x);
  return scan_parts(workgroup_exclusive_of(l), wg_data[WG_SIZE - 1u]);
}
