// The radix sort's upfront histogram: the counts of all four 8-bit digits of the transformed keys in one read of
// the keys. A fixed number of workgroups walk blocks of WG_SIZE * ITEMS keys (so that the global atomics stay
// few: 1,024 per workgroup at most), count in workgroup memory, then add their counts to hist[digit_pass * 256 +
// digit]. The dispatch layer reads hist to skip passes whose digit is the same for every key; the passes read it
// for each digit's start.
//! import sort/keys.wgsl

struct histogram_params {
  n: u32,
  blocks: u32,
  workgroups: u32,
  grid_x: u32,
  key_kind: u32,
  descending: u32,
  pad0: u32,
  pad1: u32,
}

@group(0) @binding(0) var<uniform> params: histogram_params;
@group(0) @binding(1) var<storage, read> keys: array<u32>;
@group(0) @binding(2) var<storage, read_write> hist: array<atomic<u32>>;

var<workgroup> wg_bins: array<atomic<u32>, 1024>;

@compute @workgroup_size(WG_SIZE)
fn histogram(@builtin(local_invocation_index) l: u32, @builtin(workgroup_id) wid: vec3u) {
  for (var i = l; i < 1024u; i += WG_SIZE) {
    atomicStore(&wg_bins[i], 0u);
  }
  workgroupBarrier();
  let w = wid.y * params.grid_x + wid.x;
  for (var block = w; block < params.blocks; block += params.workgroups) {
    let first = block * WG_SIZE * ITEMS;
    for (var k = 0u; k < ITEMS; k += 1u) {
      let i = first + k * WG_SIZE + l;
      if (i < params.n) {
        let s = sortable(keys[i]);
        atomicAdd(&wg_bins[s & 0xffu], 1u);
        atomicAdd(&wg_bins[256u + ((s >> 8u) & 0xffu)], 1u);
        atomicAdd(&wg_bins[512u + ((s >> 16u) & 0xffu)], 1u);
        atomicAdd(&wg_bins[768u + (s >> 24u)], 1u);
      }
    }
  }
  workgroupBarrier();
  for (var i = l; i < 1024u; i += WG_SIZE) {
    let c = atomicLoad(&wg_bins[i]);
    if (c != 0u) {
      atomicAdd(&hist[i], c);
    }
  }
}
