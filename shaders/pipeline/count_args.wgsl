// Device-side counts (wgprim::device_count): what lets a count written by one pass size the next pass without
// the host. The count is read where it lies (`count[count_at]`, a window of the caller's buffer).
//
// size_grid (one invocation) works on one work block of the parameter ring (recorder::work_block), laid out by
// primitives/counted.cpp as [0, B) the pass's parameter block as recorded, [B, B + 4) the indirect grid, [B + 4,
// B + 16) the sizing config below (B = the block's words; the binding ends there, so B = arrayLength - 16). It
// clamps the count to the capacity the pass was recorded for, writes the grid of ceil(n / tile) workgroups (x, y,
// 1), split in two dimensions as detail::grid_2d does (x * y >= tiles; 0 x 0 when the count is 0: the pass does
// not run; 1 x 1 with one_group), and patches the block in place: its count-dependent words replaced (n, tiles,
// grid_x; NONE leaves a word alone). The pass then binds the block as its uniform parameters and the grid as its
// indirect arguments, so its kernel reads the device count exactly where it read the host's, with no change to its
// WGSL and no copy (a transfer command would end the compute pass). The neutral tail of a counted range: pipeline/pad_tail.wgsl.

const NONE: u32 = 0xffffffffu;

struct count_args_config {
  capacity: u32,
  tile: u32,                   // elements per workgroup of the pass
  max_dim: u32,                // workgroups per grid dimension
  words: u32,                  // u32 words of the pass's parameter block
  n_word: u32,                 // where n goes in the block (NONE: nowhere)
  tiles_word: u32,             // ceil(n / tile)
  grid_x_word: u32,            // workgroups per row of the 2-D grid
  n2_word: u32,                // a second copy of n (e.g. the width of an output window)
  count_at: u32,               // the count's word in `count`
  one_group: u32,              // 1: a count of 0 runs one workgroup (1 x 1), which finds tiles 0
}

@group(0) @binding(0) var<storage, read_write> work: array<u32>;
@group(0) @binding(1) var<storage, read> count: array<u32>;

@compute @workgroup_size(1)
fn size_grid() {
  size_work_block();
}

// The sizing itself (size_grid, and pipeline/count_args_fill.wgsl's first invocation).
fn size_work_block() {
  let grid_at = arrayLength(&work) - 16u;
  let c = grid_at + 4u;
  let cfg = count_args_config(work[c], work[c + 1u], work[c + 2u], work[c + 3u], work[c + 4u], work[c + 5u],
                              work[c + 6u], work[c + 7u], work[c + 8u], work[c + 9u]);
  let n = min(count[cfg.count_at], cfg.capacity);
  let tiles = (n + cfg.tile - 1u) / cfg.tile;
  var x = tiles;
  var y = 1u;
  if (tiles == 0u) {
    x = cfg.one_group;
    y = cfg.one_group;
  } else if (tiles > cfg.max_dim) {
    y = (tiles + cfg.max_dim - 1u) / cfg.max_dim;
    x = (tiles + y - 1u) / y;
  }
  work[grid_at] = x;
  work[grid_at + 1u] = y;
  work[grid_at + 2u] = 1u;
  for (var i = 0u; i < cfg.words; i += 1u) {
    if (i == cfg.n_word || i == cfg.n2_word) {
      work[i] = n;
    } else if (i == cfg.tiles_word) {
      work[i] = tiles;
    } else if (i == cfg.grid_x_word) {
      work[i] = x;
    }
  }
}
