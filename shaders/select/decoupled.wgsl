// Stable compaction in one pass (select by predicate or flags, partition, unique), like std::copy_if /
// std::stable_partition / std::unique and cub::DeviceSelect. Each workgroup claims the next tile from an atomic
// counter (shared/lookback.wgsl), decides per element whether it is kept, counts its kept elements (a workgroup
// scan of the per-invocation counts), and finds how many elements earlier tiles kept through the decoupled
// look-back with fallback (the fallback recounts a predecessor tile from the input). Each kept element is then
// written at (kept before it); with PARTITION, each rejected one at total + (rejected before it), where total
// comes from the count_kept pass (entry point below), so the rejected part keeps the input order too.
//
// Elements travel as raw u32 bits (select moves them unchanged); T is u32 with combine = + (the prelude of a u32
// sum): the counts. The dispatch layer prepends `alias ELEM` (the element type) and `fn keep_predicate(a: ELEM)
// -> bool` (the user's predicate; `true` for the other modes).
//
// Chunks: an array larger than one storage binding is processed in chunks of whole tiles; carry[carry_index] is
// what earlier chunks kept and the last tile writes carry[carry_index + 1]. The output is bound as a window of
// at most one binding [win_first, win_first + win_count): elements whose destination falls outside are written by
// the dispatch of another window (one array = one window: a single dispatch).
// carry (u32): [0, chunks] kept before each chunk, [total_index] the partition's total, [prev_index] the element
// before this chunk (unique).

const ITEMS4: u32 = ITEMS * 4u;
const TILE: u32 = WG_SIZE * ITEMS * 4u;
const MODE_PREDICATE: u32 = 0u;
const MODE_FLAGS: u32 = 1u;
const MODE_UNIQUE: u32 = 2u;

struct select_params {
  n: u32,             // elements of this chunk
  tiles: u32,
  grid_x: u32,        // count_kept: workgroups per row of the 2-D grid
  chunk_first: u32,   // index of the chunk's first element in the whole array
  win_first: u32,
  win_count: u32,
  carry_index: u32,
  total_index: u32,
  prev_index: u32,
  has_prev: u32,      // unique: carry[prev_index] holds the element before this chunk
  spin_limit: u32,
  stress: u32,
}

@group(0) @binding(0) var<uniform> params: select_params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read> src_vec: array<vec4<u32>>;
@group(0) @binding(3) var<storage, read> flags: array<u32>;
@group(0) @binding(4) var<storage, read> flags_vec: array<vec4<u32>>;
@group(0) @binding(5) var<storage, read_write> dst: array<u32>;
@group(0) @binding(6) var<storage, read_write> state: array<atomic<u32>>;
@group(0) @binding(7) var<storage, read_write> carry: array<atomic<u32>>;

//! import shared/lookback.wgsl
//! import shared/predicate.wgsl

var<private> vals: array<u32, ITEMS4>;
// STAGED: the tile's output is first compacted in workgroup memory (kept elements, then rejected ones), so that
// the global writes are coalesced (invocation l writes elements l, l + WG_SIZE, ...) instead of each invocation
// writing its own run. STAGE_SIZE is TILE when staged, 1 otherwise.
var<workgroup> wg_out: array<u32, STAGE_SIZE>;

// f32 == on bits (IEEE: a NaN equals nothing, -0 == +0) without a float compare, which a shader compiler may
// fold on the assumption that there are no NaNs. Integers: bitwise equality.
fn same_value(x: u32, y: u32) -> bool {
  if (IS_F32) {
    return (x == y && (x & 0x7fffffffu) <= 0x7f800000u) || ((x | y) & 0x7fffffffu) == 0u;
  }
  return x == y;
}

fn keep_one(x: u32, flag: u32, prev: u32, has_prev: bool) -> bool {
  if (MODE == MODE_FLAGS) {
    return flag != 0u;
  }
  if (MODE == MODE_UNIQUE) {
    return !has_prev || !same_value(x, prev);
  }
  return keep_predicate(bitcast<ELEM>(x));
}

// The element before index i of the chunk (unique only): x = value, y = 1 when there is one.
fn element_before(i: u32) -> vec2<u32> {
  if (MODE != MODE_UNIQUE) {
    return vec2<u32>(0u, 0u);
  }
  if (i > 0u) {
    return vec2<u32>(src[i - 1u], 1u);
  }
  if (params.has_prev != 0u) {
    return vec2<u32>(atomicLoad(&carry[params.prev_index]), 1u);
  }
  return vec2<u32>(0u, 0u);
}

// Four consecutive elements starting at index i (a multiple of 4) of a full tile: bit k set = element i + k kept.
fn keep4(v: vec4<u32>, i: u32, before: vec2<u32>) -> u32 {
  var f = vec4<u32>(1u);
  if (MODE == MODE_FLAGS) {
    f = flags_vec[i / 4u];
  }
  var m = select(0u, 1u, keep_one(v.x, f.x, before.x, before.y != 0u));
  m |= select(0u, 2u, keep_one(v.y, f.y, v.x, true));
  m |= select(0u, 4u, keep_one(v.z, f.z, v.y, true));
  m |= select(0u, 8u, keep_one(v.w, f.w, v.z, true));
  return m;
}

