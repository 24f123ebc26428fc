// Scan-then-propagate, the seed's algorithm kept as our baseline, extended to any length.
// scan_blocks: each workgroup scans WG_SIZE elements of src into dst (inclusive or exclusive) and writes its
//   block total to aux[block]. Blocks are numbered over a 2-D grid (grid_x wide) to pass 65,535 workgroups.
// add_back: after the block totals were scanned (inclusively) into src, adds the total of all earlier blocks,
//   and the carry aux[0] from earlier chunks when use_carry is set, to every element of dst.
// update_carry: aux is unused; dst[0] = combine(dst[0], src[carry_index]) carries a chunk's total forward.
// The dispatch layer recurses on the block totals until one block remains.
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
@group(0) @binding(1) var<storage, read> src: array<T>;
@group(0) @binding(2) var<storage, read_write> dst: array<T>;
@group(0) @binding(3) var<storage, read_write> aux: array<T>;

@compute @workgroup_size(WG_SIZE)
fn scan_blocks(@builtin(local_invocation_index) l: u32, @builtin(workgroup_id) wid: vec3u) {
  let block = wid.y * params.grid_x + wid.x;
  if (block >= params.blocks) {
    return;
  }
  let i = block * WG_SIZE + l;
  var x = identity();
  if (i < params.n) {
    x = src[i];
  }
  let inclusive = workgroup_scan_inclusive(l, x);
  if (i < params.n) {
    if (params.exclusive != 0u) {
      dst[i] = workgroup_exclusive_of(l);
    } else {
      dst[i] = inclusive;
    }
  }
  if (l == WG_SIZE - 1u) {
    aux[block] = inclusive;
  }
}

@compute @workgroup_size(WG_SIZE)
fn add_back(@builtin(local_invocation_index) l: u32, @builtin(workgroup_id) wid: vec3u) {
  let block = wid.y * params.grid_x + wid.x;
  let i = block * WG_SIZE + l;
  if (block >= params.blocks || i >= params.n || (block == 0u && params.use_carry == 0u)) {
    return;
  }
  var prefix = identity();
  if (params.use_carry != 0u) {
    prefix = aux[0];
  }
  if (block > 0u) {
    prefix = combine(prefix, src[block - 1u]);
  }
  dst[i] = combine(prefix, dst[i]);
}

@compute @workgroup_size(1)
fn update_carry() {
  dst[0] = combine(dst[0], src[params.carry_index]);
}
