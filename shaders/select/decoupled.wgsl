// Stable compaction in one pass (select by predicate or flags, partition, unique), like std::copy_if /
// std::stable_partition / std::unique and cub::DeviceSelect. Each workgroup claims the next tile from an atomic
// counter (tile/lookback.wgsl), decides per element whether it is kept, counts its kept elements (a workgroup
// scan of the per-invocation counts), and finds how many elements earlier tiles kept through the decoupled
// look-back with fallback (the fallback recounts a predecessor tile from the input). Each kept element is then
// written at (kept before it); with PARTITION, each rejected one at total + (rejected before it), where total
// comes from the count_kept pass (entry point below), so the rejected part keeps the input order too; with
// REVERSED (cub::DevicePartition::If's order) at n_total - 1 - (rejected before it), which needs no count pass.
//
// Three layouts of a full tile (the policy picks one; a partial last tile takes the blocked layout with direct
// writes, or staged ones when STAGED): blocked with direct writes (invocation l decides ITEMS consecutive vec4
// and writes its own kept elements: scattered writes), STAGED (blocked, the tile compacted in workgroup memory
// first, then written coalesced: invocation l writes tile outputs l, l + WG_SIZE, ...), and RAKED (subgroup
// chunks, see select_raked: coalesced loads and writes without workgroup memory; composed in only when RAKED).
// The look-back's fallback counts a predecessor in the blocked layout: a count is an integer sum, the same
// whatever the order.
//
// HEADS (unique only: run-length encoding's first pass, src/primitives/select/by_key.cpp): each kept element's
// index in the whole array is written instead of the element, so the output holds where every run starts.
//
// Elements travel as raw u32 bits (select moves them unchanged); T is u32 with combine = + (the prelude of a u32
// sum): the counts. The dispatch layer prepends `alias ELEM` (the element type) and `fn keep_predicate(a: ELEM)
// -> bool` (the user's predicate; `true` for the other modes).
//
// VIEW_FUSED: the input is a view (tile/load.wgsl's load_input over the elements' bits, then view_lift: a transform
// view's expression, prepended by the dispatch layer with ELEM its result type), four scalar loads where the
// layouts load a vec4 (load_vec4).
//
// Chunks: an array larger than one storage binding is processed in chunks of whole tiles; carry[carry_index] is
// what earlier chunks kept and the last tile writes carry[carry_index + 1]. The output is bound as a window of
// at most one binding [win_first, win_first + win_count): elements whose destination falls outside are written by
// the dispatch of another window (one array = one window: a single dispatch).
// count_out: the caller's count, written by the last tile where params.count_write says so (one chunk, some tiles).
// carry (u32): [0, chunks] kept before each chunk, [total_index] the partition's total, [prev_index] the element
// before this chunk (unique).

// ITEMS4 = 4 ITEMS comes from the host, so that the loops over it can be written out (UNROLL).
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
  n_total: u32,       // REVERSED: elements of the whole array (the rejected part ends there)
  count_at: u32,      // count_write: the kept count's word in count_out
  count_write: u32,   // 1: the last tile also writes the kept count to count_out[count_at] (the caller's count:
                      // one array, so no dispatch copies it from carry afterwards)
}

@group(0) @binding(0) var<uniform> params: select_params;
@group(0) @binding(1) var<storage, read> src: array<E>;
//! if VIEW_GATHER
@group(0) @binding(2) var<storage, read> view_index: array<u32>;
//! else
@group(0) @binding(2) var<storage, read> src_vec: array<vec4<u32>>;
//! endif
@group(0) @binding(3) var<storage, read> flags: array<u32>;
@group(0) @binding(4) var<storage, read> flags_vec: array<vec4<u32>>;
@group(0) @binding(5) var<storage, read_write> dst: array<u32>;
@group(0) @binding(6) var<storage, read_write> state: array<atomic<u32>>;
@group(0) @binding(7) var<storage, read_write> carry: array<atomic<u32>>;
@group(0) @binding(8) var<storage, read_write> count_out: array<u32>;

//! import tile/lookback.wgsl
//! import tile/load.wgsl
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

// Element i of the chunk, and four of them from vec4 j (whole ones): loaded, or computed by the view.
fn load_elem(i: u32) -> u32 {
//! if VIEW_FUSED
  return view_lift(load_input(i));
//! else
  return src[i];
//! endif
}

