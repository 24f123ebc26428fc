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
    // Every load of the block first (indices clamped; a key past n is read again and not counted), then the
    // atomics: the ITEMS loads are in flight together instead of one per step (H200, 2^28 u32 keys: 1.07 ms with a
    // load inside each step's bounds check).
    var lo: array<u32, ITEMS>;
    var hi: array<u32, ITEMS>;
    for (var k = 0u; k < ITEMS; k += 1u) {
      let i = min(first + k * WG_SIZE + l, max(n, 1u) - 1u);
      lo[k] = keys[KEY_WORDS * i];
      hi[k] = select(0u, keys[KEY_WORDS * i + KEY_WORDS - 1u], KEY_WORDS == 2u);
    }
    for (var k = 0u; k < ITEMS; k += 1u) {
      if (first + k * WG_SIZE + l < n) {
        if (KEY_WORDS == 1u) {
          let s = sortable(lo[k]);
          for (var p = params.pass_lo; p < params.pass_hi; p += 1u) {
            atomicAdd(&wg_bins[p * 256u + ((s >> (p * 8u)) & 0xffu)], 1u);
          }
        } else {
          let s = sortable2(vec2<u32>(lo[k], hi[k]));
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
