// The memory-copy limit on this adapter: a grid-stride vec4 copy of the same bytes a scan moves
// (benchmarks use it as the ceiling for scan).

struct copy_params {
  n_vec: u32,
  pad0: u32,
  pad1: u32,
  pad2: u32,
}

@group(0) @binding(0) var<uniform> params: copy_params;
@group(0) @binding(1) var<storage, read> src: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read_write> dst: array<vec4<u32>>;

@compute @workgroup_size(256)
fn copy(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let stride = nwg.x * 256u;
  for (var i = gid.x; i < params.n_vec; i += stride) {
    dst[i] = src[i];
  }
}
