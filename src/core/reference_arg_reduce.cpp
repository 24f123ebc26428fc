// The CPU twin of arg-min / arg-max: NumPy's definition written as the plain loop (the first NaN ends the search;
// otherwise the first strictly better value), not as the GPU's pair monoid, so the two are independent.
#include <cmath>

#include "wgprim/reference.hpp"
#include "wgprim/error.hpp"

namespace wgprim::reference {

arg_result<std::uint32_t> arg_reduce(const std::uint32_t* x, std::size_t n, dtype t, arg_op o) {
  if (n == 0) throw error(errc::invalid_argument, "arg reduce of an empty range");
  auto better = [&](std::uint32_t a, std::uint32_t b) {  // a strictly better than b (no NaN here)
    bool lt, gt;
    if (t == dtype::f32) {
      lt = from_bits<float>(a) < from_bits<float>(b);
      gt = from_bits<float>(a) > from_bits<float>(b);
    } else if (t == dtype::i32) {
      lt = static_cast<std::int32_t>(a) < static_cast<std::int32_t>(b);
      gt = static_cast<std::int32_t>(a) > static_cast<std::int32_t>(b);
    } else {
      lt = a < b;
      gt = a > b;
    }
    return o == arg_op::max ? gt : lt;
  };
  std::size_t best = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (t == dtype::f32 && std::isnan(from_bits<float>(x[i]))) return {x[i], i};
    if (i > 0 && better(x[i], x[best])) best = i;
  }
  return {x[best], best};
}

}  // namespace wgprim::reference
