// The built-in operators as typed function objects for the native backend's specialised loops, each with the
// exact semantics of monoid::combine (wrapping integers, IEEE f32, NaN-propagating f32 min/max), and the
// dispatch from a monoid to a loop instantiated for its operator and type.
#pragma once
#include <cstdint>
#include <cstring>
#include <string>

#include "wgprim/op.hpp"

namespace wgprim::detail::cpu_backend {

// Sums of i32 and u32 have the same bits (two's complement wrap-around): both run as u32.
struct op_sum_u { using T = std::uint32_t; static T id() { return 0; } T operator()(T a, T b) const { return a + b; } };
struct op_sum_f { using T = float; static T id() { return 0.0f; } T operator()(T a, T b) const { return a + b; } };
template <class V> struct op_min {
  using T = V;
  T id_;
  T id() const { return id_; }
  T operator()(T a, T b) const { return b < a ? b : a; }  // monoid::combine: lt(b, a) ? b : a
};
template <class V> struct op_max {
  using T = V;
  T id_;
  T id() const { return id_; }
  T operator()(T a, T b) const { return a < b ? b : a; }  // monoid::combine: lt(a, b) ? b : a
};
struct op_and { using T = std::uint32_t; static T id() { return ~0u; } T operator()(T a, T b) const { return a & b; } };
struct op_or { using T = std::uint32_t; static T id() { return 0; } T operator()(T a, T b) const { return a | b; } };
struct op_xor { using T = std::uint32_t; static T id() { return 0; } T operator()(T a, T b) const { return a ^ b; } };

/// Any operator through the CPU twin's evaluator, on bits.
struct op_generic {
  using T = std::uint32_t;
  const monoid* m;
  T id() const { return m->identity_bits(); }
  T operator()(T a, T b) const { return m->combine(a, b); }
};

template <class T> inline T bits_to(std::uint32_t b) { T v; std::memcpy(&v, &b, 4); return v; }
template <class T> inline std::uint32_t to_bits_of(T v) { std::uint32_t b; std::memcpy(&b, &v, 4); return b; }

/// Whether f32 min/max must report NaN: any element's bits are a NaN's.
inline bool has_nan_f32(const std::uint32_t* x, std::size_t n) {
  std::uint32_t any = 0;
  for (std::size_t i = 0; i < n; ++i) any |= (x[i] & 0x7fffffffu) > 0x7f800000u;
  return any != 0;
}
constexpr std::uint32_t canonical_nan = 0x7fc00000u;  // what monoid::combine returns for f32 min/max with a NaN

/// Calls f(op) with the typed function object for a built-in monoid, or op_generic for a custom one. f32
/// min/max are given without their NaN rule (callers check NaNs apart, where it is cheaper).
template <class F>
auto with_op(const monoid& m, F&& f) {
  const std::string& n = m.name();
  const dtype t = m.type();
  const std::uint32_t id = m.identity_bits();
  if (n == "sum") return t == dtype::f32 ? f(op_sum_f{}) : f(op_sum_u{});
  if (n == "min") {
    if (t == dtype::f32) return f(op_min<float>{bits_to<float>(id)});
    if (t == dtype::i32) return f(op_min<std::int32_t>{bits_to<std::int32_t>(id)});
    return f(op_min<std::uint32_t>{id});
  }
  if (n == "max") {
    if (t == dtype::f32) return f(op_max<float>{bits_to<float>(id)});
    if (t == dtype::i32) return f(op_max<std::int32_t>{bits_to<std::int32_t>(id)});
    return f(op_max<std::uint32_t>{id});
  }
  if (n == "and") return f(op_and{});
  if (n == "or") return f(op_or{});
  if (n == "xor") return f(op_xor{});
  return f(op_generic{&m});
}

/// f32 min / max with monoid::combine's NaN rule (a NaN operand gives the canonical NaN), for the loops that
/// cannot check NaNs apart (segments, runs, scans of runs).
struct op_min_nan {
  using T = float;
  float id_;
  float id() const { return id_; }
  float operator()(float a, float b) const {
    if (a != a || b != b) return bits_to<float>(canonical_nan);
    return b < a ? b : a;
  }
};
struct op_max_nan {
  using T = float;
  float id_;
  float id() const { return id_; }
  float operator()(float a, float b) const {
    if (a != a || b != b) return bits_to<float>(canonical_nan);
    return a < b ? b : a;
  }
};
/// with_op with every operator exactly monoid::combine (f32 min / max included).
template <class F>
auto with_exact_op(const monoid& m, F&& f) {
  if (m.type() == dtype::f32 && m.name() == "min") return f(op_min_nan{bits_to<float>(m.identity_bits())});
  if (m.type() == dtype::f32 && m.name() == "max") return f(op_max_nan{bits_to<float>(m.identity_bits())});
  return with_op(m, std::forward<F>(f));
}

/// f32 min / max (the loops that need the NaN rule).
inline bool is_f32_minmax(const monoid& m) {
  return m.type() == dtype::f32 && (m.name() == "min" || m.name() == "max");
}

}  // namespace wgprim::detail::cpu_backend
