// Test kernel: out[i] = combine(a[i], b[i]). Checks a custom operator's WGSL against its CPU twin element by
// element (the reductions only ever see associative uses of it).

struct map_params {
  n: u32,
  pad0: u32,
  pad1: u32,
  pad2: u32,
}

@group(0) @binding(0) var<uniform> params: map_params;
@group(0) @binding(1) var<storage, read> lhs: array<T>;
@group(0) @binding(2) var<storage, read> rhs: array<T>;
@group(0) @binding(3) var<storage, read_write> out: array<T>;

@compute @workgroup_size(64)
fn map_combine(@builtin(global_invocation_id) gid: vec3u) {
  if (gid.x < params.n) {
    out[gid.x] = combine(lhs[gid.x], rhs[gid.x]);
  }
}
