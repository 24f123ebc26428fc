// Exact f32 sum (accuracy::reproducible): every workgroup adds its grid-stride share of the data into a
// superaccumulator (shared/superaccumulator.wgsl: integer limbs, one column per invocation, carries deferred for
// a batch of values), folds the columns into one, and writes it as SA_WORDS words to dst[(out_offset + group) *
// SA_WORDS ..]. `combine_partials` then adds those partials with one workgroup. Integer additions only, so the words do
// not depend on the grid, the tile, the chunking or the adapter; the host rounds them once.
// Tiles: the tile walk (tile/walk.wgsl, with views fused into its load); each invocation adds 4 * ITEMS values
// per tile, then normalizes its column, so 4 * ITEMS + 3 (the partial tile and the tail) must stay within SA_BATCH.
// The data is read as u32 bits (E = u32: the dispatch composes a u32 prelude), and so are the partials.
// WINDOW: values go through a per-invocation register window first (sa_window: what CPU adapters run fastest).
//! import shared/superaccumulator.wgsl
//! import tile/walk.wgsl

struct exact_params {
  n: u32,          // elements (accumulate) or partials (combine)
  n_vec: u32,      // n / 4 (VEC_LOADS)
  out_offset: u32, // in accumulators
  pad0: u32,
}

@group(0) @binding(0) var<uniform> params: exact_params;
//! if VIEW_GATHER
@group(0) @binding(1) var<storage, read> view_index: array<u32>;
//! else
@group(0) @binding(1) var<storage, read> src_vec: array<EV>;
//! endif
@group(0) @binding(2) var<storage, read> src: array<E>;
@group(0) @binding(3) var<storage, read_write> dst: array<u32>;

fn write_total(l: u32, slot: u32) {
  if (l < SA_WORDS) {
    dst[slot * SA_WORDS + l] = sa_cols[l * WG_SIZE];
  }
}

fn add_value(l: u32, w: ptr<function, sa_window>, b: u32) -> u32 {
  if (WINDOW) {
    return sa_window_add(l, w, b);
  }
  return sa_add(l, b);
}

fn end_batch(l: u32, w: ptr<function, sa_window>) {
  if (WINDOW) {
    sa_window_flush(l, w);
  }
  sa_normalize_signed(l);
}

// The tile walk's accumulate hook (tile/walk.wgsl): every element goes into this invocation's column (through
// its register window), whatever its chain; a full tile ends a batch.
struct walk_state {
  w: sa_window,
  flags: u32,
  l: u32,
}

fn walk_take(s: ptr<function, walk_state>, chain: u32, x: E, i: u32) {
  var w = (*s).w;
  (*s).flags |= add_value((*s).l, &w, bitcast<u32>(x));
  (*s).w = w;
}

fn walk_tile_end(s: ptr<function, walk_state>) {
  var w = (*s).w;
  end_batch((*s).l, &w);
  (*s).w = w;
}

@compute @workgroup_size(WG_SIZE)
fn accumulate_elements(@builtin(local_invocation_index) l: u32, @builtin(workgroup_id) wid: vec3u,
              @builtin(num_workgroups) nwg: vec3u) {
  sa_clear(l);
  var s = walk_state(sa_window_new(), 0u, l);
  tile_walk(&s, wid.x, nwg.x, l, params.n, params.n_vec);
  var w = s.w;
  end_batch(l, &w);
  sa_cols[SA_LIMBS * WG_SIZE + l] = s.flags;
  sa_workgroup_total(l);
  write_total(l, params.out_offset + wid.x);
}

// One workgroup adds params.n serialized accumulators (src) into dst[out_offset * SA_WORDS ..].
@compute @workgroup_size(WG_SIZE)
fn combine_partials(@builtin(local_invocation_index) l: u32) {
  sa_clear(l);
  var count = 0u;
  for (var g = l; g < params.n; g += WG_SIZE) {
    var words: array<u32, 14>;
    for (var j = 0u; j < SA_WORDS; j += 1u) {
      words[j] = bitcast<u32>(src[g * SA_WORDS + j]);
    }
    sa_add_words(l, words);
    count += 1u;
    if (count == 255u) {  // limbs 0..11 of 255 partials stay below 2^32
      sa_normalize_unsigned(l);
      count = 0u;
    }
  }
  sa_normalize_unsigned(l);
  sa_workgroup_total(l);
  write_total(l, params.out_offset);
}
