// f32 comparisons for predicate expressions (core/expr.cpp emits calls to these in predicate mode), with IEEE
// results for NaN made explicit: every comparison with a NaN is false except !=, which is true. A plain float
// compare is not enough: WGSL lets an implementation assume there are no NaNs, and lavapipe returns false for
// NaN != x. The NaN test is on the bits, which no compiler can fold away; the CPU twin's C++ compares agree.

fn wgprim_f32_unordered(x: f32, y: f32) -> bool {
  return max(bitcast<u32>(x) & 0x7fffffffu, bitcast<u32>(y) & 0x7fffffffu) > 0x7f800000u;
}
fn wgprim_f32_lt(x: f32, y: f32) -> bool {
  return !wgprim_f32_unordered(x, y) && x < y;
}
fn wgprim_f32_gt(x: f32, y: f32) -> bool {
  return !wgprim_f32_unordered(x, y) && x > y;
}
fn wgprim_f32_le(x: f32, y: f32) -> bool {
  return !wgprim_f32_unordered(x, y) && x <= y;
}
fn wgprim_f32_ge(x: f32, y: f32) -> bool {
  return !wgprim_f32_unordered(x, y) && x >= y;
}
fn wgprim_f32_eq(x: f32, y: f32) -> bool {
  return !wgprim_f32_unordered(x, y) && x == y;
}
fn wgprim_f32_ne(x: f32, y: f32) -> bool {
  return wgprim_f32_unordered(x, y) || x != y;
}
