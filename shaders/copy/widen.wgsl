// Widens packed storage elements into their accumulation type, one element per invocation: f16 (two per u32
// word, KIND 0) into f32, u8 (four per word, KIND 1) into u32, i8 (KIND 2) into i32, little-endian (element k of
// a word is its bits 16k.. or 8k..). Reduce and scan run on the widened copy, so that every algorithm and
// operator of the accumulation type works unchanged. The grid is 2-D: element i = x + y * (groups in x) * 256.

struct widen_params {
  n: u32,       // elements in this chunk
  pad0: u32,
  pad1: u32,
  pad2: u32,
}

@group(0) @binding(0) var<uniform> params: widen_params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<W>;

fn widen_one(word: u32, lane: u32) -> W {
  if (KIND == 0u) {
    // unpack2x16float is core WGSL: no shader-f16 needed; every f16 (subnormals too) is exact in f32.
    return W(unpack2x16float(word)[lane]);
  }
  if (KIND == 1u) {
    return W((word >> (8u * lane)) & 0xffu);
  }
  return W(extractBits(bitcast<i32>(word), 8u * lane, 8u));  // sign-extended
}

@compute @workgroup_size(256)
fn widen(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = gid.x + gid.y * nwg.x * 256u;
  if (i >= params.n) {
    return;
  }
  dst[i] = widen_one(src[i / PER_WORD], i % PER_WORD);
}
