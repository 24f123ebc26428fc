// Host-side checks and plans of the histogram and segmented primitives (see host_checks.hpp).
#include "core/host_checks.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "wgprim/reference.hpp"
#include "wgprim/error.hpp"

namespace wgprim::detail {

// Even bins: NumPy's edges, for f32 input rounded to float (NumPy's edges take the input's float type); for
// integer input each edge becomes the smallest integer >= it (x >= e <=> x >= ceil(e) for integers), the upper
// bound the largest integer <= it, and bins whose lower edge lies past the type's maximum are unreachable.
kernel_edges even_edges(dtype t, std::uint64_t bins, double lo, double hi) {
  if (!std::isfinite(lo) || !std::isfinite(hi))
    throw error(errc::invalid_argument, "histogram: the range must be finite");
  if (lo > hi) throw error(errc::invalid_argument, "histogram: the range's low end exceeds its high end");
  const std::vector<double> e = reference::histogram_edges(bins, lo, hi);
  // NumPy refuses bins narrower than its edge type can tell apart (its edges: float for f32 input, double else).
  for (std::uint64_t i = 0; i < bins; ++i)
    if (t == dtype::f32 ? !(static_cast<float>(e[i]) < static_cast<float>(e[i + 1])) : !(e[i] < e[i + 1]))
      throw error(errc::invalid_argument, "histogram: too many bins for the range (edges " + std::to_string(i) +
                                              " and " + std::to_string(i + 1) + " are equal as " +
                                              (t == dtype::f32 ? "float" : "double") + ", as NumPy refuses too)");
  kernel_edges k;
  if (t == dtype::f32) {
    for (double v : e) k.bits.push_back(to_bits(static_cast<float>(v)));
    k.reach = static_cast<std::uint32_t>(bins);
    k.lo = static_cast<float>(e.front());
    const double width = static_cast<double>(static_cast<float>(e.back())) - static_cast<double>(k.lo);
    const double scale = static_cast<double>(bins) / width;
    k.use_estimate = width > 0 && std::isfinite(scale) && scale < 3e38;
    k.scale = k.use_estimate ? static_cast<float>(scale) : 0.0f;
    if (k.use_estimate) {
      // The kernel's estimate d(x) of the real g(x) = (x - lo) * scale (lo and scale the floats above), for x in
      // [lo, hi]: a subtraction then a product err by at most 2 * bins ulps of 1; reassociated (x * scale -
      // lo * scale) or fused, by (2 * M * scale + bins) ulps of 1, M the largest |edge|; denormals flushed to zero
      // move x or lo by 2^-126 each. The edges: each float edge lies within M ulps of 1 of NumPy's double edge,
      // so g(edge i) lies within (4 * M * scale + bins) ulps of 1 of i (the float width and the float scale
      // included). With margin > both errors together, d(x) in [f + margin, f + 1 - margin] puts g(x) strictly
      // between g(edge f) and g(edge f + 1): x is in bin f. Twice the bound, for what this sketch leaves out.
      const double m = std::max(std::fabs(static_cast<double>(k.lo)), std::fabs(static_cast<double>(static_cast<float>(e.back()))));
      const double s = static_cast<double>(k.scale), ulp = std::ldexp(1.0, -24);
      const double bound = (6 * m * s + 3 * static_cast<double>(bins) + 4) * ulp + 2 * std::ldexp(s, -126);
      if (2 * bound < 0.25) k.margin = static_cast<float>(2 * bound);
    }
    return k;
  }
  const double minv = t == dtype::i32 ? -2147483648.0 : 0.0;
  const double maxv = t == dtype::i32 ? 2147483647.0 : 4294967295.0;
  auto bits_of = [&](double v) {  // v integral, in [minv, maxv]
    return t == dtype::i32 ? static_cast<std::uint32_t>(static_cast<std::int32_t>(v)) : static_cast<std::uint32_t>(v);
  };
  const double first = std::ceil(e.front()), upper = std::min(std::floor(e.back()), maxv);
  if (first > maxv || upper < minv || first > upper) {
    k.bits = {0};
    return k;  // no integer of the type lies in the range
  }
  std::uint64_t reach = 0;
  while (reach < bins && e[reach] <= maxv) {
    k.bits.push_back(bits_of(std::max(std::ceil(e[reach]), minv)));
    ++reach;
  }
  k.bits.push_back(bits_of(upper));
  k.reach = static_cast<std::uint32_t>(reach);
  const double scale = static_cast<double>(bins) / (e.back() - e.front());
  k.use_estimate = std::isfinite(scale);
  k.scale = k.use_estimate ? static_cast<float>(scale) : 0.0f;
  return k;
}

double value_of(dtype t, std::uint32_t b) {
  if (t == dtype::f32) return from_bits<float>(b);
  if (t == dtype::i32) return static_cast<std::int32_t>(b);
  return b;
}

void check_levels(dtype t, const std::uint32_t* lv, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    if (std::isnan(value_of(t, lv[i])))
      throw error(errc::invalid_argument, "histogram: levels[" + std::to_string(i) + "] is NaN");
    if (i && value_of(t, lv[i - 1]) > value_of(t, lv[i]))
      throw error(errc::invalid_argument, "histogram: the levels must be non-decreasing (levels[" +
                                              std::to_string(i - 1) + "] > levels[" + std::to_string(i) + "])");
  }
}

void check_offsets_host(const std::uint32_t* off, std::uint64_t count, std::uint64_t n, const char* what) {
  for (std::uint64_t s = 0; s + 1 < count; ++s)
    if (off[s] > off[s + 1])
      throw error(errc::invalid_argument, std::string(what) + ": the offsets decrease (offsets[" + std::to_string(s) +
                                              "] = " + std::to_string(off[s]) + " > offsets[" + std::to_string(s + 1) +
                                              "] = " + std::to_string(off[s + 1]) + ")");
  if (count && off[count - 1] > n)
    throw error(errc::invalid_argument, std::string(what) + ": the last offset " + std::to_string(off[count - 1]) +
                                            " passes the " + std::to_string(n) + " elements");
}

}  // namespace wgprim::detail
