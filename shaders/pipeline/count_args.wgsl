// Device-side counts (wgprim::device_count): what lets a count written by one pass size the next pass without
// the host. The dispatch layer copies the count into work[0] (any 4-byte aligned place -> this buffer), then:
//
// size_grid (one invocation): clamps the count to the capacity the pass was recorded for, writes the grid of
// ceil(n / tile) workgroups as indirect dispatch arguments (x, y, 1) at work[1..3], split in two dimensions as
// detail::grid_2d does (x * y >= tiles; 0 x 0 when the count is 0: the pass does not run), and patches the pass's
// parameter block at work[4 ..] (written there by the host as recorded) in place: its count-dependent words
// replaced (n, tiles, grid_x; NONE leaves a word alone). The dispatch layer copies that block over the pass's uniform slot,
// so the pass's kernel reads the device count exactly where it read the host's, with no change to its WGSL.
//
// pad_tail: writes params.pad into dst[n .. capacity) (n = work[0] clamped): the tail of a counted range that a pass
// over the whole capacity must see as neutral (the largest key of an ascending sort, a reduction's identity).
// One u32 per invocation, 2-D grid of grid_x workgroups per row.

const NONE: u32 = 0xffffffffu;

struct count_args_params {
  capacity: u32,
  tile: u32,                   // elements per workgroup of the pass
  max_dim: u32,                // workgroups per grid dimension
  words: u32,                  // u32 words of the pass's parameter block (at work[4 ..])
  n_word: u32,                 // where n goes in the block (NONE: nowhere)
  tiles_word: u32,             // ceil(n / tile)
  grid_x_word: u32,            // workgroups per row of the 2-D grid
  n2_word: u32,                // a second copy of n (e.g. the width of an output window)
  pad: u32,                    // pad_tail: the value written past the count
}

@group(0) @binding(0) var<uniform> params: count_args_params;
@group(0) @binding(1) var<storage, read_write> work: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;

@compute @workgroup_size(1)
fn size_grid() {
  let n = min(work[0], params.capacity);
  let tiles = (n + params.tile - 1u) / params.tile;
  var x = tiles;
  var y = 1u;
  if (tiles == 0u) {
    y = 0u;
  } else if (tiles > params.max_dim) {
    y = (tiles + params.max_dim - 1u) / params.max_dim;
    x = (tiles + y - 1u) / y;
  }
  work[1] = x;
  work[2] = y;
  work[3] = 1u;
  for (var i = 0u; i < params.words; i += 1u) {
    var w = work[4u + i];
    if (i == params.n_word || i == params.n2_word) {
      w = n;
    } else if (i == params.tiles_word) {
      w = tiles;
    } else if (i == params.grid_x_word) {
      w = x;
    }
    work[4u + i] = w;
  }
}

@compute @workgroup_size(64)
fn pad_tail(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let i = gid.x + gid.y * groups.x * 64u;
  let n = min(work[0], params.capacity);
  if (i >= n && i < params.capacity) {
    dst[i] = params.pad;
  }
}
