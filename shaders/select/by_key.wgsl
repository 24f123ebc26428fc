// Reduce-by-key and run-length encoding in one pass, like cub::DeviceReduce::ReduceByKey / DeviceRunLengthEncode:
// the head-flag compaction of select/decoupled.wgsl with a value carried along. Element i is a head when its key
// differs from key i - 1 (or i == 0), a tail when it is the last of its run. Each element is the pair
// (head ? 1 : 0, value); the pairs are scanned with
//   combine((c1, v1), (c2, v2)) = (c1 + c2, c2 > 0 ? v2 : v1 + v2)      (+: the user's monoid, order kept)
// so the inclusive pair of element i is (its run's index + 1, the run's sum through i). A head writes its key
// to unique_keys[run], a tail the run's sum to sums[run]: the run's first key, as the CPU twin keeps it.
// Each workgroup claims the next tile (tile/lookback.wgsl: the pair is the look-back's T, two words), folds its
// invocations' ITEMS vec4 serially, scans the folds across the workgroup (the lanes import: subgroup scans keep
// the order), and takes the pair of the tiles before it from the look-back with fallback (the fallback folds a
// predecessor from memory in the same order, so its aggregate has the same bits).
//
// The dispatch layer composes the prelude (compose_wgsl_with_prelude): V, v_identity(), v_combine(a, b) (the
// monoid), T = vec2<u32> with identity() and combine() above, T_WORDS = 2, and the constants WG_SIZE, ITEMS,
// WINDOW, SUBGROUP_LOOKBACK, ONES (run-length encoding: every value is 1u, the values are not read) and
// KEY_F32 (f32 keys compare as floats: -0 == +0, a NaN equals nothing).
//
// Chunks and windows as in select/decoupled.wgsl: keys larger than one binding are processed in chunks of whole
// tiles, carry[2 c], carry[2 c + 1] holds the pair of the chunks before chunk c (the last tile writes the next
// one), and the outputs are bound as a window [win_first, win_first + win_count) of runs; a run outside it is
// written by another window's dispatch. carry[prev_index] / carry[next_index]: the keys just before and just
// after this chunk (when has_prev / has_next).

const ITEMS4: u32 = ITEMS * 4u;
const TILE: u32 = WG_SIZE * ITEMS * 4u;

struct by_key_params {
  n: u32,             // keys of this chunk
  tiles: u32,
  use_carry: u32,     // a chunk before this one: carry[2 carry_index ..] holds its pair
  carry_index: u32,
  prev_index: u32,
  next_index: u32,
  has_prev: u32,
  has_next: u32,
  win_first: u32,
  win_count: u32,
  spin_limit: u32,
  stress: u32,
}

@group(0) @binding(0) var<uniform> params: by_key_params;
@group(0) @binding(1) var<storage, read> keys: array<u32>;
@group(0) @binding(2) var<storage, read> keys_vec: array<vec4<u32>>;
@group(0) @binding(3) var<storage, read> values: array<u32>;
@group(0) @binding(4) var<storage, read> values_vec: array<vec4<u32>>;
@group(0) @binding(5) var<storage, read_write> unique_keys: array<u32>;
@group(0) @binding(6) var<storage, read_write> sums: array<u32>;
@group(0) @binding(7) var<storage, read_write> state: array<atomic<u32>>;
@group(0) @binding(8) var<storage, read_write> carry: array<u32>;

//! import tile/lookback.wgsl

var<private> kv: array<u32, ITEMS4>;  // this invocation's keys
var<private> vv: array<u32, ITEMS4>;  // and values (bits of V)

fn keys_equal(a: u32, b: u32) -> bool {
  if (KEY_F32) {
    return (a == b && (a & 0x7fffffffu) <= 0x7f800000u) || ((a | b) & 0x7fffffffu) == 0u;
  }
  return a == b;
}

// The pair of one element.
fn pair_step(acc: T, head: bool, v: u32) -> T {
  return combine(acc, vec2<u32>(select(0u, 1u, head), v));
}

fn value_vec(i4: u32) -> vec4<u32> {
  if (ONES) {
    return vec4<u32>(1u);
  }
  return values_vec[i4];
}

// The key before element i of the chunk: x = key, y = 1 when there is one.
fn key_before(i: u32) -> vec2<u32> {
  if (i > 0u) {
    return vec2<u32>(keys[i - 1u], 1u);
  }
  if (params.has_prev != 0u) {
    return vec2<u32>(carry[params.prev_index], 1u);
  }
  return vec2<u32>(0u, 0u);
}

fn is_head(k: u32, before: vec2<u32>) -> bool {
  return before.y == 0u || !keys_equal(before.x, k);
}

