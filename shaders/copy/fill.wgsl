// Fills words [0, n) of a storage binding with one value, as a dispatch: a clearBuffer is a transfer command, which
// ends the compute pass around it, and a pass boundary costs more than this dispatch (see bench/floor's batch rows).

struct fill_params {
  n: u32,
  value: u32,
  take_at: u32,  // fill_take: the word that takes take_src[src_at] instead of the value
  src_at: u32,
}

@group(0) @binding(0) var<uniform> params: fill_params;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;

@compute @workgroup_size(256)
fn fill(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let stride = nwg.x * 256u;
  for (var i = gid.x; i < params.n; i += stride) {
    dst[i] = params.value;
  }
}
