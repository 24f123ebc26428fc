// Native exact f32 sums (exact_sum, and reduce's accuracy::reproducible, which rounds the exact sum once): the
// same value as the GPU's superaccumulator, because both hold the exact sum as an integer (in units of 2^-150);
// only the way there differs. Here each leaf first sums the signed significands per biased exponent into 256
// int64 bins (one add per element, no shifts; a leaf of 2^16 elements keeps each bin below 2^41), then moves
// the bins into 13 limbs of 24 bits; leaves merge by limb addition (integer: any order gives the same value),
// and the result is handed over in the superaccumulator's fixed-size form.
#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_reduce.h>

#include <array>
#include <chrono>
#include <cstring>

#include "native/backend.hpp"
#include "native/loops.hpp"

namespace wgprim::detail::cpu_backend {

namespace {

constexpr int limbs = superaccumulator::limbs, limb_bits = superaccumulator::limb_bits;
constexpr std::int64_t limb_mask = (std::int64_t(1) << limb_bits) - 1;

struct limb_sum {
  std::array<std::int64_t, limbs> l{};
  std::uint32_t flags = 0;
  void normalize() {
    for (int j = 0; j + 1 < limbs; ++j) {
      l[j + 1] += l[j] >> limb_bits;  // arithmetic shift: floor, so every limb but the last ends in [0, 2^24)
      l[j] &= limb_mask;
    }
  }
  void merge(const limb_sum& o) {
    for (int j = 0; j < limbs; ++j) l[j] += o.l[j];
    flags |= o.flags;
    normalize();
  }
  // Adds v * 2^p (in units of 2^-150), |v| < 2^43, p <= 254: the low 24 bits of v at limb p / 24 and the rest
  // one limb up, each shifted by p % 24 (< 2^47 in magnitude: the limbs' headroom absorbs it until normalize).
  void add_at(std::int64_t v, int p) {
    const int k = p / limb_bits, s = p % limb_bits;
    l[k] += (v & limb_mask) << s;
    l[k + 1] += (v >> limb_bits) * (std::int64_t(1) << s);  // floor part: negative for negative v
  }
};

// One leaf (n <= 2^16 elements, so each bin stays below 2^16 * 2^24 = 2^40 in magnitude).
limb_sum leaf_sum(const std::uint32_t* x, std::size_t n) {
  // Four sets of bins, taken in turn, so that runs of one exponent do not chain every add through one memory word.
  alignas(64) std::int64_t bins[4][256] = {};
  std::uint32_t special = 0;
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4)
    for (int j = 0; j < 4; ++j) {
      const std::uint32_t b = x[i + j], e = (b >> 23) & 0xff;
      const std::int64_t m = (b & 0x7fffff) | (e ? 0x800000 : 0);
      bins[j][e] += (b >> 31) ? -m : m;
      special |= e == 0xff;
    }
  for (; i < n; ++i) {
    const std::uint32_t b = x[i], e = (b >> 23) & 0xff;
    const std::int64_t m = (b & 0x7fffff) | (e ? 0x800000 : 0);
    bins[0][e] += (b >> 31) ? -m : m;
    special |= e == 0xff;
  }
  limb_sum r;
  for (int e = 0; e < 255; ++e) {
    const std::int64_t v = bins[0][e] + bins[1][e] + bins[2][e] + bins[3][e];
    if (v) r.add_at(v, e ? e : 1);  // a value m * 2^(max(e, 1) - 150)
  }
  if (special)  // NaN and infinities: the flags, as IEEE summation combines them (bin 255 is ignored)
    for (std::size_t k = 0; k < n; ++k) {
      const std::uint32_t b = x[k];
      if (((b >> 23) & 0xff) != 0xff) continue;
      r.flags |= (b & 0x7fffff) ? superaccumulator::nan : (b >> 31) ? superaccumulator::neg_inf : superaccumulator::pos_inf;
    }
  r.normalize();
  return r;
}

}  // namespace

superaccumulator exact_sum_f32(const float* xf, std::size_t n) {
  const auto* x = reinterpret_cast<const std::uint32_t*>(xf);
  limb_sum total = over_leaves<limb_sum>(
      n, [&](std::size_t first, std::size_t count) { return leaf_sum(x + first, count); },
      [](limb_sum a, const limb_sum& b) {
        a.merge(b);
        return a;
      });
  total.normalize();
  superaccumulator::words w;
  for (int j = 0; j < limbs; ++j) w.w[j] = static_cast<std::uint32_t>(total.l[j]);  // limb 12: two's complement
  w.w[limbs] = total.flags;
  return superaccumulator::deserialize(w);
}

superaccumulator exact_sum(context& ctx, const range_ref& in, const run_options& opt) {
  const float* x = reinterpret_cast<const float*>(host_in(ctx, in, "exact_sum input"));
  const auto t0 = std::chrono::steady_clock::now();
  superaccumulator s = exact_sum_f32(x, in.count);
  fill(opt, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(), "native-exact");
  return s;
}

}  // namespace wgprim::detail::cpu_backend
