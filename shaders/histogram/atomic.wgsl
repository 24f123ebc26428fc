// Histogram by atomic increments. Every value is mapped to an order-preserving u32 key (f32: -0 taken as +0,
// negative values bit-inverted, positive ones with the sign bit set; i32: sign bit flipped; u32: itself), so
// that comparing a value with a bin edge is an exact integer comparison and no driver rounding (fused or
// reassociated float arithmetic) can move a value across an edge.
//
// Contract: edges[0..reach] hold the edges as values of the input type. A value x is counted when
// key(edges[0]) <= key(x) <= key(edges[reach]) and is not NaN, in the bin b < reach with the largest
// key(edges[b]) <= key(x). reach == 0 counts nothing. (The dispatch layer turns NumPy's edges into these: for
// integer input, edge i becomes ceil(edge i), and edges[reach] the largest integer <= the upper bound.)
// The bin is found from an estimate ((x - lo) * scale for f32, (key - key(lo)) * scale for integers) moved by at
// most FIXUP steps to the edges' bracket, else by binary search: the estimate only decides the speed. Where the
// estimate lies farther than params.margin from every integer, its floor is the bin without reading an edge:
// the host's margin bounds how far any evaluation order of the estimate (fused, reassociated) and the edges'
// own rounding can move a value against its edges (even_edges in src/core/host_checks.cpp; >= 0.5 turns it
// off). It saves most values' edge reads (bank-conflicted workgroup loads for random bins).
// PRIVATE_BINS > 0: counts gather first in workgroup memory (tile/histogram.wgsl; PRIVATE_BINS >= reach) and
// are added to the global counts once per workgroup; 0: every value is one global atomic add. Elements are taken in a
// grid-stride loop over this dispatch's chunk, STEP loads per step, each a vec4 of four values with VEC_LOADS.
// VIEW_FUSED (scalar loads only): the input is a view (include/wgprim/view.hpp), computed in the load
// (tile/load.wgsl's load_input, then view_lift: a transform view's expression on the bits, from the prelude).

const NONE: u32 = 0xffffffffu;
const FIXUP: u32 = 2u;

struct hist_params {
  n: u32,
  reach: u32,
  use_estimate: u32,
  pad: u32,
  lo: f32,
  scale: f32,
  margin: f32,
  pad2: u32,
}

@group(0) @binding(0) var<uniform> params: hist_params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read> edges: array<u32>;
@group(0) @binding(3) var<storage, read_write> counts: array<atomic<u32>>;
//! if VIEW_GATHER
@group(0) @binding(4) var<storage, read> view_index: array<u32>;  // a gather's indices, a zip's second range
//! else
@group(0) @binding(4) var<storage, read> src_vec: array<vec4<u32>>;  // src's whole vec4s (VEC_LOADS)
//! endif

//! import tile/histogram.wgsl
//! import tile/load.wgsl

// Value i of the chunk: loaded, or computed by the view.
fn load_value(i: u32) -> u32 {
//! if VIEW_FUSED
  return view_lift(bitcast<u32>(load_input(i)));
//! else
  return src[i];
//! endif
}

fn key_of(bits: u32) -> u32 {
  if (KIND == 0u) {
    var b = bits;
    if (b == 0x80000000u) {
      b = 0u;  // -0 == +0
    }
    if ((b & 0x80000000u) != 0u) {
      return ~b;
    }
    return b | 0x80000000u;
  }
  if (KIND == 1u) {
    return bits ^ 0x80000000u;
  }
  return bits;
}

// EDGE_CACHE > 0: the edges' keys (reach + 1 <= EDGE_CACHE of them) are read once per workgroup into workgroup
// memory, so that the bin search of every value reads workgroup memory instead of the edges' binding.
var<workgroup> wg_edges: array<u32, EDGE_SIZE>;

fn edge_key(i: u32) -> u32 {
  if (EDGE_CACHE > 0u) {
    return wg_edges[i];
  }
  return key_of(edges[i]);
}

// Bin b brackets k: key(edges[b]) <= k, and k < key(edges[b + 1]) unless b is the last reachable bin.
fn brackets(b: u32, k: u32) -> bool {
  return edge_key(b) <= k && (b + 1u == params.reach || k < edge_key(b + 1u));
}

