// Radix-sort keys: the bit transform that turns a key into an unsigned integer whose order is the sort order, and
// the 8-bit digit of a pass. Keys stay in memory as they were given (the transform is applied each time a digit
// is taken), so f32 NaNs keep their payloads and signs in the output.
// The key type and the order are run-time parameters (one compiled kernel serves every type and order): the
// including kernel's `params` has key_kind and descending.
// key_kind 0 u32: as is. 1 i32: sign bit flipped. 2 f32: negative values have every bit flipped, others the sign
// bit set (the usual total order: -inf < ... < -0.0 < +0.0 < ... < +inf), and every NaN becomes 0xffffffff, so
// NaNs sort last and compare equal (the sort is stable, so NaNs keep their input order).
// descending != 0: the transformed key is complemented: exactly the reverse order of distinct keys, equal keys still in
// input order (stable), NaNs first.

const RADIX: u32 = 256u;

fn sortable(k: u32) -> u32 {
  var s = k;
  if (params.key_kind == 1u) {
    s = k ^ 0x80000000u;
  } else if (params.key_kind == 2u) {
    if ((k & 0x7fffffffu) > 0x7f800000u) {
      s = 0xffffffffu;
    } else if ((k & 0x80000000u) != 0u) {
      s = ~k;
    } else {
      s = k | 0x80000000u;
    }
  }
  if (params.descending != 0u) {
    s = ~s;
  }
  return s;
}

fn digit_of(k: u32, shift: u32) -> u32 {
  return (sortable(k) >> shift) & 0xffu;
}
