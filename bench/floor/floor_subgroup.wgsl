// Appended to floor.wgsl when the adapter has subgroups: the partials pass with one subgroupAdd and a single
// workgroup barrier instead of the workgroup-memory tree (8 barriers). subgroup_id / num_subgroups name the
// subgroups, so nothing assumes a subgroup size (4..128 gives 2..64 subgroups of 256 invocations).
var<workgroup> subgroup_sums: array<f32, 64>;

@compute @workgroup_size(256)
fn reduce_partials_subgroup(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) groups: vec3u,
                            @builtin(local_invocation_index) lid: u32,
                            @builtin(subgroup_invocation_id) lane: u32, @builtin(subgroup_id) sg: u32,
                            @builtin(num_subgroups) sg_count: u32) {
  let n = arrayLength(&data);
  let per_group = (n + groups.x - 1u) / groups.x;
  let begin = wid.x * per_group;
  let end = min(begin + per_group, n);
  var acc = 0.0;
  for (var i = begin + lid; i < end; i = i + wg) {
    acc = acc + data[i];
  }
  let s = subgroupAdd(acc);
  if (lane == 0u) {
    subgroup_sums[sg] = s;
  }
  workgroupBarrier();
  if (lid == 0u) {
    var t = 0.0;
    for (var k = 0u; k < sg_count; k = k + 1u) {
      t = t + subgroup_sums[k];
    }
    partials[wid.x] = t;
  }
}
