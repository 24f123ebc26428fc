// Element types. Every type wgprim handles is 32 bits wide; values travel between layers as raw bits.
#pragma once
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

namespace wgprim {

enum class dtype { f32, i32, u32 };

const char* dtype_name(dtype t);
/// Parses "f32" | "i32" | "u32" (also "float32", "int32", "uint32"); throws wgprim::error otherwise.
dtype parse_dtype(const std::string& name);

/// The element types wgprim's algorithms take. Anything else fails to compile with the message below, not with an
/// incomplete-type error deep inside a template.
template <class T> struct element_traits { static constexpr bool supported = false; };
template <> struct element_traits<float> { static constexpr bool supported = true; static constexpr dtype type = dtype::f32; };
template <> struct element_traits<std::int32_t> { static constexpr bool supported = true; static constexpr dtype type = dtype::i32; };
template <> struct element_traits<std::uint32_t> { static constexpr bool supported = true; static constexpr dtype type = dtype::u32; };

template <class T> struct dtype_of {
  using U = std::remove_cv_t<T>;
  static_assert(element_traits<U>::supported,
                "wgprim: unsupported element type; the algorithms take float, std::int32_t or std::uint32_t");
  static constexpr dtype value = element_traits<U>::type;
};

template <class T> std::uint32_t to_bits(T v) {
  static_assert(sizeof(T) == 4, "wgprim elements are 32-bit");
  std::uint32_t b;
  std::memcpy(&b, &v, 4);
  return b;
}
template <class T> T from_bits(std::uint32_t b) {
  T v;
  std::memcpy(&v, &b, 4);
  return v;
}

/// Formats a raw 32-bit value of type t as text (shortest round-trip for f32).
std::string format_bits(dtype t, std::uint32_t bits);

}  // namespace wgprim
