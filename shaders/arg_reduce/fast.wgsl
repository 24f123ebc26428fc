// Arg-min / arg-max in two passes, the fast reduce's shape over (value, index) pairs (arg_reduce/pair.wgsl).
// arg_partials: each workgroup walks tiles of WG_SIZE * ITEMS * 4 elements (tile/walk.wgsl: vec4 or scalar loads,
// the input or a view fused into the load), keeping four (value, index) accumulators per invocation. Each accumulator sees its elements in increasing index order
// and is replaced only by a strictly better value, so it holds the first index of its best value without
// comparing indices in the loop. The workgroup's pairs meet in workgroup_reduce (subgroup shuffles of the pair, or
// workgroup memory) with chunk-local u32 indices; invocation 0 adds the chunk's 64-bit base (params.base_lo/hi:
// arrays larger than one binding are dispatched chunk by chunk) and writes the pair to dst as four words at
// 4 * (out_offset + group). With params.finish (one workgroup covering all of a small array) it writes the final
// three words instead.
// arg_final: one workgroup folds params.n partial pairs and writes the result words (value bits, index low,
// index high) at dst[out_offset..out_offset + 2].
// An index still NO_INDEX at the end means no element beat the identity's worst value and none was NaN: every
// element equals the worst value, so the first index, 0, is the answer (its bits are the worst value's: it has
// one encoding).

//! import tile/walk.wgsl

struct arg_params {
  n: u32,          // elements (arg_partials) or partial pairs (arg_final)
  n_vec: u32,      // n / 4 (VEC_LOADS only)
  out_offset: u32, // arg_partials: pair slot of workgroup 0; with finish and in arg_final: word offset of the result
  finish: u32,     // arg_partials: 1 = write the final result (one workgroup)
  base_lo: u32,    // the chunk's first element index, 64-bit
  base_hi: u32,
  pad0: u32,
  pad1: u32,
}

@group(0) @binding(0) var<uniform> params: arg_params;
//! if VIEW_GATHER
@group(0) @binding(1) var<storage, read> view_index: array<u32>;
//! else
@group(0) @binding(1) var<storage, read> src_vec: array<EV>;
//! endif
@group(0) @binding(2) var<storage, read> src: array<E>;
@group(0) @binding(3) var<storage, read> partials: array<vec4<u32>>;
@group(0) @binding(4) var<storage, read_write> dst: array<u32>;

struct acc {
  value: E,
  index: u32,
}

fn take_better(a: acc, x: E, i: u32) -> acc {
  if (better(x, a.value)) {
    return acc(x, i);
  }
  return a;
}

// The tile walk's accumulate hook (tile/walk.wgsl): one (value, index) accumulator per chain.
struct walk_state {
  acc: array<acc, 4>,
}

fn walk_take(s: ptr<function, walk_state>, chain: u32, x: E, i: u32) {
  (*s).acc[chain] = take_better((*s).acc[chain], x, i);
}

fn walk_tile_end(s: ptr<function, walk_state>) {
}

fn as_pair(a: acc) -> T {
  return T(bitcast<u32>(a.value), a.index, select(0u, NO_INDEX, a.index == NO_INDEX));
}

fn write_result(at: u32, p: T) {
  if (p.y == NO_INDEX && p.z == NO_INDEX) {
    dst[at] = p.x;
    dst[at + 1u] = 0u;
    dst[at + 2u] = 0u;
  } else {
    dst[at] = p.x;
    dst[at + 1u] = p.y;
    dst[at + 2u] = p.z;
  }
}

@compute @workgroup_size(WG_SIZE)
fn arg_partials(@builtin(local_invocation_index) l: u32, @builtin(workgroup_id) wid: vec3u,
                @builtin(num_workgroups) nwg: vec3u, li: lane_info) {
  let worst = bitcast<E>(worst_bits());
  var s = walk_state(array<acc, 4>(acc(worst, NO_INDEX), acc(worst, NO_INDEX), acc(worst, NO_INDEX),
                                   acc(worst, NO_INDEX)));
  tile_walk(&s, wid.x, nwg.x, l, params.n, params.n_vec);
  let mine = combine(combine(as_pair(s.acc[0]), as_pair(s.acc[1])), combine(as_pair(s.acc[2]), as_pair(s.acc[3])));
  var total = workgroup_reduce(l, mine, li);
  if (l == 0u) {
    if (total.y != NO_INDEX) {
      // Chunk-local index -> global 64-bit index.
      let lo = total.y + params.base_lo;
      total = T(total.x, lo, params.base_hi + select(0u, 1u, lo < total.y));
    }
    if (params.finish != 0u) {
      write_result(params.out_offset, total);
    } else {
      let at = 4u * (params.out_offset + wid.x);
      dst[at] = total.x;
      dst[at + 1u] = total.y;
      dst[at + 2u] = total.z;
      dst[at + 3u] = 0u;
    }
  }
}

@compute @workgroup_size(WG_SIZE)
fn arg_final(@builtin(local_invocation_index) l: u32, li: lane_info) {
  var best = identity();
  for (var i = l; i < params.n; i += WG_SIZE) {
    best = combine(best, partials[i].xyz);
  }
  let total = workgroup_reduce(l, best, li);
  if (l == 0u) {
    write_result(params.out_offset, total);
  }
}
