// Merging sorted runs (the sort past one storage binding, src/primitives/sort/merge.cpp): the parameters shared by
// the split and merge kernels and the comparison. Two neighbouring sorted runs A (la keys) and B (lb keys) merge
// into one; keys are compared on the radix sort's transformed bits (sort/keys.wgsl: sortable / sortable2, the same
// float total order and descending complement), and ties take A first, so the merge is stable. Neither run needs
// to fit one binding: each dispatch binds windows of A, B and the output at aligned offsets, given in elements
// relative to the start of their run.
// The merge path: a(d) is the number of A keys among the first d outputs. For lo = max(0, d - lb) < a <= min(d, la),
// a <= a(d) exactly when A[a - 1] goes before B[d - a] (A[a - 1] <= B[d - a]), so a(d) is the largest such a (or lo).
//! import sort/keys.wgsl

// src/primitives/sort/merge.cpp: merge_params.
struct merge_params {
  key_kind: u32,
  descending: u32,
  pairs: u32,
  la: u32,           // keys of run A
  lb: u32,           // keys of run B
  a_first: u32,      // the bound window of A: keys [a_first, a_first + a_count) of A
  a_count: u32,
  b_first: u32,      // the bound window of B
  b_count: u32,
  out_first: u32,    // merge: the output window [out_first, out_first + out_count) of the merged pair
  out_count: u32,
  split_base: u32,   // splits[split_base + t]: a(t * step) of this pair (t = 0 .. diagonals - 1; the last: la + lb)
  split_index: u32,  // merge: the output window's t (out_first == t * step)
  window: u32,       // merge: A and B windows start at multiples of `window` and hold up to 2 * window keys
  step: u32,         // keys between two split diagonals (output window size)
  diagonals: u32,
  grid_x: u32,
  mask_lo: u32,      // the compared bits of the transformed key (sort/keys.wgsl)
  mask_hi: u32,
  pad2: u32,
}

// COMPARATOR (a constant of the composition): keys are compared by the caller's expression instead,
// wgprim_less(a: E, b: E) -> bool from the prelude (src/primitives/sort/comparator.cpp; 32-bit keys): key_a / key_b
// give the raw key and key_le(x, y) is !less(y, x), so ties still take A first.

// Key i of the bound A / B window as (low word, high word), transformed (raw with a comparator).
fn key_a(i: u32) -> vec2<u32> {
//! if COMPARATOR
  return vec2<u32>(keys_a[i], 0u);
//! else
  if (KEY_WORDS == 1u) {
    return vec2<u32>(sortable(keys_a[i]), 0u);
  }
  return sortable2(vec2<u32>(keys_a[2u * i], keys_a[2u * i + 1u]));
//! endif
}

fn key_b(i: u32) -> vec2<u32> {
//! if COMPARATOR
  return vec2<u32>(keys_b[i], 0u);
//! else
  if (KEY_WORDS == 1u) {
    return vec2<u32>(sortable(keys_b[i]), 0u);
  }
  return sortable2(vec2<u32>(keys_b[2u * i], keys_b[2u * i + 1u]));
//! endif
}

// A 32-bit key word as key_le compares it: as is with a comparator, else transformed (sort/keys.wgsl).
fn word_key(w: u32) -> vec2<u32> {
//! if COMPARATOR
  return vec2<u32>(w, 0u);
//! else
  return vec2<u32>(sortable(w), 0u);
//! endif
}

// Whether key x goes before (or ties with) y.
fn key_le(x: vec2<u32>, y: vec2<u32>) -> bool {
//! if COMPARATOR
  return !wgprim_less(bitcast<E>(y.x), bitcast<E>(x.x));
//! else
  return x.y < y.y || (x.y == y.y && x.x <= y.x);
//! endif
}

// The merge-path test for a (run-relative): A[a - 1] <= B[d - a]; both keys inside the bound windows.
fn a_goes_first(a: u32, d: u32) -> bool {
  return key_le(key_a(a - 1u - params.a_first), key_b(d - a - params.b_first));
}

// The largest a in (lo, hi] with a_goes_first(a, d), or lo (the predicate is true up to a(d), false after).
fn search_path(lo: u32, hi: u32, d: u32) -> u32 {
  var l = lo;
  var h = hi;
  while (l < h) {
    let mid = h - (h - l) / 2u;  // in (l, h]
    if (a_goes_first(mid, d)) {
      l = mid;
    } else {
      h = mid - 1u;
    }
  }
  return l;
}
