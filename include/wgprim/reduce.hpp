/// @file
/// Device-wide reduction: combine all elements with a monoid, like std::reduce / cub::DeviceReduce.
/// The operator must be associative and commutative; an empty range gives the identity (or init).
///
/// @code
///   float s = wgprim::reduce(ctx, v);                        // v: device_vector<float>, device_span, std::vector...
///   float m = wgprim::reduce(ctx, v, wgprim::op::max());
///   int   t = wgprim::reduce(ctx, ints, 100, wgprim::op::sum());   // init, as std::reduce: 100 + sum
///   wgprim::reduce(ctx, encoder, v, result_span);            // recorded into the caller's encoder
///   wgprim::reduce(ctx, v, result_span);                     // device in and out: queued, returns at once
///   float p = wgprim::reduce(ctx, h.begin(), h.end(), std::plus<>{});   // the standard's spelling
/// @endcode
#pragma once
#include <cstddef>
#include <type_traits>

#include "wgprim/algorithm.hpp"
#include "wgprim/context.hpp"
#include "wgprim/device_vector.hpp"
#include "wgprim/op.hpp"

typedef struct WGPUCommandEncoderImpl* WGPUCommandEncoder;

namespace wgprim {

namespace detail {
/// The type-erased entry points the templates below call. `init` may be null.
std::uint32_t reduce_bits(context& ctx, const range_ref& in, const monoid& m, const std::uint32_t* init,
                          const run_options& opt);
/// Every element type: the result (and init) in to_raw's layout, of the monoid's type.
std::uint64_t reduce_raw(context& ctx, const range_ref& in, const monoid& m, const std::uint64_t* init,
                         const run_options& opt);
/// Records into the caller's encoder, or (encoder null) submits without waiting.
void reduce_record(context& ctx, WGPUCommandEncoder encoder, const range_ref& in, const range_ref& result,
                   const monoid& m, const run_options& opt);
template <class T> struct identity_type { using type = T; };
}  // namespace detail

/// Reduces a range (device_vector, device_span, or a host container / host_span: uploaded first).
/// The result has the accumulation type: the element type, except wgprim::half -> float, std::uint8_t ->
/// std::uint32_t, std::int8_t -> std::int32_t (as NumPy's sum of uint8 is a wider integer).
template <class R, class = std::enable_if_t<detail::is_range_v<R>>, class T = detail::range_value_t<R>>
accumulation_t<T> reduce(context& ctx, const R& in, const op& o = op::sum(), const run_options& options = {}) {
  const monoid m(o, dtype_of<T>::value);
  return from_raw<accumulation_t<T>>(detail::reduce_raw(ctx, detail::in_ref(in), m, nullptr, options));
}

/// With an initial value, as std::reduce(first, last, init, op): combine(init, reduction of the range).
template <class R, class = std::enable_if_t<detail::is_range_v<R>>, class T = detail::range_value_t<R>>
accumulation_t<T> reduce(context& ctx, const R& in, typename detail::identity_type<accumulation_t<T>>::type init,
                         const op& o = op::sum(), const run_options& options = {}) {
  const monoid m(o, dtype_of<T>::value);
  const std::uint64_t init_raw = to_raw(init);
  return from_raw<accumulation_t<T>>(detail::reduce_raw(ctx, detail::in_ref(in), m, &init_raw, options));
}

/// Host pointer + count.
template <class T>
accumulation_t<std::remove_cv_t<T>> reduce(context& ctx, const T* data, std::size_t n, const op& o = op::sum(),
                           const run_options& options = {}) {
  return reduce(ctx, host_span<const T>(data, n), o, options);
}

/// Iterator pair over contiguous host memory, as std::reduce(first, last[, init], op): pointers, std::vector or
/// std::array iterators (anything else is a static_assert), e.g. wgprim::reduce(ctx, v.begin(), v.end(),
/// std::plus<>{}).
template <class It, class = std::enable_if_t<detail::is_iterator_v<It>>, class T = detail::iter_value_t<It>>
accumulation_t<T> reduce(context& ctx, It first, It last, const op& o = op::sum(), const run_options& options = {}) {
  static_assert(detail::is_contiguous_iterator_v<It>, WGPRIM_CONTIGUOUS_MESSAGE);
  if constexpr (detail::is_contiguous_iterator_v<It>)
    return reduce(ctx, host_span<const T>(detail::iter_span(first, last)), o, options);
  else
    return {};
}
/// Iterator pair with an initial value, as std::reduce(first, last, init, op).
template <class It, class = std::enable_if_t<detail::is_iterator_v<It>>, class T = detail::iter_value_t<It>>
accumulation_t<T> reduce(context& ctx, It first, It last, typename detail::identity_type<accumulation_t<T>>::type init,
                         const op& o = op::sum(), const run_options& options = {}) {
  static_assert(detail::is_contiguous_iterator_v<It>, WGPRIM_CONTIGUOUS_MESSAGE);
  if constexpr (detail::is_contiguous_iterator_v<It>)
    return reduce(ctx, host_span<const T>(detail::iter_span(first, last)), init, o, options);
  else
    return {};
}

/// Runtime-typed (for tools that handle every type through one path): n elements of a buffer, the element type
/// taken from the monoid; returns the raw bits of the result.
inline std::uint32_t reduce_bits(context& ctx, const buffer& in, std::size_t n, const monoid& m,
                                 const run_options& options = {}) {
  detail::range_ref r;
  r.on_device = true;
  r.view = device_span<const std::uint32_t>(in, 0, n).view();
  r.count = n;
  r.type = m.type();
  return detail::reduce_bits(ctx, r, m, nullptr, options);
}
/// Runtime-typed for every element type: n elements of type `input` (the monoid's type, or a packed storage type
/// whose accumulation type it is); the result in to_raw's layout, of the monoid's type.
inline std::uint64_t reduce_raw(context& ctx, const buffer& in, std::size_t n, const monoid& m, dtype input,
                                const run_options& options = {}) {
  detail::range_ref r;
  r.on_device = true;
  r.view = device_span<const std::uint8_t>(in, 0, n * dtype_bytes(input)).view();
  r.view.count = n;
  r.view.elem_bytes = dtype_bytes(input);
  r.count = n;
  r.type = input;
  return detail::reduce_raw(ctx, r, m, nullptr, options);
}

/// Reduces a device range into result[0] on the device and returns without waiting (the work is queued on the
/// context's queue, as a CUB call on a stream): a later read of the result, or context::finish(), waits for it.
/// accuracy::fast only. On the native backend it runs at once.
template <class In, class Out, class = std::enable_if_t<detail::is_device_range_v<In> && detail::is_device_range_v<Out>>>
void reduce(context& ctx, const In& in, Out&& result, const op& o = op::sum(), const run_options& options = {}) {
  using T = detail::range_value_t<In>;
  static_assert(std::is_same_v<accumulation_t<T>, detail::range_value_t<Out>>,
                "wgprim: the result element type is not the input's accumulation type");
  const monoid m(o, dtype_of<T>::value);
  detail::reduce_record(ctx, nullptr, detail::in_ref(in), detail::out_ref(std::forward<Out>(result)), m, options);
}

/// Records the reduction of a device range into the caller's command encoder: the result lands in result[0] on
/// the device when the caller submits (nothing is read back). accuracy::fast only.
template <class In, class Out, class = std::enable_if_t<detail::is_device_range_v<In> && detail::is_device_range_v<Out>>>
void reduce(context& ctx, WGPUCommandEncoder encoder, const In& in, Out&& result, const op& o = op::sum(),
            const run_options& options = {}) {
  using T = detail::range_value_t<In>;
  static_assert(std::is_same_v<accumulation_t<T>, detail::range_value_t<Out>>,
                "wgprim: the result element type is not the input's accumulation type");
  const monoid m(o, dtype_of<T>::value);
  detail::reduce_record(ctx, encoder, detail::in_ref(in), detail::out_ref(std::forward<Out>(result)), m, options);
}

}  // namespace wgprim
