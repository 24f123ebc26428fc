// Workgroup reduction without subgroups: the tree in workgroup memory. Same interface as lanes_subgroup.wgsl.
//! import shared/workgroup.wgsl

struct lane_info {
  @builtin(local_invocation_id) local_id: vec3u,
}

fn workgroup_reduce(l: u32, x: T, li: lane_info) -> T {
  return workgroup_reduce_tree(l, x);
}
