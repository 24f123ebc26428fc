#include "wgprim/cpu_twin.hpp"

#include "core/double_word.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

namespace wgprim::cpu {

std::uint32_t reduce(const std::uint32_t* x, std::size_t n, const monoid& m) {
  std::uint32_t acc = m.identity_bits();
  for (std::size_t i = 0; i < n; ++i) acc = m.combine(acc, x[i]);
  return acc;
}

void inclusive_scan(const std::uint32_t* x, std::size_t n, std::uint32_t* out, const monoid& m) {
  if (n == 0) return;
  std::uint32_t acc = x[0];
  out[0] = acc;
  for (std::size_t i = 1; i < n; ++i) out[i] = acc = m.combine(acc, x[i]);
}

void exclusive_scan(const std::uint32_t* x, std::size_t n, std::uint32_t* out, const monoid& m) {
  std::uint32_t acc = m.identity_bits();
  for (std::size_t i = 0; i < n; ++i) {
    std::uint32_t v = x[i];
    out[i] = acc;
    acc = m.combine(acc, v);
  }
}

double exact_sum_f32(const float* x, std::size_t n) {
  // Fixed point with its least significant bit at 2^-149 (the smallest subnormal): 32-bit limbs held in int64 so
  // that 2^30 additions can pass before carries must be propagated.
  constexpr int limbs = 12;  // 384 bits: 2^-149 .. 2^235, room for 2^107 maximal values
  std::int64_t acc[limbs] = {};
  bool nan = false, pinf = false, ninf = false;
  auto normalize = [&] {
    for (int k = 0; k + 1 < limbs; ++k) {
      std::int64_t carry = acc[k] >> 32;  // arithmetic shift: floor division
      acc[k] -= carry * (std::int64_t(1) << 32);
      acc[k + 1] += carry;
    }
  };
  for (std::size_t i = 0; i < n; ++i) {
    float v = x[i];
    if (std::isnan(v)) { nan = true; continue; }
    if (std::isinf(v)) { (v > 0 ? pinf : ninf) = true; continue; }
    std::uint32_t b;
    std::memcpy(&b, &v, 4);
    std::int64_t mant = b & 0x7fffff;
    int e = (b >> 23) & 0xff;
    if (e) mant |= 0x800000; else e = 1;
    int pos = e - 1;  // bit position of mant's lsb: value = mant * 2^(e-150) = mant * 2^-149 * 2^(e-1)
    if (b >> 31) mant = -mant;
    std::int64_t shifted_lo = (mant * (std::int64_t(1) << (pos % 32)));  // |.| < 2^56
    int k = pos / 32;
    acc[k] += shifted_lo % (std::int64_t(1) << 32);
    acc[k + 1] += shifted_lo / (std::int64_t(1) << 32);
    if ((i & ((1u << 24) - 1)) == (1u << 24) - 1) normalize();
  }
  if (nan || (pinf && ninf)) return std::numeric_limits<double>::quiet_NaN();
  if (pinf) return std::numeric_limits<double>::infinity();
  if (ninf) return -std::numeric_limits<double>::infinity();
  normalize();
  long double r = 0;
  for (int k = limbs - 1; k >= 0; --k) r += std::ldexp(static_cast<long double>(acc[k]), 32 * k - 149);
  return static_cast<double>(r);
}

long double exact_sum_int(const std::uint32_t* x, std::size_t n, bool is_signed) {
  // 128-bit integer accumulation is exact for any n that fits in memory.
  __int128 s = 0;
  for (std::size_t i = 0; i < n; ++i) s += is_signed ? static_cast<__int128>(static_cast<std::int32_t>(x[i])) : x[i];
  return static_cast<long double>(s);
}

namespace {
using detail::dw;
using detail::dw_add;
using detail::dw_add_one;
// One level of shaders/reduce_fixed.wgsl; the first level adds data (f32) with add_one, the others pairs.
std::vector<dw> fixed_level(const std::vector<dw>& in, bool data_level) {
  constexpr std::size_t wg = 256, items = 16, block = wg * items;
  std::size_t n = in.size(), blocks = (n + block - 1) / block;
  std::vector<dw> out(blocks), sums(wg);
  for (std::size_t b = 0; b < blocks; ++b) {
    for (std::size_t l = 0; l < wg; ++l) {
      dw acc[4] = {};
      for (std::size_t k = 0; k < items; ++k) {
        std::size_t i = b * block + k * wg + l;
        if (i < n) acc[k % 4] = data_level ? dw_add_one(acc[k % 4], in[i].hi) : dw_add(acc[k % 4], in[i]);
      }
      sums[l] = dw_add(dw_add(acc[0], acc[1]), dw_add(acc[2], acc[3]));
    }
    for (std::size_t stride = wg / 2; stride > 0; stride >>= 1)
      for (std::size_t l = 0; l < stride; ++l) sums[l] = dw_add(sums[l], sums[l + stride]);
    out[b] = sums[0];
  }
  return out;
}
}  // namespace

float reduce_reproducible_f32(const float* x, std::size_t n) {
  if (n == 0) return 0.0f;
  std::vector<dw> level(n);
  for (std::size_t i = 0; i < n; ++i) level[i] = {x[i], 0.0f};
  bool data_level = true;
  do {
    level = fixed_level(level, data_level);
    data_level = false;
  } while (level.size() > 1);
  return level[0].hi;
}

float correctly_rounded_sum_f32(const float* x, std::size_t n) {
  return static_cast<float>(exact_sum_f32(x, n));
}

double ulp_error_f32(float got, double want) {
  if (std::isnan(want)) return std::isnan(got) ? 0.0 : INFINITY;
  if (std::isinf(want)) return static_cast<double>(got) == want ? 0.0 : INFINITY;
  if (!std::isfinite(got)) return INFINITY;
  float w = static_cast<float>(want);
  float up = std::nextafter(std::fabs(w), INFINITY);
  double ulp = static_cast<double>(up) - std::fabs(static_cast<double>(w));
  if (!(ulp > 0)) ulp = std::ldexp(1.0, -149);
  return std::fabs(static_cast<double>(got) - want) / ulp;
}

double abs_sum_f32(const float* x, std::size_t n) {
  double s = 0;
  for (std::size_t i = 0; i < n; ++i) s += std::fabs(static_cast<double>(x[i]));
  return s;
}

}  // namespace wgprim::cpu
