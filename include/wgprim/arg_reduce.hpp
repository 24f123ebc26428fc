/// @file
/// Device-wide arg-min / arg-max, like numpy.argmin / numpy.argmax and cub::DeviceReduce::ArgMin / ArgMax:
/// the extreme value and the FIRST index at which it occurs.
///
/// @code
///   wgprim::arg_result<float> r = wgprim::argmax(ctx, v);   // v: device_vector<float>, device_span, std::vector...
///   // r.value == v[r.index]; r.index is the smallest index holding the maximum
///   wgprim::argmin(ctx, encoder, d_in, d_result);           // recorded: d_result[0..2] = {value bits, index lo, hi}
/// @endcode
///
/// Semantics (NumPy's): ties go to the smallest index; -0.0 and +0.0 compare equal (the first one wins and its
/// own bits are returned); a NaN wins over every number for both argmin and argmax, and among NaNs the first wins;
/// an empty range is an error (errc::invalid_argument), as NumPy raises ValueError. Indices are 64-bit, correct
/// for arrays larger than one storage binding.
#pragma once
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "wgprim/algorithm.hpp"
#include "wgprim/context.hpp"
#include "wgprim/device_vector.hpp"
#include "wgprim/kinds.hpp"

typedef struct WGPUCommandEncoderImpl* WGPUCommandEncoder;

namespace wgprim {

/// Words a recorded arg reduction writes into the caller's result span: value bits, index low, index high.
constexpr std::size_t arg_result_words = 3;

namespace detail {
/// The type-erased entry points. Runs (and reads back) or records into `encoder`.
arg_result<std::uint32_t> arg_reduce_bits(context& ctx, const range_ref& in, dtype t, arg_op o,
                                          const run_options& opt);
void arg_reduce_record(context& ctx, WGPUCommandEncoder encoder, const range_ref& in, const range_ref& result,
                       dtype t, arg_op o, const run_options& opt);

template <class R, class T = range_value_t<R>>
arg_result<T> arg_reduce_typed(context& ctx, const R& in, arg_op o, const run_options& opt) {
  const arg_result<std::uint32_t> r = arg_reduce_bits(ctx, in_ref(in), dtype_of<T>::value, o, opt);
  return {from_bits<T>(r.value), r.index};
}
}  // namespace detail

/// The smallest value of a range and the first index holding it (device_vector, device_span, or a host container
/// / host_span: uploaded first).
template <class R, class = std::enable_if_t<detail::is_range_v<R>>, class T = detail::range_value_t<R>>
arg_result<T> argmin(context& ctx, const R& in, const run_options& options = {}) {
  return detail::arg_reduce_typed(ctx, in, arg_op::min, options);
}
/// The largest value of a range and the first index holding it.
template <class R, class = std::enable_if_t<detail::is_range_v<R>>, class T = detail::range_value_t<R>>
arg_result<T> argmax(context& ctx, const R& in, const run_options& options = {}) {
  return detail::arg_reduce_typed(ctx, in, arg_op::max, options);
}

/// Host pointer + count.
template <class T>
arg_result<std::remove_cv_t<T>> argmin(context& ctx, const T* data, std::size_t n, const run_options& options = {}) {
  return argmin(ctx, host_span<const T>(data, n), options);
}
/// Host pointer + count.
template <class T>
arg_result<std::remove_cv_t<T>> argmax(context& ctx, const T* data, std::size_t n, const run_options& options = {}) {
  return argmax(ctx, host_span<const T>(data, n), options);
}

/// Runtime-typed (for tools): n elements of a buffer of type t; the value comes back as raw bits.
inline arg_result<std::uint32_t> arg_reduce_bits(context& ctx, const buffer& in, std::size_t n, dtype t, arg_op o,
                                                 const run_options& options = {}) {
  detail::range_ref r;
  r.on_device = true;
  r.view = device_span<const std::uint32_t>(in, 0, n).view();
  r.count = n;
  return detail::arg_reduce_bits(ctx, r, t, o, options);
}

/// Records the arg reduction of a device range into the caller's command encoder: when the caller submits,
/// result[0] holds the value's bits, result[1] and result[2] the low and high words of the index
/// (arg_result_words words; the span must hold at least that many). Nothing is read back.
template <class In, class = std::enable_if_t<detail::is_device_range_v<In>>>
void argmin(context& ctx, WGPUCommandEncoder encoder, const In& in, device_span<std::uint32_t> result,
            const run_options& options = {}) {
  detail::arg_reduce_record(ctx, encoder, detail::in_ref(in), detail::out_ref(result),
                            dtype_of<detail::range_value_t<In>>::value, arg_op::min, options);
}
/// As the argmin overload above, for the maximum: recorded into the caller's encoder, nothing read back.
template <class In, class = std::enable_if_t<detail::is_device_range_v<In>>>
void argmax(context& ctx, WGPUCommandEncoder encoder, const In& in, device_span<std::uint32_t> result,
            const run_options& options = {}) {
  detail::arg_reduce_record(ctx, encoder, detail::in_ref(in), detail::out_ref(result),
                            dtype_of<detail::range_value_t<In>>::value, arg_op::max, options);
}

}  // namespace wgprim
