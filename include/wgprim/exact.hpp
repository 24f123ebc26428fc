/// @file
/// Exact f32 sums: an integer superaccumulator (the monoid behind accuracy::reproducible / accuracy::exact).
///
/// Every finite f32 is an integer multiple of 2^-149, so a sum of f32 values is an integer multiple of it too; the
/// superaccumulator holds that integer exactly (in units of 2^-150, one bit finer, so that the midpoint of two
/// adjacent floats is an integer as well) in fixed-size integer limbs. Adding values and combining accumulators is
/// integer addition: associative and commutative, so the result does not depend on the order, the partition or
/// the machine that did the additions. The value is rounded once, on request (round to nearest, ties to even).
///
/// @code
///   wgprim::superaccumulator a;                // the identity: an exact zero
///   for (float x : xs) a.add(x);
///   a.combine(b);                              // b: another accumulator (another thread, rank, GPU...)
///   float f = a.round_to_float();              // correctly rounded; +-inf when the exact sum is beyond f32
///   std::string s = a.to_decimal();            // the exact value, e.g. "0.100000001490116119384765625"
///   auto w = a.serialize();                    // 56 bytes, the same form the GPU writes: send it over MPI
/// @endcode
///
/// @code
///   wgprim::exact_sum_result r = wgprim::exact_sum(ctx, v);   // on the GPU (v: any f32 range)
/// @endcode
///
/// NaN and infinities follow IEEE summation: any NaN gives NaN, +inf and -inf together give NaN, one kind of
/// infinity gives it. The exact value is kept for up to 2^41 additions of any finite values (far more for
/// ordinary data); the limbs wrap past that.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "wgprim/algorithm.hpp"
#include "wgprim/context.hpp"
#include "wgprim/device_vector.hpp"

namespace wgprim {

/// The exact sum of f32 values as an integer in units of 2^-150 (see the file's description).
class superaccumulator {
 public:
  static constexpr int limbs = 13;        ///< radix 2^24 limbs, limb j weighs 2^(24 j - 150)
  /// Bits per limb.
  static constexpr int limb_bits = 24;
  /// The exponent of the least significant limb's unit.
  static constexpr int unit_exponent = -150;
  /// Non-finite inputs seen (NaN, +inf, -inf), which decide the rounded result.
  enum flag : std::uint32_t { nan = 1, pos_inf = 2, neg_inf = 4 };

  /// The fixed-size form: limbs 0..11 in [0, 2^24), limb 12 a two's complement int32 (the sign), then the
  /// NaN/Inf flags. The GPU kernels write exactly this; two of them combine by deserialize + combine.
  struct words {
    /// The limbs, then the flags.
    std::array<std::uint32_t, limbs + 1> w{};
  };

  superaccumulator() = default;
  /// Adds one value exactly.
  void add(float x);
  /// Adds n values.
  void add(const float* x, std::size_t n);
  /// Adds another accumulator exactly (the monoid's combine; the default-constructed one is the identity).
  superaccumulator& combine(const superaccumulator& other);

  /// The exact sum rounded to the nearest f32, ties to even; overflow gives +-inf as IEEE addition would.
  float round_to_float() const;
  /// The exact sum rounded to the nearest double (never overflows: the range is far inside double's).
  double to_double() const;
  /// The exact value in decimal ("-12.5", "0", "nan", "inf", "-inf"); every digit is exact.
  std::string to_decimal() const;
  /// True when no NaN or infinity was added and the value is zero.
  bool is_zero() const;
  /// The flags of the non-finite values added.
  std::uint32_t flags() const { return flags_; }

  /// The serialized form: exactly the words the GPU writes.
  words serialize() const;
  /// Reads the fixed-size form; throws wgprim::error (invalid_argument) if a limb is out of its range.
  static superaccumulator deserialize(const words& w);

  /// Whether both hold the same sum and flags.
  friend bool operator==(const superaccumulator& a, const superaccumulator& b) {
    return a.serialize().w == b.serialize().w;
  }
  /// Whether the sums or flags differ.
  friend bool operator!=(const superaccumulator& a, const superaccumulator& b) { return !(a == b); }

 private:
  void normalize();
  std::int64_t limb_[limbs] = {};
  std::uint32_t flags_ = 0;
  std::uint32_t pending_ = 0;  // additions since the last normalize (limbs have 2^39 of headroom)
};

/// What exact_sum returns: the sum rounded three ways, and the accumulator itself (to combine it further).
struct exact_sum_result {
  float value = 0;          ///< correctly rounded to f32
  double as_double = 0;     ///< correctly rounded to f64
  std::string exact_text;   ///< the exact decimal value
  /// The superaccumulator, for further combining.
  superaccumulator accumulator;
};

namespace detail {
/// The type-erased entry point: the superaccumulator of the range, computed on the GPU.
superaccumulator exact_sum_run(context& ctx, const range_ref& in, const run_options& opt);
exact_sum_result exact_result(const superaccumulator& a);
}  // namespace detail

/// The exact sum of an f32 range (device_vector, device_span, or a host container: uploaded first), on the GPU
/// with integer arithmetic only: the same bits on every adapter, workgroup count, subgroup size and chunking.
template <class R, class = std::enable_if_t<detail::is_range_v<R>>>
exact_sum_result exact_sum(context& ctx, const R& in, const run_options& options = {}) {
  static_assert(std::is_same_v<detail::range_value_t<R>, float>, "wgprim::exact_sum takes f32 ranges");
  return detail::exact_result(detail::exact_sum_run(ctx, detail::in_ref(in), options));
}

/// Runtime-typed form for tools: n f32 values at the start of a buffer.
inline exact_sum_result exact_sum(context& ctx, const buffer& in, std::size_t n, const run_options& options = {}) {
  return exact_sum(ctx, device_span<const float>(in, 0, n), options);
}

}  // namespace wgprim
