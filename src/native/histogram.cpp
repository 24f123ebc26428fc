// Native histogram (even and range bins): the contract of shaders/histogram/atomic.wgsl on the dispatch layer's
// edges (NumPy's rules are settled there), with the same order-preserving u32 keys, so a value is compared with
// an edge exactly. The bin comes from the even bins' estimate corrected by the exact comparisons, else from a
// branchless binary search over the edges' keys (the estimate decides only the speed). Each thread counts into its own bins (up to 64 Ki bins), summed at the end; more bins are
// counted with atomic adds into the result.
#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/enumerable_thread_specific.h>
#include <oneapi/tbb/parallel_for.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <vector>

#include "native/backend.hpp"

namespace wgprim::detail::cpu_backend {

namespace {

// The keys of shaders/histogram/atomic.wgsl's key_of: f32 -0 as +0, negatives bit-inverted, positives with the
// sign bit set; i32 with the sign bit flipped; u32 as it is.
inline std::uint32_t key_of(dtype t, std::uint32_t b) {
  if (t == dtype::f32) {
    if (b == 0x80000000u) b = 0;
    return (b & 0x80000000u) ? ~b : (b | 0x80000000u);
  }
  if (t == dtype::i32) return b ^ 0x80000000u;
  return b;
}

constexpr std::uint32_t none = 0xffffffffu;

struct binner {
  dtype t;
  std::vector<std::uint32_t> keys;  // reach + 1 edge keys
  std::uint32_t reach;
  bool use_estimate;
  float lo, scale;
  std::uint32_t bin_of(std::uint32_t bits) const {
    if (t == dtype::f32 && (bits & 0x7fffffffu) > 0x7f800000u) return none;  // NaN
    const std::uint32_t k = key_of(t, bits);
    if (k < keys[0] || k > keys[reach]) return none;
    const std::uint32_t last = reach - 1;
    if (use_estimate) {
      // The guess, then one step either way when it is off by one (rounding); else the search below.
      const float d = t == dtype::f32 ? (bits_as_f32(bits) - lo) * scale : static_cast<float>(k - keys[0]) * scale;
      std::uint32_t b = d > 0 ? static_cast<std::uint32_t>(std::min(d, static_cast<float>(last))) : 0;
      b = std::min(b, last);
      if (b > 0 && k < keys[b]) --b;
      else if (b < last && k >= keys[b + 1]) ++b;
      if (keys[b] <= k && (b == last || k < keys[b + 1])) return b;
    }
    // The last edge among 0..reach-1 whose key is <= k (keys[0] <= k): a branchless binary search.
    const std::uint32_t* base = keys.data();
    for (std::uint32_t len = reach; len > 1;) {
      const std::uint32_t half = len / 2;
      base = base[half] <= k ? base + half : base;
      len -= half;
    }
    return static_cast<std::uint32_t>(base - keys.data());
  }
  static float bits_as_f32(std::uint32_t b) {
    float f;
    std::memcpy(&f, &b, 4);
    return f;
  }
};

}  // namespace

void histogram(context& ctx, const range_ref& in, dtype t, const range_ref& counts, const histogram_edges& e,
               const run_options& opt) {
  const std::uint32_t* x = host_in(ctx, in, "histogram input");
  std::uint32_t* out = host_out(ctx, counts, "histogram counts");
  const std::size_t n = in.count, bins = counts.count;
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<std::uint32_t> result(bins, 0);
  if (e.reach > 0 && n > 0) {
    binner bn{t, {}, e.reach, e.use_estimate, e.lo, e.scale};
    for (std::uint32_t i = 0; i <= e.reach; ++i) bn.keys.push_back(key_of(t, e.edges[i]));
    const std::size_t grain = std::size_t(1) << 15;
    if (bins <= (std::size_t(1) << 16)) {
      tbb::enumerable_thread_specific<std::vector<std::uint32_t>> local([&] { return std::vector<std::uint32_t>(bins, 0); });
      tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n, grain), [&](const tbb::blocked_range<std::size_t>& r) {
        std::uint32_t* c = local.local().data();
        for (std::size_t i = r.begin(); i != r.end(); ++i) {
          const std::uint32_t b = bn.bin_of(x[i]);
          if (b != none) ++c[b];
        }
      });
      for (const auto& c : local)
        for (std::size_t b = 0; b < bins; ++b) result[b] += c[b];
    } else {
      tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n, grain), [&](const tbb::blocked_range<std::size_t>& r) {
        for (std::size_t i = r.begin(); i != r.end(); ++i) {
          const std::uint32_t b = bn.bin_of(x[i]);
          if (b != none) __atomic_fetch_add(&result[b], 1u, __ATOMIC_RELAXED);
        }
      });
    }
  }
  std::memcpy(out, result.data(), bins * 4);
  fill(opt, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(), "native");
}

}  // namespace wgprim::detail::cpu_backend
