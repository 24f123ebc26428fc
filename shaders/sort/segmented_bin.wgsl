// The segmented sort's binning on the GPU (src/primitives/sort/segmented.cpp, offsets given on the device): one
// invocation per segment sorts it into the paths of sort/segmented_short.wgsl and sort/segmented.wgsl by its
// length; the short and mid sorts run in the same submission, sized and gated by the counts on the device, and only
// a few words come back to the host instead of every offset:
//   counts[0]: segments of SHORT + 1 .. MID keys, their indices appended to `list` (sort_mid's list; any order:
//     segments are independent);
//   counts[1]: longer segments, the first LARGE_CAP of them appended to `large` as (first key, end) pairs (the
//     host sorts each by the device sort; past the cap it reads the offsets instead);
//   counts[2]: offsets out of order (offsets[s + 1] < offsets[s], or the last above n): the run stops with an error;
//   counts[3]: segments of 2 .. SHORT keys (whether sort_short is needed);
//   counts[11]: the segments of counts[0] longer than MID_SPLIT (whether sort_mid's larger size class runs;
//     counts[4 .. 11) are sort_mid's indirect grids, written by segmented_short.wgsl's tile_starts).

struct bin_params {
  n: u32,           // keys
  n_segments: u32,
  grid_x: u32,      // invocations per row of the 2-D grid: grid_x * WG_SIZE
  large_cap: u32,
}

@group(0) @binding(0) var<uniform> params: bin_params;
@group(0) @binding(1) var<storage, read> offsets: array<u32>;
@group(0) @binding(2) var<storage, read_write> list: array<u32>;
@group(0) @binding(3) var<storage, read_write> counts: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read_write> large: array<u32>;

// The counts are gathered per workgroup first (one global atomic per count per workgroup, not one per segment on
// the same word; on the H200 that moved 2^28 keys in segments of 16 only from 5.2 to 5.0 ms: it was not the cost).
var<workgroup> wg_counts: array<atomic<u32>, 5>;  // [4]: mid segments longer than MID_SPLIT
var<workgroup> wg_base: array<u32, 2>;

@compute @workgroup_size(WG_SIZE)
fn bin_segments(@builtin(local_invocation_index) l: u32, @builtin(workgroup_id) wid: vec3u) {
  let s = (wid.y * params.grid_x + wid.x) * WG_SIZE + l;
  if (l < 5u) {
    atomicStore(&wg_counts[l], 0u);
  }
  workgroupBarrier();
  var kind = 4u;  // the count it adds to (0 mid, 1 long, 2 bad, 3 short); 4: none
  var b = 0u;
  var e = 0u;
  if (s < params.n_segments) {
    b = offsets[s];
    e = offsets[s + 1u];
    if (e < b || (s + 1u == params.n_segments && e > params.n)) {
      kind = 2u;
    } else if (e - b >= 2u) {
      let len = e - b;
      kind = select(select(1u, 0u, len <= MID), 3u, len <= SHORT);
    }
  }
  var mine = 0u;
  if (kind < 4u) {
    mine = atomicAdd(&wg_counts[kind], 1u);
  }
  if (kind == 0u && e - b > MID_SPLIT) {
    atomicAdd(&wg_counts[4], 1u);
  }
  workgroupBarrier();
  if (l < 5u) {
    let c = atomicLoad(&wg_counts[l]);
    var base = 0u;
    if (c != 0u) {
      base = atomicAdd(&counts[select(l, 11u, l == 4u)], c);
    }
    if (l < 2u) {
      wg_base[l] = base;
    }
  }
  workgroupBarrier();
  if (kind == 0u) {
    list[wg_base[0] + mine] = s;
  } else if (kind == 1u) {
    let i = wg_base[1] + mine;
    if (i < params.large_cap) {
      large[2u * i] = b;
      large[2u * i + 1u] = e;
    }
  }
}
