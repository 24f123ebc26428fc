// The CPU twin of transform_reduce: the plain loop, the transform evaluated on the host with WGSL's semantics
// (the expression front end's evaluator) and combined in order.
#include "wgprim/reference.hpp"

namespace wgprim::reference {

std::uint32_t transform_reduce(const std::uint32_t* x, std::size_t n, const bound_transform& tr, const monoid& m) {
  std::uint32_t acc = m.identity_bits();
  for (std::size_t i = 0; i < n; ++i) acc = m.combine(acc, tr.apply(x[i]));
  return acc;
}

}  // namespace wgprim::reference
