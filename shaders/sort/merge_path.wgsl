// The merge path of one pair of neighbouring runs in a merge level over one binding (the comparator sort,
// src/primitives/sort/comparator.cpp): the importer binds the whole input as keys_a and keys_b (sort/merge_keys.wgsl
// reads A through one and B through the other). A = [s, s + la), B = [s + la, s + la + lb).
//! import sort/merge_keys.wgsl

// a(d): how many of the pair's first d outputs come from A (ties from A: stable). A binary search over global
// memory, log2(min(d, la)) dependent pairs of loads: the largest a in (lo, hi] with A[a - 1] <= B[d - a], or lo.
fn pair_path(s: u32, la: u32, lb: u32, d: u32) -> u32 {
  let sb = s + la;
  var lo = select(0u, d - lb, d > lb);
  var hi = min(d, la);
  while (lo < hi) {
    let mid = hi - (hi - lo) / 2u;
    if (key_le(key_a(s + mid - 1u), key_b(sb + d - mid))) {
      lo = mid;
    } else {
      hi = mid - 1u;
    }
  }
  return lo;
}
