// Exact f32 sum (accuracy::reproducible): every workgroup adds its grid-stride share of the data into a
// superaccumulator (shared/superaccumulator.wgsl: integer limbs, one column per invocation, carries deferred for
// a batch of values), folds the columns into one, and writes it as SA_WORDS words to dst[(out_offset + group) *
// SA_WORDS ..]. `combine_partials` then adds those partials with one workgroup. Integer additions only, so the words do
// not depend on the grid, the tile, the chunking or the adapter; the host rounds them once.
// Tiles: each invocation adds ITEMS vec4 (VEC_LOADS) or 4 * ITEMS scalars per tile, then normalizes its column,
// so 4 * ITEMS + 3 (the tail) must stay within SA_BATCH. The data is read as u32 bits.
// WINDOW: values go through a per-invocation register window first (sa_window: what CPU adapters run fastest).
//! import shared/superaccumulator.wgsl

struct exact_params {
  n: u32,          // elements (accumulate) or partials (combine)
  n_vec: u32,      // n / 4 (VEC_LOADS)
  out_offset: u32, // in accumulators
  pad0: u32,
}

@group(0) @binding(0) var<uniform> params: exact_params;
@group(0) @binding(1) var<storage, read> src_vec: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> src: array<u32>;
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

@compute @workgroup_size(WG_SIZE)
fn accumulate_elements(@builtin(local_invocation_index) l: u32, @builtin(workgroup_id) wid: vec3u,
              @builtin(num_workgroups) nwg: vec3u) {
  sa_clear(l);
  var flags = 0u;
  var w = sa_window_new();
  if (VEC_LOADS) {
    let tile = WG_SIZE * ITEMS;  // in vec4
    let n_vec = params.n_vec;
    var base = wid.x * tile;
    let stride = nwg.x * tile;
    while (base + tile <= n_vec) {
      for (var k = 0u; k < ITEMS; k += 1u) {
        let v = src_vec[base + k * WG_SIZE + l];
        flags |= add_value(l, &w, v.x) | add_value(l, &w, v.y) | add_value(l, &w, v.z) | add_value(l, &w, v.w);
      }
      end_batch(l, &w);
      base += stride;
    }
    if (base < n_vec) {
      for (var k = 0u; k < ITEMS; k += 1u) {
        let i = base + k * WG_SIZE + l;
        if (i < n_vec) {
          let v = src_vec[i];
          flags |= add_value(l, &w, v.x) | add_value(l, &w, v.y) | add_value(l, &w, v.z) | add_value(l, &w, v.w);
        }
      }
    }
    let tail = n_vec * 4u;
    if (wid.x == 0u && tail + l < params.n) {
      flags |= add_value(l, &w, src[tail + l]);
    }
  } else {
    let tile = WG_SIZE * ITEMS * 4u;  // in elements
    let n = params.n;
    var base = wid.x * tile;
    let stride = nwg.x * tile;
    while (base + tile <= n) {
      for (var k = 0u; k < ITEMS * 4u; k += 1u) {
        flags |= add_value(l, &w, src[base + k * WG_SIZE + l]);
      }
      end_batch(l, &w);
      base += stride;
    }
    if (base < n) {
      for (var k = 0u; k < ITEMS * 4u; k += 1u) {
        let i = base + k * WG_SIZE + l;
        if (i < n) {
          flags |= add_value(l, &w, src[i]);
        }
      }
    }
  }
  end_batch(l, &w);
  sa_cols[SA_LIMBS * WG_SIZE + l] = flags;
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
      words[j] = src[g * SA_WORDS + j];
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
