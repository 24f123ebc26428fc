// Host-side argument checks and plans of the histogram and the segmented primitives: plain functions of the
// caller's arrays, no GPU, so that the fuzz harness fuzz_arrays runs them on every input it makes.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "wgprim/types.hpp"

namespace wgprim::detail {

/// Segmented offsets: non-decreasing, the last <= n. Throws errc::invalid_argument naming `what` and the pair.
void check_offsets_host(const std::uint32_t* off, std::uint64_t count, std::uint64_t n, const char* what);

/// Histogram levels of type t: no NaN, non-decreasing. Throws errc::invalid_argument.
void check_levels(dtype t, const std::uint32_t* lv, std::size_t n);

/// The value of a raw element of type t as a double (exact for the 32-bit types).
double value_of(dtype t, std::uint32_t b);

/// Even bins as the histogram kernel compares them (see shaders/histogram/atomic.wgsl).
struct kernel_edges {
  std::vector<std::uint32_t> bits;  // reach + 1 values of the input type
  std::uint32_t reach = 0;
  bool use_estimate = false;
  float lo = 0, scale = 0;
  // f32 input: where the kernel's estimate (x - lo) * scale lies farther than `margin` from every integer, its
  // floor is x's bin, in whatever order the GPU evaluates it (even_edges derives the bound). 1: never.
  float margin = 1.0f;
};
/// NumPy's even edges for `bins` bins over [lo, hi] turned into the kernel's; throws errc::invalid_argument for a
/// range that is not finite or reversed and for bins NumPy refuses (edges that collapse).
kernel_edges even_edges(dtype t, std::uint64_t bins, double lo, double hi);

}  // namespace wgprim::detail
