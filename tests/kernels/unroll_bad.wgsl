// Test kernel: `//! unroll` misuses, one per boolean constant (tests/test_context.cpp); PLAIN alone is well formed
// when LIMIT is a whole-number constant.
@compute @workgroup_size(1)
fn bad() {
  var s = 0u;
//! if PLAIN
  //! unroll
  for (var k = 0u; k < LIMIT; k += 1u) {
    s += k;
  }
//! endif
//! if CLOSE
  //! unroll
  for (var k = 0u; k < LIMIT; k += 1u) {
    s += k; }
//! endif
//! if BREAKS
  //! unroll
  for (var k = 0u; k < LIMIT; k += 1u) {
    if (s > 3u) { break; }
  }
//! endif
//! if UNKNOWN
  //! unrol
  for (var k = 0u; k < LIMIT; k += 1u) {
    s += k;
  }
//! endif
}
