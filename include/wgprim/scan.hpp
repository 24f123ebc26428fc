/// @file
/// Device-wide prefix scans, like std::inclusive_scan / std::exclusive_scan and cub::DeviceScan.
/// The operator must be associative (it need not commute: the order of the input is kept).
/// @code
///   inclusive: out[i] = init op x[0] op ... op x[i]        (init: none unless given, as std::inclusive_scan)
///   exclusive: out[i] = init op x[0] op ... op x[i-1]      (init: the identity unless given)
/// @endcode
/// Ranges are device_vector / device_span (data stays on the GPU) or host containers / host_span (uploaded,
/// scanned, downloaded); input and output on the same side, of the same length; in == out (in place) is allowed.
///
/// @code
///   wgprim::inclusive_scan(ctx, d_in, d_out);                          // sums
///   wgprim::exclusive_scan(ctx, d_in, d_out, 10u, wgprim::op::sum());  // init 10, as std::exclusive_scan
///   auto v = wgprim::inclusive_scan(ctx, host_vector, wgprim::op::max());
///   wgprim::exclusive_scan(ctx, encoder, d_in, d_out);                 // recorded into the caller's encoder
///   wgprim::inclusive_scan(ctx, h.begin(), h.end(), out.begin(), std::bit_xor<>{});  // the standard's spelling
/// @endcode
#pragma once
#include <cstddef>
#include <type_traits>
#include <vector>

#include "wgprim/algorithm.hpp"
#include "wgprim/context.hpp"
#include "wgprim/device_vector.hpp"
#include "wgprim/kinds.hpp"
#include "wgprim/op.hpp"

typedef struct WGPUCommandEncoderImpl* WGPUCommandEncoder;

