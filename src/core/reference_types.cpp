// The CPU twins for every element type: loops in the element's own width (64-bit integers wrap modulo 2^64, f64
// rounds each step), narrow storage types widened exactly as the device does (f16 -> f32, u8 -> u32 zero-extended,
// i8 -> i32 sign-extended).
#include <cmath>
#include <cstring>

#include "wgprim/reference.hpp"
#include "wgprim/error.hpp"

namespace wgprim::reference {

std::uint64_t widen_raw(dtype t, std::uint64_t raw) {
  switch (t) {
    case dtype::f16: return to_bits(half_to_float(static_cast<std::uint16_t>(raw)));
    case dtype::u8: return raw & 0xffu;
    case dtype::i8: return static_cast<std::uint32_t>(static_cast<std::int32_t>(static_cast<std::int8_t>(raw & 0xffu)));
    default: return raw;
  }
}

namespace {
std::uint64_t load(const void* x, dtype t, std::size_t i) {
  std::uint64_t r = 0;
  const unsigned eb = dtype_bytes(t);
  std::memcpy(&r, static_cast<const unsigned char*>(x) + i * eb, eb);
  return widen_raw(t, r);
}
void check(dtype t, const monoid& m) {
  if (accumulation_type(t) != m.type())
    throw error(errc::invalid_argument, std::string("cpu twin: ") + dtype_name(t) + " elements do not accumulate in " +
                                            dtype_name(m.type()));
}
}  // namespace

std::uint64_t reduce_raw(const void* x, dtype t, std::size_t n, const monoid& m) {
  check(t, m);
  std::uint64_t acc = m.identity_raw();
  for (std::size_t i = 0; i < n; ++i) acc = m.combine_raw(acc, load(x, t, i));
  return acc;
}

void scan_raw(const void* x, dtype t, std::size_t n, void* out, const monoid& m, bool exclusive) {
  check(t, m);
  const unsigned ob = dtype_bytes(m.type());
  std::uint64_t acc = m.identity_raw();
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t v = load(x, t, i);
    if (exclusive) std::memcpy(static_cast<unsigned char*>(out) + i * ob, &acc, ob);
    acc = m.combine_raw(acc, v);
    if (!exclusive) std::memcpy(static_cast<unsigned char*>(out) + i * ob, &acc, ob);
  }
}

double compensated_sum_f64(const double* x, std::size_t n, double* abs_sum) {
  double s = 0, c = 0, a = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double t = s + x[i];
    c += std::fabs(s) >= std::fabs(x[i]) ? (s - t) + x[i] : (x[i] - t) + s;
    s = t;
    a += std::fabs(x[i]);
  }
  if (abs_sum) *abs_sum = a;
  return s + c;
}

}  // namespace wgprim::reference