// The serial fold of invocation l's elements of the full tile `tile`, from memory (the fallback; the same
// combines in the same order as load_thread).
fn fold_from_memory(tile: u32, l: u32) -> T {
  let first = tile * TILE + l * ITEMS4;
  var before = key_before(first);
  var acc = identity();
  for (var j = 0u; j < ITEMS; j += 1u) {
    let k = keys_vec[first / 4u + j];
    let v = value_vec(first / 4u + j);
    acc = pair_step(acc, is_head(k.x, before), v.x);
    acc = pair_step(acc, !keys_equal(k.x, k.y), v.y);
    acc = pair_step(acc, !keys_equal(k.y, k.z), v.z);
    acc = pair_step(acc, !keys_equal(k.z, k.w), v.w);
    before = vec2<u32>(k.w, 1u);
  }
  return acc;
}

fn lookback_fallback(tile: u32, l: u32, li: lane_info) -> T {
  return workgroup_scan(l, fold_from_memory(tile, l), li).aggregate;
}

struct thread_part {
  heads: u32,  // bit k: element k is a head
  tails: u32,  // bit k: element k is a tail
  fold: T,
}

// Loads invocation l's keys and values into kv / vv and folds them.
fn load_thread(tile: u32, l: u32) -> thread_part {
  let first = tile * TILE + l * ITEMS4;
  let before = key_before(first);
  var heads = 0u;
  if ((tile + 1u) * TILE <= params.n) {
    for (var j = 0u; j < ITEMS; j += 1u) {
      let k = keys_vec[first / 4u + j];
      let v = value_vec(first / 4u + j);
      kv[4u * j] = k.x;
      kv[4u * j + 1u] = k.y;
      kv[4u * j + 2u] = k.z;
      kv[4u * j + 3u] = k.w;
      vv[4u * j] = v.x;
      vv[4u * j + 1u] = v.y;
      vv[4u * j + 2u] = v.z;
      vv[4u * j + 3u] = v.w;
    }
  } else {
    for (var k = 0u; k < ITEMS4; k += 1u) {
      kv[k] = 0u;
      vv[k] = 1u;
      if (first + k < params.n) {
        kv[k] = keys[first + k];
        if (!ONES) {
          vv[k] = values[first + k];
        }
      }
    }
  }
  var acc = identity();
  var prev = before;
  for (var k = 0u; k < ITEMS4; k += 1u) {
    let head = is_head(kv[k], prev);
    if (first + k < params.n) {
      heads |= select(0u, 1u << k, head);
      acc = pair_step(acc, head, vv[k]);
    }
    prev = vec2<u32>(kv[k], 1u);
  }
  // Tails: the element before a head, and the last element of the array.
  var tails = heads >> 1u;
  let last = first + ITEMS4 - 1u;
  if (last + 1u < params.n) {
    if (!keys_equal(kv[ITEMS4 - 1u], keys[last + 1u])) {
      tails |= 1u << (ITEMS4 - 1u);
    }
  } else if (first < params.n) {
    let end = params.n - 1u - first;  // the chunk's last element is this invocation's element `end`
    if (params.has_next == 0u || !keys_equal(kv[end], carry[params.next_index])) {
      tails |= 1u << end;
    }
    tails &= (2u << end) - 1u;
  }
  return thread_part(heads, tails, acc);
}

// Run r (over the whole array) into the outputs' window.
fn window_slot(r: u32) -> u32 {
  return r - params.win_first;  // >= win_count (wrapped) when outside
}

@compute @workgroup_size(WG_SIZE)
fn reduce_by_key(@builtin(local_invocation_index) l: u32, li: lane_info) {
  let tile = claim_tile(l);
  if (tile >= params.tiles) {
    return;
  }
  let part = load_thread(tile, l);
  let parts = workgroup_scan(l, part.fold, li);
  var carry_in = identity();
  if (params.use_carry != 0u) {
    carry_in = vec2<u32>(carry[2u * params.carry_index], carry[2u * params.carry_index + 1u]);
  }
  let prefix = tile_prefix(tile, l, li, parts.aggregate, carry_in, params.use_carry != 0u, params.spin_limit,
                           params.stress != 0u);
  if (l == 0u) {
    let inclusive = combine(prefix, parts.aggregate);
    if (tile == params.tiles - 1u) {
      carry[2u * params.carry_index + 2u] = inclusive.x;
      carry[2u * params.carry_index + 3u] = inclusive.y;
    }
  }
  var running = prefix;
  if (l > 0u) {
    running = combine(prefix, parts.exclusive);
  }
  let first = tile * TILE + l * ITEMS4;
  for (var k = 0u; k < ITEMS4; k += 1u) {
    let head = (part.heads & (1u << k)) != 0u;
    running = pair_step(running, head, vv[k]);  // past n: not written, and nothing follows
    let slot = window_slot(running.x - 1u);
    if (first + k < params.n && slot < params.win_count) {
      if (head) {
        unique_keys[slot] = kv[k];
      }
      if ((part.tails & (1u << k)) != 0u) {
        sums[slot] = running.y;
      }
    }
  }
}