namespace wgprim {

namespace detail {
/// The type-erased entry point: runs (encoder == null) or records into the caller's encoder.
void scan_run(context& ctx, WGPUCommandEncoder encoder, const range_ref& in, const range_ref& out, const monoid& m,
              scan_kind kind, const std::uint64_t* init, const run_options& opt);
template <class In, class Out>
void scan_typed(context& ctx, WGPUCommandEncoder enc, const In& in, Out&& out, const op& o, scan_kind kind,
                const accumulation_t<range_value_t<In>>* init, const run_options& opt) {
  using T = range_value_t<In>;
  static_assert(std::is_same_v<accumulation_t<T>, range_value_t<Out>>,
                "wgprim: the output element type is not the input's (or, for half/uint8_t/int8_t input, its "
                "accumulation type float/uint32_t/int32_t)");
  const monoid m(o, dtype_of<T>::value);
  std::uint64_t raw = init ? to_raw(*init) : 0;
  scan_run(ctx, enc, in_ref(in), out_ref(std::forward<Out>(out)), m, kind, init ? &raw : nullptr, opt);
}
template <class In, class Out>
using if_ranges = std::enable_if_t<is_range_v<In> && is_range_v<Out>>;
template <class T> struct same { using type = T; };
}  // namespace detail

/// Inclusive scan of a range into out (device or host ranges of the same length; in place allowed).
template <class In, class Out, class = detail::if_ranges<In, Out>>
void inclusive_scan(context& ctx, const In& in, Out&& out, const op& o = op::sum(), const run_options& opt = {}) {
  detail::scan_typed(ctx, nullptr, in, std::forward<Out>(out), o, scan_kind::inclusive, nullptr, opt);
}
/// With init, as std::inclusive_scan(first, last, d_first, op, init).
template <class In, class Out, class = detail::if_ranges<In, Out>>
void inclusive_scan(context& ctx, const In& in, Out&& out, const op& o,
                    typename detail::same<accumulation_t<detail::range_value_t<In>>>::type init,
                    const run_options& opt = {}) {
  detail::scan_typed(ctx, nullptr, in, std::forward<Out>(out), o, scan_kind::inclusive, &init, opt);
}
/// Exclusive scan starting from the identity.
template <class In, class Out, class = detail::if_ranges<In, Out>>
void exclusive_scan(context& ctx, const In& in, Out&& out, const op& o = op::sum(), const run_options& opt = {}) {
  detail::scan_typed(ctx, nullptr, in, std::forward<Out>(out), o, scan_kind::exclusive, nullptr, opt);
}
/// With init, as std::exclusive_scan(first, last, d_first, init, op).
template <class In, class Out, class = detail::if_ranges<In, Out>>
void exclusive_scan(context& ctx, const In& in, Out&& out,
                    typename detail::same<accumulation_t<detail::range_value_t<In>>>::type init,
                    const op& o = op::sum(), const run_options& opt = {}) {
  detail::scan_typed(ctx, nullptr, in, std::forward<Out>(out), o, scan_kind::exclusive, &init, opt);
}

/// Host vectors in, a new vector out.
template <class T>
std::vector<accumulation_t<T>> inclusive_scan(context& ctx, const std::vector<T>& in, const op& o = op::sum(),
                                              const run_options& opt = {}) {
  std::vector<accumulation_t<T>> out(in.size());
  inclusive_scan(ctx, in, out, o, opt);
  return out;
}
/// Exclusive scan of a host vector, returned as a new vector.
template <class T>
std::vector<accumulation_t<T>> exclusive_scan(context& ctx, const std::vector<T>& in, const op& o = op::sum(),
                                              const run_options& opt = {}) {
  std::vector<accumulation_t<T>> out(in.size());
  exclusive_scan(ctx, in, out, o, opt);
  return out;
}

/// Iterator pairs over contiguous host memory, as std::inclusive_scan(first, last, d_first[, op[, init]]):
/// pointers, std::vector or std::array iterators (anything else is a static_assert); returns d_first + n.
template <class It, class OutIt, class = std::enable_if_t<detail::is_iterator_v<It> && detail::is_iterator_v<OutIt>>>
OutIt inclusive_scan(context& ctx, It first, It last, OutIt d_first, const op& o = op::sum(),
                     const run_options& opt = {}) {
  static_assert(detail::is_contiguous_iterator_v<It> && detail::is_contiguous_iterator_v<OutIt>,
                WGPRIM_CONTIGUOUS_MESSAGE);
  if constexpr (detail::is_contiguous_iterator_v<It> && detail::is_contiguous_iterator_v<OutIt>) {
    const auto n = static_cast<std::size_t>(last - first);
    inclusive_scan(ctx, detail::iter_span(first, last), detail::iter_out_span(d_first, n), o, opt);
    return d_first + static_cast<std::ptrdiff_t>(n);
  } else {
    return d_first;
  }
}
/// Iterator pairs with init, as std::inclusive_scan(first, last, d_first, op, init).
template <class It, class OutIt, class = std::enable_if_t<detail::is_iterator_v<It> && detail::is_iterator_v<OutIt>>>
OutIt inclusive_scan(context& ctx, It first, It last, OutIt d_first, const op& o,
                     typename detail::same<accumulation_t<detail::iter_value_t<It>>>::type init,
                     const run_options& opt = {}) {
  static_assert(detail::is_contiguous_iterator_v<It> && detail::is_contiguous_iterator_v<OutIt>,
                WGPRIM_CONTIGUOUS_MESSAGE);
  if constexpr (detail::is_contiguous_iterator_v<It> && detail::is_contiguous_iterator_v<OutIt>) {
    const auto n = static_cast<std::size_t>(last - first);
    inclusive_scan(ctx, detail::iter_span(first, last), detail::iter_out_span(d_first, n), o, init, opt);
    return d_first + static_cast<std::ptrdiff_t>(n);
  } else {
    return d_first;
  }
}
/// Exclusive scan of an iterator pair starting from the identity (std::exclusive_scan always takes an init; this
/// one defaults it); returns d_first + n.
template <class It, class OutIt, class = std::enable_if_t<detail::is_iterator_v<It> && detail::is_iterator_v<OutIt>>>
OutIt exclusive_scan(context& ctx, It first, It last, OutIt d_first, const op& o = op::sum(),
                     const run_options& opt = {}) {
  static_assert(detail::is_contiguous_iterator_v<It> && detail::is_contiguous_iterator_v<OutIt>,
                WGPRIM_CONTIGUOUS_MESSAGE);
  if constexpr (detail::is_contiguous_iterator_v<It> && detail::is_contiguous_iterator_v<OutIt>) {
    const auto n = static_cast<std::size_t>(last - first);
    exclusive_scan(ctx, detail::iter_span(first, last), detail::iter_out_span(d_first, n), o, opt);
    return d_first + static_cast<std::ptrdiff_t>(n);
  } else {
    return d_first;
  }
}
/// Iterator pairs with init, as std::exclusive_scan(first, last, d_first, init, op); returns d_first + n.
template <class It, class OutIt, class = std::enable_if_t<detail::is_iterator_v<It> && detail::is_iterator_v<OutIt>>>
OutIt exclusive_scan(context& ctx, It first, It last, OutIt d_first,
                     typename detail::same<accumulation_t<detail::iter_value_t<It>>>::type init,
                     const op& o = op::sum(), const run_options& opt = {}) {
  static_assert(detail::is_contiguous_iterator_v<It> && detail::is_contiguous_iterator_v<OutIt>,
                WGPRIM_CONTIGUOUS_MESSAGE);
  if constexpr (detail::is_contiguous_iterator_v<It> && detail::is_contiguous_iterator_v<OutIt>) {
    const auto n = static_cast<std::size_t>(last - first);
    exclusive_scan(ctx, detail::iter_span(first, last), detail::iter_out_span(d_first, n), init, o, opt);
    return d_first + static_cast<std::ptrdiff_t>(n);
  } else {
    return d_first;
  }
}

/// Recorded into the caller's command encoder (device ranges only); nothing is submitted.
template <class In, class Out, class = std::enable_if_t<detail::is_device_range_v<In> && detail::is_device_range_v<Out>>>
void inclusive_scan(context& ctx, WGPUCommandEncoder encoder, const In& in, Out&& out, const op& o = op::sum(),
                    const run_options& opt = {}) {
  detail::scan_typed(ctx, encoder, in, std::forward<Out>(out), o, scan_kind::inclusive, nullptr, opt);
}
/// Records an exclusive scan of device ranges into the caller's encoder (nothing is read back).
template <class In, class Out, class = std::enable_if_t<detail::is_device_range_v<In> && detail::is_device_range_v<Out>>>
void exclusive_scan(context& ctx, WGPUCommandEncoder encoder, const In& in, Out&& out, const op& o = op::sum(),
                    const run_options& opt = {}) {
  detail::scan_typed(ctx, encoder, in, std::forward<Out>(out), o, scan_kind::exclusive, nullptr, opt);
}

/// Runtime-typed (for tools that handle every type through one path): n elements of `in` into `out`, the element
/// type taken from the monoid.
inline void scan(context& ctx, const buffer& in, buffer& out, std::size_t n, const monoid& m, scan_kind kind,
                 const run_options& opt = {}) {
  detail::scan_run(ctx, nullptr, detail::in_ref(device_span<const std::uint32_t>(in, 0, n)),
                   detail::out_ref(device_span<std::uint32_t>(out, 0, n)), m, kind, nullptr, opt);
}
/// Runtime-typed for every element type: n elements of type `input` (the monoid's type, or a packed storage type
/// whose accumulation type it is) into n elements of the monoid's type.
inline void scan_raw(context& ctx, const buffer& in, buffer& out, std::size_t n, const monoid& m, dtype input,
                     scan_kind kind, const run_options& opt = {}) {
  detail::range_ref r = detail::in_ref(device_span<const std::uint8_t>(in, 0, n * dtype_bytes(input)));
  r.view.count = r.count = n;
  r.view.elem_bytes = dtype_bytes(input);
  r.type = input;
  detail::range_ref w = detail::out_ref(device_span<std::uint8_t>(out, 0, n * dtype_bytes(m.type())));
  w.view.count = w.count = n;
  w.view.elem_bytes = dtype_bytes(m.type());
  w.type = m.type();
  detail::scan_run(ctx, nullptr, r, w, m, kind, nullptr, opt);
}

/// The kind as a value (for code that chooses at run time).
template <class In, class Out, class = detail::if_ranges<In, Out>>
void scan(context& ctx, const In& in, Out&& out, scan_kind kind, const op& o = op::sum(), const run_options& opt = {}) {
  detail::scan_typed(ctx, nullptr, in, std::forward<Out>(out), o, kind, nullptr, opt);
}

}  // namespace wgprim
