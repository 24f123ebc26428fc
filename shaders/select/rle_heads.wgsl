// Run-length encoding's second pass (src/primitives/select/by_key.cpp, record_rle_heads). The first pass, unique's
// (select/decoupled.wgsl with HEADS), wrote where each run starts, in order: heads[j] for runs j < runs, and the
// number of runs in runs[0]. Run j's value is keys[heads[j]] (its first key, as the CPU twin keeps it) and its
// length the next run's start (n after the last run) minus its own. A grid-stride loop over the runs on a grid the
// host sizes from n (no indirect dispatch: its argument pass and validation cost more per call than the loop).
// Runs at or past `capacity` (the outputs' length) are not written: the host reports them.

struct rle_heads_params {
  n: u32,          // keys
  capacity: u32,
  stride: u32,     // invocations in the grid
  pad0: u32,
}

@group(0) @binding(0) var<uniform> params: rle_heads_params;
@group(0) @binding(1) var<storage, read> keys: array<u32>;
@group(0) @binding(2) var<storage, read> heads: array<u32>;
@group(0) @binding(3) var<storage, read_write> values: array<u32>;
@group(0) @binding(4) var<storage, read_write> lengths: array<u32>;
@group(0) @binding(5) var<storage, read> runs: array<u32>;

@compute @workgroup_size(WG_SIZE)
fn rle_lengths(@builtin(global_invocation_id) gid: vec3<u32>) {
  let count = runs[0];
  let last = min(count, params.capacity);
  for (var j = gid.x; j < last; j += params.stride) {
    let start = heads[j];
    var next = params.n;
    if (j + 1u < count) {
      next = heads[j + 1u];
    }
    values[j] = keys[start];
    lengths[j] = next - start;
  }
}
