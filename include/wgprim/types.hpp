/// @file
/// Element types. Values travel between layers as raw bits: 32-bit types in a std::uint32_t (to_bits/from_bits),
/// every type in a std::uint64_t (to_raw/from_raw: the element's bytes, little-endian, zero-extended).
///
/// f32, i32, u32 run everywhere. f64 needs the adapter's shader-f64 feature and i64/u64 its shader-int64 feature
/// (context::supports). f16, u8 and i8 are storage types: stored packed (2 or 4 per 32-bit word), widened on load
/// and accumulated in f32, u32 and i32 (accumulation_type).
#pragma once
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

namespace wgprim {

/// The order is part of the interface (bindings and other layers index by it): new types go at the end.
enum class dtype { f32, i32, u32, f64, i64, u64, f16, u8, i8 };
/// The number of dtypes.
constexpr int dtype_count = 9;

/// The dtype's name ("f32", "i32", ...).
const char* dtype_name(dtype t);
/// Parses f32 i32 u32 f64 i64 u64 f16 u8 i8 and NumPy's names (float32, int32, uint32, float64, int64, uint64,
/// float16, uint8, int8; also float, int, uint, double, half); throws wgprim::error otherwise.
dtype parse_dtype(const std::string& name);
/// Bytes of one element: 8, 4, 2 or 1.
constexpr unsigned dtype_bytes(dtype t) {
  return t == dtype::f64 || t == dtype::i64 || t == dtype::u64 ? 8 : t == dtype::f16 ? 2 : t == dtype::u8 || t == dtype::i8 ? 1 : 4;
}
/// Whether t is a 64-bit type.
constexpr bool is_wide(dtype t) { return dtype_bytes(t) == 8; }
/// Whether t is packed several per 32-bit word (f16, u8, i8).
constexpr bool is_narrow(dtype t) { return dtype_bytes(t) < 4; }
/// Whether t is a floating-point type.
constexpr bool is_float(dtype t) { return t == dtype::f32 || t == dtype::f64 || t == dtype::f16; }
/// Whether t is a signed integer type.
constexpr bool is_signed(dtype t) { return t == dtype::i32 || t == dtype::i64 || t == dtype::i8; }
/// What a type accumulates in: f16 -> f32, u8 -> u32, i8 -> i32; every other type itself.
constexpr dtype accumulation_type(dtype t) {
  return t == dtype::f16 ? dtype::f32 : t == dtype::u8 ? dtype::u32 : t == dtype::i8 ? dtype::i32 : t;
}

/// IEEE binary16, stored: C++17 has no half type. Converts to and from float (round to nearest even).
struct half {
  /// The IEEE binary16 bits.
  std::uint16_t bits = 0;
  half() = default;
  /// Rounds f to the nearest half.
  explicit half(float f);
  /// The value as a float (exact).
  explicit operator float() const;
  /// A half from its bits.
  static half from_raw(std::uint16_t b) { half h; h.bits = b; return h; }
};
/// The float value of binary16 bits (exact).
float half_to_float(std::uint16_t bits);
/// binary16 bits of f, rounded to nearest even.
std::uint16_t float_to_half(float f);

/// The element types wgprim's algorithms take. Anything else fails to compile with the message below, not with an
/// incomplete-type error deep inside a template.
template <class T> struct element_traits { static constexpr bool supported = false; };
#define WGPRIM_ELEMENT(C, D) \
  template <> struct element_traits<C> { static constexpr bool supported = true; static constexpr dtype type = dtype::D; }
WGPRIM_ELEMENT(float, f32);
WGPRIM_ELEMENT(std::int32_t, i32);
WGPRIM_ELEMENT(std::uint32_t, u32);
WGPRIM_ELEMENT(double, f64);
WGPRIM_ELEMENT(std::int64_t, i64);
WGPRIM_ELEMENT(std::uint64_t, u64);
WGPRIM_ELEMENT(half, f16);
WGPRIM_ELEMENT(std::uint8_t, u8);
WGPRIM_ELEMENT(std::int8_t, i8);
#undef WGPRIM_ELEMENT

/// @cond
namespace detail {
template <class V> constexpr dtype supported_dtype() {
  if constexpr (element_traits<V>::supported) return element_traits<V>::type;
  else return dtype::u32;
}
}  // namespace detail
/// @endcond
/// The dtype of a C++ element type; an unsupported type stops compilation with a readable message.
template <class T> struct dtype_of {
  /// T without const.
  using U = std::remove_cv_t<T>;
  static_assert(element_traits<U>::supported,
                "wgprim: element type not supported; the algorithms take float, double, std::int32_t, "
                "std::uint32_t, std::int64_t, std::uint64_t, wgprim::half, std::int8_t or std::uint8_t");
  /// The dtype (u32 after the static_assert above has failed, so that it is the only error).
  static constexpr dtype value = detail::supported_dtype<U>();
};

/// The C++ type a T accumulates in (accumulation_type): half -> float, uint8_t -> uint32_t, int8_t -> int32_t.
/// @cond
template <class T> struct accumulation { using type = T; };
template <> struct accumulation<half> { using type = float; };
template <> struct accumulation<std::uint8_t> { using type = std::uint32_t; };
template <> struct accumulation<std::int8_t> { using type = std::int32_t; };
/// @endcond
/// The C++ type a T accumulates in, const removed: half -> float, uint8_t -> uint32_t, int8_t -> int32_t, any
/// other element type itself.
template <class T> using accumulation_t = typename accumulation<std::remove_cv_t<T>>::type;

/// The 32-bit pattern of a 32-bit element.
template <class T> std::uint32_t to_bits(T v) {
  static_assert(sizeof(T) == 4, "to_bits is for 32-bit elements (to_raw takes every type)");
  std::uint32_t b;
  std::memcpy(&b, &v, 4);
  return b;
}
/// A 32-bit element from its bit pattern.
template <class T> T from_bits(std::uint32_t b) {
  static_assert(sizeof(T) == 4, "from_bits is for 32-bit elements (from_raw takes every type)");
  T v;
  std::memcpy(&v, &b, 4);
  return v;
}
/// Any element type's bytes, zero-extended into 64 bits (little-endian hosts).
template <class T> std::uint64_t to_raw(T v) {
  static_assert(sizeof(T) <= 8, "wgprim elements are at most 64-bit");
  std::uint64_t b = 0;
  std::memcpy(&b, &v, sizeof(T));
  return b;
}
/// An element of any type from its bits in to_raw's layout.
template <class T> T from_raw(std::uint64_t b) {
  T v;
  std::memcpy(&v, &b, sizeof(T));
  return v;
}

/// Formats a raw 32-bit value of type t as text (shortest round-trip for f32).
std::string format_bits(dtype t, std::uint32_t bits);
/// Formats a raw value of any type (to_raw's layout): shortest round-trip for floats, exact integers.
std::string format_raw(dtype t, std::uint64_t raw);

}  // namespace wgprim
