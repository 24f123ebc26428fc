// Run-length encoding's second pass (src/primitives/select/by_key.cpp, record_rle_heads). The first pass, unique's
// (select/decoupled.wgsl with HEADS), wrote where each run starts, in order: heads[j] for runs j < runs. Run j's
// value is keys[heads[j]] (its first key, as the CPU twin keeps it) and its length the next run's start (n after
// the last run) minus its own. One invocation per run; `runs`, `tiles` and `grid_x` are patched on the device from
// the first pass's count, and the grid is an indirect dispatch (primitives/counted.hpp). Runs at or past
// `capacity` (the outputs' length) are not written: the host reports them.

struct rle_heads_params {
  runs: u32,
  tiles: u32,
  grid_x: u32,     // workgroups per row of the 2-D grid
  n: u32,          // keys
  capacity: u32,
  pad0: u32,
  pad1: u32,
  pad2: u32,
}

@group(0) @binding(0) var<uniform> params: rle_heads_params;
@group(0) @binding(1) var<storage, read> keys: array<u32>;
@group(0) @binding(2) var<storage, read> heads: array<u32>;
@group(0) @binding(3) var<storage, read_write> values: array<u32>;
@group(0) @binding(4) var<storage, read_write> lengths: array<u32>;

@compute @workgroup_size(WG_SIZE)
fn rle_lengths(@builtin(local_invocation_index) l: u32, @builtin(workgroup_id) wid: vec3<u32>) {
  let j = (wid.y * params.grid_x + wid.x) * WG_SIZE + l;
  if (j >= params.runs || j >= params.capacity) {
    return;
  }
  let start = heads[j];
  var next = params.n;
  if (j + 1u < params.runs) {
    next = heads[j + 1u];
  }
  values[j] = keys[start];
  lengths[j] = next - start;
}
