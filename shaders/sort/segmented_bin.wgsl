// The segmented sort's binning on the GPU (src/primitives/sort/segmented.cpp, offsets given on the device): one
// invocation per segment sorts it into the paths of sort/segmented_short.wgsl and sort/segmented.wgsl by its
// length; the short and mid sorts run in the same submission, sized and gated by the counts on the device, and only
// a few words come back to the host instead of every offset:
//   counts[0]: segments of SHORT + 1 .. MID keys, their indices appended to `list` (sort_mid's list; any order:
//     segments are independent);
//   counts[1]: longer segments, the first LARGE_CAP of them appended to `large` as (first key, end) pairs (the
//     host sorts each by the device sort; past the cap it reads the offsets instead);
//   counts[2]: offsets out of order (offsets[s + 1] < offsets[s], or the last above n): the run stops with an error;
//   counts[3]: segments of 2 .. SHORT keys (whether sort_short is needed).

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

@compute @workgroup_size(WG_SIZE)
fn bin_segments(@builtin(local_invocation_index) l: u32, @builtin(workgroup_id) wid: vec3u) {
  let s = (wid.y * params.grid_x + wid.x) * WG_SIZE + l;
  if (s >= params.n_segments) {
    return;
  }
  let b = offsets[s];
  let e = offsets[s + 1u];
  if (e < b || (s + 1u == params.n_segments && e > params.n)) {
    atomicAdd(&counts[2], 1u);
    return;
  }
  let len = e - b;
  if (len < 2u) {
    return;
  }
  if (len <= SHORT) {
    atomicAdd(&counts[3], 1u);
  } else if (len <= MID) {
    list[atomicAdd(&counts[0], 1u)] = s;
  } else {
    let i = atomicAdd(&counts[1], 1u);
    if (i < params.large_cap) {
      large[2u * i] = b;
      large[2u * i + 1u] = e;
    }
  }
}

