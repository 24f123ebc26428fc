// Double-word (hi, lo) f32 arithmetic on the host, operation for operation the same as
// shaders/shared/double_word.wgsl: the CPU twin and the native CPU backend use it, so that their compensated and
// reproducible sums round exactly where the GPU's do. Needs IEEE round-to-nearest f32 additions evaluated as
// written (no -ffast-math, no FMA contraction: the files using it build with -ffp-contract=off).
// The finiteness test is written as a select rather than an early return, so that loops over independent
// accumulators vectorise; the values are the same as the WGSL's.
#pragma once
#include <cmath>
#include <limits>

namespace wgprim::detail {

struct dw {
  float hi, lo;
};

inline dw two_sum(float a, float b) {
  float s = a + b;
  float bb = s - a;
  return {s, (a - (s - bb)) + (b - bb)};
}
inline dw fast_two_sum(float a, float b) {
  float s = a + b;
  return {s, b - (s - a)};
}
// AccurateDWPlusDW (combine in double_word.wgsl). When the sum of the leading parts is not finite, it is the
// result (IEEE rules for inf / NaN, as a plain f32 sum).
inline dw dw_add(dw x, dw y) {
  dw s = two_sum(x.hi, y.hi);
  const bool finite = std::fabs(s.hi) <= std::numeric_limits<float>::max();
  dw t = two_sum(x.lo, y.lo);
  dw v = fast_two_sum(s.hi, s.lo + t.hi);
  dw r = fast_two_sum(v.hi, t.lo + v.lo);
  return {finite ? r.hi : s.hi, finite ? r.lo : 0.0f};
}
// DWPlusFP (add_one in double_word.wgsl): the per-element step.
inline dw dw_add_one(dw acc, float x) {
  dw s = two_sum(acc.hi, x);
  const bool finite = std::fabs(s.hi) <= std::numeric_limits<float>::max();
  dw r = fast_two_sum(s.hi, s.lo + acc.lo);
  return {finite ? r.hi : s.hi, finite ? r.lo : 0.0f};
}

}  // namespace wgprim::detail