fn load_vec4(j: u32) -> vec4<u32> {
//! if VIEW_FUSED
  return vec4<u32>(load_elem(4u * j), load_elem(4u * j + 1u), load_elem(4u * j + 2u), load_elem(4u * j + 3u));
//! else
  return src_vec[j];
//! endif
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
    return vec2<u32>(load_elem(i - 1u), 1u);
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
    //! unroll
    for (var j = 0u; j < ITEMS; j += 1u) {
      let v = load_vec4(first / 4u + j);
      vals[4u * j] = v.x;
      vals[4u * j + 1u] = v.y;
      vals[4u * j + 2u] = v.z;
      vals[4u * j + 3u] = v.w;
      mask |= keep4(v, first + 4u * j, before) << (4u * j);
      before = vec2<u32>(v.w, 1u);
    }
  } else {
    //! unroll
    for (var k = 0u; k < ITEMS4; k += 1u) {
      vals[k] = 0u;
      let i = first + k;
      if (i < params.n) {
        let x = load_elem(i);
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
  //! unroll
  for (var j = 0u; j < ITEMS; j += 1u) {
    let v = load_vec4(first / 4u + j);
    count += countOneBits(keep4(v, first + 4u * j, before));
    before = vec2<u32>(v.w, 1u);
  }
  return workgroup_reduce(l, count, li);
}

// The tile's place in the output: publishes its aggregate, walks back (tile/lookback.wgsl), publishes its
// inclusive count (and the chunk's, from the last tile), and returns what the output positions need. Uniform
// control flow.
struct tile_bases {
  kept: u32,      // kept elements before this tile (earlier chunks included)
  rejected: u32,  // rejected elements before this tile, plus the partition's total (where rejected ones start)
}

fn tile_bases_of(tile: u32, l: u32, li: lane_info, aggregate: u32) -> tile_bases {
  publish_aggregate(tile, l, aggregate, params.stress != 0u);
  // Published states count this chunk only; what earlier chunks kept is added from carry.
  let walked = look_back(tile, l, li, params.spin_limit, params.stress != 0u);
  let chunk_before = atomicLoad(&carry[params.carry_index]);
  if (l == 0u) {
    publish(tile, INCLUSIVE, walked.prefix + aggregate);
    if (tile == params.tiles - 1u) {
      atomicStore(&carry[params.carry_index + 1u], chunk_before + walked.prefix + aggregate);
      if (params.count_write != 0u) {
        count_out[params.count_at] = chunk_before + walked.prefix + aggregate;
      }
    }
  }
  var total = 0u;
  if (PARTITION && !REVERSED) {
    total = atomicLoad(&carry[params.total_index]);
  }
  let kept = chunk_before + walked.prefix;
  return tile_bases(kept, total + params.chunk_first + tile * TILE - kept);
}

// What a kept element writes: its bits, or with HEADS its index in the whole array (i: its index in the chunk).
fn kept_value(x: u32, i: u32) -> u32 {
  if (HEADS) {
    return params.chunk_first + i;
  }
  return x;
}

// Writes x at output position dest unless it falls outside this dispatch's window (another window's dispatch
// writes it; dest - win_first wraps when below).
fn write_out(dest: u32, x: u32) {
  if (dest - params.win_first < params.win_count) {
    dst[dest - params.win_first] = x;
  }
}

// Where the rejected element with rank r goes (r: rejected elements before it, plus the stable partition's total).
fn rejected_dest(r: u32) -> u32 {
  if (REVERSED) {
    return params.n_total - 1u - r;
  }
  return r;
}

//! if RAKED
// The raked layout of a full tile (as scan/tile_raked.wgsl): subgroup `id` owns a contiguous chunk of
// size * ITEMS vec4, lane `lane` its vec4 k * size + lane, so every load is coalesced and so is every write:
// a subgroup's kept elements of step k land in one contiguous run of the output, in lane order, with no
// workgroup memory and no barrier but the subgroup totals' (across_subgroups). Needs subgroups.
fn raked_index(tile: u32, k: u32, li: lane_info) -> u32 {
  return tile * (TILE / 4u) + (li.id * ITEMS + k) * li.size + li.lane;
}

var<private> rvals: array<vec4<u32>, ITEMS>;
var<private> lane_kept: array<u32, ITEMS>;  // kept elements of the subgroup's chunk before this lane's vec4 k

fn select_raked(tile: u32, l: u32, li: lane_info) {
  //! unroll
  for (var k = 0u; k < ITEMS; k += 1u) {  // every load first: ITEMS in flight
    rvals[k] = load_vec4(raked_index(tile, k, li));
  }
  var masks = 0u;  // bits 4 k .. 4 k + 3: vec4 k's elements kept
  //! unroll
  for (var k = 0u; k < ITEMS; k += 1u) {
    let i = 4u * raked_index(tile, k, li);
    var before = vec2<u32>(0u, 0u);
    if (MODE == MODE_UNIQUE) {
      // The element before vec4 k: the lower lane's last, the last lane's of step k - 1, or (the chunk's first
      // vec4) from memory. Shuffles from uniform control flow.
      let lower = subgroupShuffleUp(rvals[k].w, 1u);
      var last = 0u;
      if (k > 0u) {
        last = subgroupShuffle(rvals[max(k, 1u) - 1u].w, li.size - 1u);  // k - 1 (no u32 wrap where k is a const 0)
      }
      if (li.lane > 0u) {
        before = vec2<u32>(lower, 1u);
      } else if (k > 0u) {
        before = vec2<u32>(last, 1u);
      } else {
        before = element_before(i);
      }
    }
    masks |= keep4(rvals[k], i, before) << (4u * k);
  }
  var run = 0u;
  //! unroll
  for (var k = 0u; k < ITEMS; k += 1u) {
    let c = countOneBits((masks >> (4u * k)) & 15u);
    let inclusive = subgroup_scan_inclusive(c, li);
    lane_kept[k] = run + inclusive - c;
    run += subgroupShuffle(inclusive, li.size - 1u);
  }
  // No barrier before: nothing of this tile has read wg_subgroup_totals yet.
  let sp = across_subgroups(run, li);
  let bases = tile_bases_of(tile, l, li, sp.total);
  //! unroll
  for (var k = 0u; k < ITEMS; k += 1u) {
    let kept_in_tile = sp.before + lane_kept[k];  // kept elements of the tile before vec4 k
    var kept_at = bases.kept + kept_in_tile;
    var rejected_at = bases.rejected + ((li.id * ITEMS + k) * li.size + li.lane) * 4u - kept_in_tile;
    let v = rvals[k];
    let m = masks >> (4u * k);
    for (var c = 0u; c < 4u; c += 1u) {
      if ((m & (1u << c)) != 0u) {
        write_out(kept_at, kept_value(v[c], 4u * raked_index(tile, k, li) + c));
        kept_at += 1u;
      } else if (PARTITION) {
        write_out(rejected_dest(rejected_at), v[c]);
        rejected_at += 1u;
      }
    }
  }
}
//! endif

@compute @workgroup_size(WG_SIZE)
fn select_tiles(@builtin(local_invocation_index) l: u32, li: lane_info) {
  let tile = claim_tile(l);
  if (tile >= params.tiles) {
    // A counted pass over a count of 0 runs one workgroup (count_words::one_group) to write the count of 0.
    if (params.tiles == 0u && params.count_write != 0u && tile == 0u && l == 0u) {
      count_out[params.count_at] = 0u;
    }
    return;
  }
//! if RAKED
  if ((tile + 1u) * TILE <= params.n) {
    select_raked(tile, l, li);
    return;
  }
//! endif
  let mask = load_tile(tile, l);
  let parts = workgroup_scan(l, countOneBits(mask), li);
  let bases = tile_bases_of(tile, l, li, parts.aggregate);
  let tile_first = tile * TILE;  // in the chunk
  if (STAGED) {
    var kept_at = parts.exclusive;              // this invocation's next kept element, in the tile
    var rejected_at = l * ITEMS4 - parts.exclusive;  // and its next rejected one
    //! unroll
    for (var k = 0u; k < ITEMS4; k += 1u) {
      if ((mask & (1u << k)) != 0u) {
        wg_out[kept_at] = kept_value(vals[k], tile_first + l * ITEMS4 + k);
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
      var dest = bases.kept + i;
      if (i >= parts.aggregate) {
        dest = rejected_dest(bases.rejected + (i - parts.aggregate));
      }
      write_out(dest, wg_out[i]);
    }
    return;
  }
  var kept_at = bases.kept + parts.exclusive;  // where vals[0] goes if kept
  var rejected_at = bases.rejected + l * ITEMS4 - parts.exclusive;
  //! unroll
  for (var k = 0u; k < ITEMS4; k += 1u) {
    if ((mask & (1u << k)) != 0u) {
      write_out(kept_at, kept_value(vals[k], tile_first + l * ITEMS4 + k));
      kept_at += 1u;
    } else if (PARTITION && tile_first + l * ITEMS4 + k < params.n) {
      write_out(rejected_dest(rejected_at), vals[k]);
      rejected_at += 1u;
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
