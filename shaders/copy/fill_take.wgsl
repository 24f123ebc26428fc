// fill (copy/fill.wgsl), except word take_at, which takes take_src[src_at]: a cleared state and a count copied into
// it with one dispatch instead of two (the counted sort).
//! import copy/fill.wgsl

@group(0) @binding(2) var<storage, read> take_src: array<u32>;

@compute @workgroup_size(256)
fn fill_take(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let stride = nwg.x * 256u;
  for (var i = gid.x; i < params.n; i += stride) {
    if (i == params.take_at) {
      dst[i] = take_src[params.src_at];
    } else {
      dst[i] = params.value;
    }
  }
}
