// Reduce-then-scan radix sort, step 1 of a digit pass (slot params.slot of the plan, sort/buffers.wgsl; an
// inactive slot returns at once): each workgroup counts the digits of one tile of WG_SIZE * ITEMS keys (workgroup
// atomics) and writes them digit-major: counts[digit * tiles + tile], so that an exclusive sum scan of counts
// (record_scan, step 2) gives every (digit, tile) its first output position.
//! import sort/buffers.wgsl

@group(0) @binding(8) var<storage, read_write> counts: array<u32>;

const TILE: u32 = WG_SIZE * ITEMS;
var<workgroup> wg_bins: array<atomic<u32>, RADIX>;
var<workgroup> wg_plan: u32;

@compute @workgroup_size(WG_SIZE)
fn count(@builtin(local_invocation_index) l: u32, @builtin(workgroup_id) wid: vec3u) {
  let tile = wid.y * params.grid_x + wid.x;
  if (tile >= params.tiles) {
    return;
  }
  if (l == 0u) {
    let p = plan_of(params.slot);
    wg_plan = select(0xffffffffu, p.dpass | (p.src << 8u), p.on);
  }
  let packed = workgroupUniformLoad(&wg_plan);
  if (packed == 0xffffffffu) {
    return;
  }
  let dpass = packed & 0xffu;
  let src = packed >> 8u;
  for (var d = l; d < RADIX; d += WG_SIZE) {
    atomicStore(&wg_bins[d], 0u);
  }
  workgroupBarrier();
  let base = tile * TILE;
  let n = sort_n();
  for (var k = 0u; k < ITEMS; k += 1u) {
    let i = base + k * WG_SIZE + l;
    if (i < n) {
      atomicAdd(&wg_bins[digit_of(load_key(src, i), dpass)], 1u);
    }
  }
  workgroupBarrier();
  for (var d = l; d < RADIX; d += WG_SIZE) {
    counts[d * params.tiles + tile] = atomicLoad(&wg_bins[d]);
  }
}
