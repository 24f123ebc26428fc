// Scan-then-propagate, the seed's algorithm kept as our baseline, extended to any length and to accumulators
// wider than the elements (E lifted into T: double-word pairs for compensated and reproducible f32 scans).
// scan_blocks: each workgroup scans WG_SIZE elements of src into dst (inclusive or exclusive) and writes its
//   block total to aux[block]. Blocks are numbered over a 2-D grid (grid_x wide) to pass 65,535 workgroups.
// add_back: after the block totals were scanned (inclusively) into aux, adds the total of all earlier blocks,
//   and the carry from earlier chunks when use_carry is set, to every element of dst.
// update_carry: carry[0] = combine(carry[0], aux[carry_index]) carries a chunk's total forward.
// The dispatch layer recurses on the block totals (with E = T) until one block remains. The shape depends on n
// and the chunk size only, so a fixed chunk size makes the result reproducible.
//! import shared/workgroup.wgsl

struct scan_params {
  n: u32,
  blocks: u32,
  grid_x: u32,
  exclusive: u32,
  use_carry: u32,
  carry_index: u32,
  pad0: u32,
  pad1: u32,
}

@group(0) @binding(0) var<uniform> params: scan_params;
@group(0) @binding(1) var<storage, read> src: array<E>;
@group(0) @binding(2) var<storage, read_write> dst: array<E>;
@group(0) @binding(3) var<storage, read_write> aux: array<T>;
@group(0) @binding(4) var<storage, read_write> carry: array<T>;

@compute @workgroup_size(WG_SIZE)
fn scan_blocks(@builtin(local_invocation_index) l: u32, @builtin(workgroup_id) wid: vec3u,
               @builtin(num_workgroups) nwg: vec3u) {
  accum_init(nwg.x);
  let block = wid.y * params.grid_x + wid.x;
  if (block >= params.blocks) {
    return;
  }
  let i = block * WG_SIZE + l;
  var x = identity();
  if (i < params.n) {
    x = lift(src[i]);
  }
  let inclusive = workgroup_scan_inclusive(l, x);
  if (i < params.n) {
    if (params.exclusive != 0u) {
      dst[i] = finalize(workgroup_exclusive_of(l));
    } else {
      dst[i] = finalize(inclusive);
    }
  }
  if (l == WG_SIZE - 1u) {
    aux[block] = inclusive;
  }
}

@compute @workgroup_size(WG_SIZE)
fn add_back(@builtin(local_invocation_index) l: u32, @builtin(workgroup_id) wid: vec3u,
            @builtin(num_workgroups) nwg: vec3u) {
  accum_init(nwg.x);
  let block = wid.y * params.grid_x + wid.x;
  let i = block * WG_SIZE + l;
  if (block >= params.blocks || i >= params.n || (block == 0u && params.use_carry == 0u)) {
    return;
  }
  var prefix = identity();
  if (params.use_carry != 0u) {
    prefix = carry[0];
  }
  if (block > 0u) {
    prefix = combine(prefix, aux[block - 1u]);
  }
  dst[i] = finalize(combine(prefix, lift(dst[i])));
}

@compute @workgroup_size(1)
fn update_carry(@builtin(num_workgroups) nwg: vec3u) {
  accum_init(nwg.x);
  carry[0] = combine(carry[0], aux[params.carry_index]);
}
