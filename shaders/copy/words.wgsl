// Copies params.n u32 words from src[params.src_at ..] to dst[params.dst_at ..] inside a compute pass (a count or a
// small table between passes: a transfer command would end the pass). One word per invocation.

struct words_params {
  n: u32,
  src_at: u32,
  dst_at: u32,
  pad: u32,
}

@group(0) @binding(0) var<uniform> params: words_params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;

@compute @workgroup_size(64)
fn copy_words(@builtin(global_invocation_id) gid: vec3u) {
  if (gid.x < params.n) {
    dst[params.dst_at + gid.x] = src[params.src_at + gid.x];
  }
}