fn bin_of(bits: u32, lo_key: u32, hi_key: u32) -> u32 {
  var d = 0.0;  // the estimate; f32 input: computed once, for the shortcut and the search's start
  if (KIND == 0u) {
    // The shortcut first, before any key: a value whose estimate is farther than the margin from every integer
    // lies strictly inside bin floor(estimate), so inside the range too (the margin's bound holds within a bin's
    // width outside the range, and farther out the estimate is below 0 or past reach); NaN and infinities fail
    // the test (their frac is NaN).
    d = (bitcast<f32>(bits) - params.lo) * params.scale;
    let f = floor(d);
    let frac = d - f;
    if (frac > params.margin && frac < 1.0 - params.margin && f >= 0.0 && f < f32(params.reach)) {
      return u32(f);
    }
    if ((bits & 0x7fffffffu) > 0x7f800000u) {
      return NONE;  // NaN
    }
  }
  let k = key_of(bits);
  if (k < lo_key || k > hi_key) {
    return NONE;
  }
  let last = params.reach - 1u;
  var b = 0u;
  if (params.use_estimate != 0u) {
    if (KIND != 0u) {
      d = f32(k - lo_key) * params.scale;
    }
    b = u32(clamp(d, 0.0, f32(last)));
    b = min(b, last);
  }
  for (var s = 0u; s < FIXUP; s += 1u) {
    if (b > 0u && k < edge_key(b)) {
      b -= 1u;
    } else if (b < last && k >= edge_key(b + 1u)) {
      b += 1u;
    } else {
      return b;
    }
  }
  if (brackets(b, k)) {
    return b;
  }
  // Binary search: the largest b in [0, reach) with key(edges[b]) <= k (key(edges[0]) <= k holds).
  var lo = 0u;
  var hi = params.reach;
  for (var it = 0u; it < 33u && hi - lo > 1u; it += 1u) {
    let mid = lo + (hi - lo) / 2u;
    if (edge_key(mid) <= k) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo;
}

var<private> p_sink: u32;

fn add_to_bin(b: u32, c: u32) {
  if (b == NONE || c == 0u) {
    return;
  }
  if (ABLATE_ATOMICS) {
    // Measurement only (WGPRIM_HISTOGRAM_AB=noatomic): the bins gathered into one word, no atomic per value; the
    // counts are wrong.
    p_sink += b * c;
    return;
  }
  if (PRIVATE_BINS > 0u) {
    private_bin_add(b, c);
  } else {
    atomicAdd(&counts[b], c);
  }
}

// The invocation's running state: the range's keys, and its current run of one bin.
var<private> p_lo_key: u32;
var<private> p_hi_key: u32;
var<private> p_run_bin: u32 = NONE;
var<private> p_run_count: u32 = 0u;

// Counts one value. Consecutive values of one invocation that land in the same bin are added at once (RUN_MERGE):
// data with long runs of one bin (sorted, constant) then costs one atomic per run instead of one per value.
fn count_value(x: u32) {
  let b = bin_of(x, p_lo_key, p_hi_key);
  if (!RUN_MERGE) {
    add_to_bin(b, 1u);
  } else if (b != p_run_bin) {
    add_to_bin(p_run_bin, p_run_count);
    p_run_bin = b;
    p_run_count = 1u;
  } else {
    p_run_count += 1u;
  }
}

@compute @workgroup_size(WG_SIZE)
fn histogram(@builtin(local_invocation_index) l: u32, @builtin(workgroup_id) wid: vec3<u32>,
             @builtin(num_workgroups) nwg: vec3<u32>) {
  let reach = params.reach;
  if (PRIVATE_BINS > 0u) {
    private_bins_clear(l);
  }
  if (EDGE_CACHE > 0u) {
    for (var j = l; j < min(reach + 1u, EDGE_CACHE); j += WG_SIZE) {
      wg_edges[j] = key_of(edges[j]);
    }
  }
  workgroupBarrier();
  if (reach > 0u) {
    p_lo_key = edge_key(0u);
    p_hi_key = edge_key(reach);
    let stride = nwg.x * WG_SIZE;
    let n = params.n;
    // STEP loads per grid-stride step, all issued before any value is binned (that many loads in flight).
    let span = (STEP - 1u) * stride;
    var i = wid.x * WG_SIZE + l;
//! if VEC_LOADS
    {
      // Four values per load (src_vec: the chunk's whole vec4s), then the last n % 4 values one each.
      let n4 = n / 4u;
      for (; STEP > 1u && n4 > span && i < n4 - span; i += STEP * stride) {
        var x: array<vec4<u32>, STEP>;
        for (var k = 0u; k < STEP; k += 1u) {
          x[k] = src_vec[i + k * stride];
        }
        for (var k = 0u; k < STEP; k += 1u) {
          count_value(x[k].x);
          count_value(x[k].y);
          count_value(x[k].z);
          count_value(x[k].w);
        }
      }
      for (; i < n4; i += stride) {
        let v = src_vec[i];
        count_value(v.x);
        count_value(v.y);
        count_value(v.z);
        count_value(v.w);
      }
      let t = 4u * n4 + wid.x * WG_SIZE + l;
      if (t < n) {
        count_value(src[t]);
      }
    }
//! else
    {
      for (; STEP > 1u && n > span && i < n - span; i += STEP * stride) {
        var x: array<u32, STEP>;
        for (var k = 0u; k < STEP; k += 1u) {
          x[k] = load_value(i + k * stride);
        }
        for (var k = 0u; k < STEP; k += 1u) {
          count_value(x[k]);
        }
      }
      for (; i < n; i += stride) {
        count_value(load_value(i));
      }
    }
//! endif
    add_to_bin(p_run_bin, p_run_count);
  }
  if (ABLATE_ATOMICS && p_sink == 0x9e3779b9u) {
    atomicAdd(&counts[0], 1u);  // keeps the sink live
  }
  if (PRIVATE_BINS > 0u) {
    workgroupBarrier();
    private_bins_flush(l, reach);
  }
}
