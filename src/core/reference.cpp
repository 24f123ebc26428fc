#include "wgprim/reference.hpp"

#include "wgprim/exact.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

namespace wgprim::reference {

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
  superaccumulator acc;
  acc.add(x, n);
  return acc.to_double();
}

long double exact_sum_int(const std::uint32_t* x, std::size_t n, bool is_signed) {
  // 128-bit integer accumulation is exact for any n that fits in memory.
  __int128 s = 0;
  for (std::size_t i = 0; i < n; ++i) s += is_signed ? static_cast<__int128>(static_cast<std::int32_t>(x[i])) : x[i];
  return static_cast<long double>(s);
}

float correctly_rounded_sum_f32(const float* x, std::size_t n) {
  superaccumulator acc;
  acc.add(x, n);
  return acc.round_to_float();
}

void exact_scan_f32(const float* x, std::size_t n, float* out, bool exclusive, const float* init) {
  superaccumulator acc;
  if (init) acc.add(*init);
  for (std::size_t i = 0; i < n; ++i) {
    const float v = x[i];  // read before the write: in place works
    if (exclusive) out[i] = acc.round_to_float();
    acc.add(v);
    if (!exclusive) out[i] = acc.round_to_float();
  }
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

}  // namespace wgprim::reference
