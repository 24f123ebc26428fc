// Reproducible reduction: a summation tree whose shape depends on n alone. Block b holds elements
// [b * BLOCK, (b + 1) * BLOCK), BLOCK = 256 * 16; invocation l folds elements b * BLOCK + k * 256 + l for
// k = 0..15 in that order (coalesced loads) into four accumulators by k % 4, combined as (0+1)+(2+3),
// then a fixed halving tree over the 256 values (no subgroups: their
// size differs between GPUs). The block results form the next level's input until one block remains. Nothing
// depends on the adapter, the workgroup count, the subgroup size or the storage-binding chunking, so with
// correctly rounded IEEE additions (WGSL's rule for f32 +) the bits are the same everywhere.
// Used with double-word accumulation, it is reproducible and compensated at once.

const FIXED_WG: u32 = 256u;
const FIXED_ITEMS: u32 = 16u;

struct fixed_params {
  n: u32,
  blocks: u32,
  grid_x: u32,
  out_offset: u32,
}

@group(0) @binding(0) var<uniform> params: fixed_params;
@group(0) @binding(1) var<storage, read> src: array<E>;
@group(0) @binding(2) var<storage, read_write> dst: array<T>;

var<workgroup> wg_sums: array<T, FIXED_WG>;

@compute @workgroup_size(256)
fn reduce_block(@builtin(local_invocation_index) l: u32, @builtin(workgroup_id) wid: vec3u,
                @builtin(num_workgroups) nwg: vec3u) {
  accum_init(nwg.x);
  let block = wid.y * params.grid_x + wid.x;
  if (block >= params.blocks) {
    return;
  }
  let base = block * FIXED_WG * FIXED_ITEMS;
  // Element k goes to accumulator k % 4 (four independent chains), in increasing k.
  var acc = array<T, 4>(identity(), identity(), identity(), identity());
  for (var k = 0u; k < FIXED_ITEMS; k += 1u) {
    let i = base + k * FIXED_WG + l;
    if (i < params.n) {
      acc[k % 4u] = accumulate(acc[k % 4u], src[i]);
    }
  }
  wg_sums[l] = combine(combine(acc[0], acc[1]), combine(acc[2], acc[3]));
  workgroupBarrier();
  for (var stride = FIXED_WG / 2u; stride > 0u; stride >>= 1u) {
    if (l < stride) {
      wg_sums[l] = combine(wg_sums[l], wg_sums[l + stride]);
    }
    workgroupBarrier();
  }
  if (l == 0u) {
    dst[params.out_offset + block] = wg_sums[0];
  }
}
