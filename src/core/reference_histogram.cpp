// CPU twin of the histogram: NumPy's edges and a binary search over them, in the type NumPy compares in
// (float32 for f32 input, float64 for integers: exact for every 32-bit integer).
#include <algorithm>
#include <cmath>

#include "wgprim/reference.hpp"

namespace wgprim::reference {

std::vector<double> histogram_edges(std::size_t bins, double lo, double hi) {
  if (lo == hi) {  // numpy's _get_outer_edges widens an empty range
    lo -= 0.5;
    hi += 0.5;
  }
  // np.linspace(lo, hi, bins + 1, endpoint=True): y = arange(num) * step; y += start; y[-1] = stop.
  std::vector<double> e(bins + 1);
  const double step = (hi - lo) / static_cast<double>(bins);
  for (std::size_t i = 0; i <= bins; ++i) {
    volatile double scaled = static_cast<double>(i) * step;  // two roundings, as NumPy (no fused multiply-add)
    e[i] = scaled + lo;
  }
  e[bins] = hi;
  return e;
}

namespace {
template <class V>
void count(const V* x, std::size_t n, const std::vector<V>& e, std::uint32_t* counts) {
  const std::size_t bins = e.size() - 1;
  std::fill(counts, counts + bins, 0u);
  for (std::size_t i = 0; i < n; ++i) {
    const V v = x[i];
    if (!(v >= e.front() && v <= e.back())) continue;  // outside, or NaN
    // The last edge <= v among edges 0..bins-1 (ties between equal edges go to the later bin, as NumPy's
    // searchsorted-based counts give them).
    std::size_t b = static_cast<std::size_t>(std::upper_bound(e.begin(), e.end() - 1, v) - e.begin()) - 1;
    ++counts[b];
  }
}
}  // namespace

void histogram(const std::uint32_t* x, std::size_t n, dtype t, const std::vector<double>& edges,
               std::uint32_t* counts) {
  if (edges.size() < 2) return;
  if (t == dtype::f32) {
    std::vector<float> e(edges.begin(), edges.end());
    std::vector<float> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = from_bits<float>(x[i]);
    count(v.data(), n, e, counts);
  } else {
    std::vector<double> v(n);
    for (std::size_t i = 0; i < n; ++i)
      v[i] = t == dtype::i32 ? static_cast<double>(static_cast<std::int32_t>(x[i])) : static_cast<double>(x[i]);
    count(v.data(), n, edges, counts);
  }
}

}  // namespace wgprim::reference
