// Kernels of the floor program (bench/floor/floor.cpp): the least work that still proves a call ran.

// bump: one invocation increments a persistent counter, so every call returns a new value the host can check
// (a stale read-back cannot pass for a fresh one).
@group(0) @binding(0) var<storage, read_write> counter: array<u32>;

@compute @workgroup_size(1)
fn bump() {
  counter[0] = counter[0] + 1u;
}

// reduce_partials + reduce_combine: a plain one-pass sum of `data` by 256 workgroups of 256 invocations (each
// workgroup a contiguous chunk, coalesced strided loads, a workgroup-memory tree), then one workgroup adds the 256
// partials into partials[256]. No subgroups, so it runs the same on every adapter.
@group(0) @binding(0) var<storage, read> data: array<f32>;
@group(0) @binding(1) var<storage, read_write> partials: array<f32>;

const wg: u32 = 256u;
var<workgroup> scratch: array<f32, 256>;

fn tree_sum(lid: u32) -> f32 {
  for (var s = wg / 2u; s > 0u; s = s / 2u) {
    if (lid < s) {
      scratch[lid] = scratch[lid] + scratch[lid + s];
    }
    workgroupBarrier();
  }
  return scratch[0];
}

@compute @workgroup_size(256)
fn reduce_partials(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) groups: vec3u,
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
  let total = tree_sum(lid);
  if (lid == 0u) {
    partials[wid.x] = total;
  }
}

@compute @workgroup_size(256)
fn reduce_combine(@builtin(local_invocation_index) lid: u32) {
  scratch[lid] = partials[lid];
  workgroupBarrier();
  let total = tree_sum(lid);
  if (lid == 0u) {
    partials[wg] = total;
  }
}
