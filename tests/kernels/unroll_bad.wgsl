// Test kernel: `//! unroll` before a loop whose count is not a constant of the composition (an error).
@compute @workgroup_size(1)
fn bad() {
  var s = 0u;
  //! unroll
  for (var k = 0u; k < LIMIT; k += 1u) {
    s += k;
  }
}
