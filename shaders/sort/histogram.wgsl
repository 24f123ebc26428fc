// The radix sort's upfront histogram: the counts of every 8-bit digit of the transformed keys (4 passes for
// 32-bit keys, 8 for 64-bit) in one read of the keys. A fixed number of workgroups walk blocks of WG_SIZE * ITEMS
// keys (so that the global atomics stay few: RADIX * PASSES per workgroup at most), count in workgroup memory,
// then add their counts to state[HIST + pass * 256 + digit] (cleared before). The plan kernel turns them into
// the active passes and each digit's start. Only the passes [pass_lo, pass_hi) covering the compared bits are
// counted (the others would put every key in digit 0: contended atomics for nothing).
//! import sort/keys.wgsl
//! import sort/count.wgsl

const PASSES: u32 = 4u * KEY_WORDS;

@group(0) @binding(0) var<uniform> params: sort_params;
@group(0) @binding(1) var<storage, read> keys: array<u32>;
@group(0) @binding(2) var<storage, read_write> state: array<atomic<u32>>;

var<workgroup> wg_bins: array<atomic<u32>, 2048>;

@compute @workgroup_size(WG_SIZE)
fn histogram(@builtin(local_invocation_index) l: u32, @builtin(workgroup_id) wid: vec3u) {
  for (var i = l; i < PASSES * RADIX; i += WG_SIZE) {
    atomicStore(&wg_bins[i], 0u);
  }
  workgroupBarrier();
  let w = wid.y * params.grid_x + wid.x;
  let n = sort_n();
  for (var block = w; block < params.blocks; block += params.workgroups) {
    let first = block * WG_SIZE * ITEMS;
    for (var k = 0u; k < ITEMS; k += 1u) {
      let i = first + k * WG_SIZE + l;
      if (i < n) {
        if (KEY_WORDS == 1u) {
          let s = sortable(keys[i]);
          for (var p = params.pass_lo; p < params.pass_hi; p += 1u) {
            atomicAdd(&wg_bins[p * 256u + ((s >> (p * 8u)) & 0xffu)], 1u);
          }
        } else {
          let s = sortable2(vec2<u32>(keys[2u * i], keys[2u * i + 1u]));
          for (var p = params.pass_lo; p < params.pass_hi; p += 1u) {
            let word = select(s.x, s.y, p >= 4u);
            atomicAdd(&wg_bins[p * 256u + ((word >> ((p % 4u) * 8u)) & 0xffu)], 1u);
          }
        }
      }
    }
  }
  workgroupBarrier();
  for (var i = l; i < PASSES * RADIX; i += WG_SIZE) {
    let c = atomicLoad(&wg_bins[i]);
    if (c != 0u) {
      atomicAdd(&state[HIST + i], c);
    }
  }
}