// Loads invocation l's ITEMS4 consecutive elements of a tile into vals; returns the kept mask (bit k: vals[k]).
fn load_tile(tile: u32, l: u32) -> u32 {
  let first = tile * TILE + l * ITEMS4;
  var before = element_before(first);
  var mask = 0u;
  if ((tile + 1u) * TILE <= params.n) {
    for (var j = 0u; j < ITEMS; j += 1u) {
      let v = src_vec[first / 4u + j];
      vals[4u * j] = v.x;
      vals[4u * j + 1u] = v.y;
      vals[4u * j + 2u] = v.z;
      vals[4u * j + 3u] = v.w;
      mask |= keep4(v, first + 4u * j, before) << (4u * j);
      before = vec2<u32>(v.w, 1u);
    }
  } else {
    for (var k = 0u; k < ITEMS4; k += 1u) {
      vals[k] = 0u;
      let i = first + k;
      if (i < params.n) {
        let x = src[i];
        vals[k] = x;
        var f = 1u;
        if (MODE == MODE_FLAGS) {
          f = flags[i];
        }
        if (keep_one(x, f, before.x, before.y != 0u)) {
          mask |= 1u << k;
        }
        before = vec2<u32>(x, 1u);
      }
    }
  }
  return mask;
}

// The look-back's fallback: a full predecessor tile's kept count, recounted from the input (vals untouched).
fn lookback_fallback(tile: u32, l: u32, li: lane_info) -> T {
  let first = tile * TILE + l * ITEMS4;
  var before = element_before(first);
  var count = 0u;
  for (var j = 0u; j < ITEMS; j += 1u) {
    let v = src_vec[first / 4u + j];
    count += countOneBits(keep4(v, first + 4u * j, before));
    before = vec2<u32>(v.w, 1u);
  }
  return workgroup_reduce(l, count, li);
}

@compute @workgroup_size(WG_SIZE)
fn select_tiles(@builtin(local_invocation_index) l: u32, li: lane_info) {
  let tile = claim_tile(l);
  if (tile >= params.tiles) {
    return;
  }
  let mask = load_tile(tile, l);
  let parts = workgroup_scan(l, countOneBits(mask), li);
  publish_aggregate(tile, l, parts.aggregate, params.stress != 0u);
  // Published states count this chunk only; what earlier chunks kept is added from carry.
  let walked = look_back(tile, l, li, params.spin_limit, params.stress != 0u);
  let chunk_before = atomicLoad(&carry[params.carry_index]);
  if (l == 0u) {
    publish(tile, INCLUSIVE, walked.prefix + parts.aggregate);
    if (tile == params.tiles - 1u) {
      atomicStore(&carry[params.carry_index + 1u], chunk_before + walked.prefix + parts.aggregate);
    }
  }
  var total = 0u;
  if (PARTITION) {
    total = atomicLoad(&carry[params.total_index]);
  }
  let tile_first = tile * TILE;                                   // in the chunk
  let kept_base = chunk_before + walked.prefix;                   // kept elements before this tile
  let rejected_base = params.chunk_first + tile_first - kept_base;  // rejected elements before this tile
  if (STAGED) {
    var kept_at = parts.exclusive;              // this invocation's next kept element, in the tile
    var rejected_at = l * ITEMS4 - parts.exclusive;  // and its next rejected one
    for (var k = 0u; k < ITEMS4; k += 1u) {
      if ((mask & (1u << k)) != 0u) {
        wg_out[kept_at] = vals[k];
        kept_at += 1u;
      } else if (PARTITION && tile_first + l * ITEMS4 + k < params.n) {
        wg_out[parts.aggregate + rejected_at] = vals[k];
        rejected_at += 1u;
      }
    }
    workgroupBarrier();
    var count = parts.aggregate;
    if (PARTITION) {
      count = min(TILE, params.n - tile_first);
    }
    for (var i = l; i < count; i += WG_SIZE) {
      var dest = kept_base + i;
      if (i >= parts.aggregate) {
        dest = total + rejected_base + (i - parts.aggregate);
      }
      // Outside the window: the dispatch of another window writes it (dest - win_first wraps when below).
      if (dest - params.win_first < params.win_count) {
        dst[dest - params.win_first] = wg_out[i];
      }
    }
    return;
  }
  var kept_before = kept_base + parts.exclusive;  // kept elements before vals[0]
  var rejected_before = rejected_base + l * ITEMS4 - parts.exclusive;
  for (var k = 0u; k < ITEMS4; k += 1u) {
    var dest = 0xffffffffu;
    if ((mask & (1u << k)) != 0u) {
      dest = kept_before;
      kept_before += 1u;
    } else if (PARTITION && tile_first + l * ITEMS4 + k < params.n) {
      dest = total + rejected_before;
      rejected_before += 1u;
    }
    // Outside the window (or no destination): another dispatch writes it. dest - win_first wraps when below.
    if (dest - params.win_first < params.win_count) {
      dst[dest - params.win_first] = vals[k];
    }
  }
}

// Partition only: the number of kept elements of the chunk, added to carry[total_index] (one atomic per tile).
@compute @workgroup_size(WG_SIZE)
fn count_kept(@builtin(local_invocation_index) l: u32, @builtin(workgroup_id) wid: vec3<u32>, li: lane_info) {
  let tile = wid.x + wid.y * params.grid_x;
  if (tile >= params.tiles) {
    return;
  }
  let count = workgroup_reduce(l, countOneBits(load_tile(tile, l)), li);
  if (l == 0u) {
    atomicAdd(&carry[params.total_index], count);
  }
}
