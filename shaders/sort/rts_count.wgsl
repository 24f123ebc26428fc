// Reduce-then-scan radix sort, step 1 of a digit pass: each workgroup counts the digits of one tile of
// WG_SIZE * ITEMS keys (workgroup atomics) and writes them digit-major: counts[digit * tiles + tile], so that an
// exclusive sum scan of counts (record_scan, step 2) gives every (digit, tile) its first output position.
//! import sort/keys.wgsl

struct rts_params {
  n: u32,
  tiles: u32,
  shift: u32,
  grid_x: u32,
  key_kind: u32,
  descending: u32,
  pairs: u32,
  pad0: u32,
}

@group(0) @binding(0) var<uniform> params: rts_params;
@group(0) @binding(1) var<storage, read> keys: array<u32>;
@group(0) @binding(2) var<storage, read_write> counts: array<u32>;

const TILE: u32 = WG_SIZE * ITEMS;
var<workgroup> wg_bins: array<atomic<u32>, RADIX>;

@compute @workgroup_size(WG_SIZE)
fn count(@builtin(local_invocation_index) l: u32, @builtin(workgroup_id) wid: vec3u) {
  let tile = wid.y * params.grid_x + wid.x;
  if (tile >= params.tiles) {
    return;
  }
  for (var d = l; d < RADIX; d += WG_SIZE) {
    atomicStore(&wg_bins[d], 0u);
  }
  workgroupBarrier();
  let base = tile * TILE;
  for (var k = 0u; k < ITEMS; k += 1u) {
    let i = base + k * WG_SIZE + l;
    if (i < params.n) {
      atomicAdd(&wg_bins[digit_of(keys[i], params.shift)], 1u);
    }
  }
  workgroupBarrier();
  for (var d = l; d < RADIX; d += WG_SIZE) {
    counts[d * params.tiles + tile] = atomicLoad(&wg_bins[d]);
  }
}
