// Appended to floor.wgsl when the adapter has f32 atomics (native feature ShaderFloat32Atomic): a single-dispatch
// reduce, each workgroup adding its tree sum into `total` (cleared by the same command buffer before the pass).
// The order of the adds varies, which the floor's data (small integers, exact sums) makes harmless.
@group(0) @binding(2) var<storage, read_write> total: atomic<f32>;

@compute @workgroup_size(256)
fn reduce_atomic(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) groups: vec3u,
                 @builtin(local_invocation_index) lid: u32) {
  let n = arrayLength(&data);
  let per_group = (n + groups.x - 1u) / groups.x;
  let begin = wid.x * per_group;
  let end = min(begin + per_group, n);
  var acc = 0.0;
  for (var i = begin + lid; i < end; i = i + wg) {
    acc = acc + data[i];
  }
  scratch[lid] = acc;
  workgroupBarrier();
  let t = tree_sum(lid);
  if (lid == 0u) {
    atomicAdd(&total, t);
  }
}
