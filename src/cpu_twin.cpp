#include "wgprim/cpu_twin.hpp"

#include <cmath>
#include <cstring>
#include <limits>

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

double abs_sum_f32(const float* x, std::size_t n) {
  double s = 0;
  for (std::size_t i = 0; i < n; ++i) s += std::fabs(static_cast<double>(x[i]));
  return s;
}

}  // namespace wgprim::cpu
