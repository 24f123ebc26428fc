// Binary search over CSR segment offsets.
//
// Contract: reads the importer's `offsets: array<u32>` (in order where the answer matters); no workgroup memory, no
// barriers, no uniformity needed. At most 33 steps, so offsets out of order still end (with some index in
// [0, count]).

// The first index s in [0, count) with offsets[s] >= x; count when there is none.
fn offsets_lower_bound(x: u32, count: u32) -> u32 {
  var lo = 0u;
  var hi = count;
  for (var it = 0u; it < 33u && lo < hi; it += 1u) {
    let mid = lo + (hi - lo) / 2u;
    if (offsets[mid] < x) {
      lo = mid + 1u;
    } else {
      hi = mid;
    }
  }
  return lo;
}
