/// @file
/// Segmented reduce and scan over CSR offsets, like cub::DeviceSegmentedReduce: n_segments + 1 non-decreasing
/// u32 offsets; segment s is [offsets[s], offsets[s+1]) (empty segments allowed); offsets[n_segments] <= n.
/// @code
///   segmented_reduce(ctx, in, offsets, out, op): out[s] = the reduction of segment s, identity() when empty;
///     out.size() == offsets.size() - 1.
///   segmented_inclusive_scan / segmented_exclusive_scan(ctx, in, offsets, out, op): the scan restarts at every
///     segment start (exclusive: identity() there); elements before offsets[0] and from offsets[n_segments] on
///     are scanned as groups of their own. out.size() == in.size().
/// @endcode
/// Any op and type the unsegmented reduce/scan take (associative; commutativity is not needed: order is kept).
/// Offsets that decrease or pass n give errc::invalid_argument (checked on the host for host ranges, on the GPU
/// and reported after the run for device ranges; not checked when recorded into the caller's encoder: bad
/// offsets then give unspecified results, never accesses out of range).
///
/// @code
///   wgprim::segmented_reduce(ctx, d_values, d_offsets, d_sums);                 // sums per segment
///   wgprim::segmented_inclusive_scan(ctx, values, offsets, out, wgprim::op::max());
/// @endcode
#pragma once
#include <cstdint>
#include <type_traits>

#include "wgprim/algorithm.hpp"
#include "wgprim/context.hpp"
#include "wgprim/device_vector.hpp"
#include "wgprim/op.hpp"
#include "wgprim/scan.hpp"

typedef struct WGPUCommandEncoderImpl* WGPUCommandEncoder;

namespace wgprim {

namespace detail {
void segmented_reduce_run(context& ctx, WGPUCommandEncoder encoder, const range_ref& in, const range_ref& offsets,
                          const range_ref& out, const monoid& m, const run_options& opt);
void segmented_scan_run(context& ctx, WGPUCommandEncoder encoder, const range_ref& in, const range_ref& offsets,
                        const range_ref& out, const monoid& m, scan_kind kind, const run_options& opt);
template <class In, class Off, class Out>
using if_segmented = std::enable_if_t<is_range_v<In> && is_range_v<Off> && is_range_v<Out> &&
                                      std::is_same_v<range_value_t<Off>, std::uint32_t> &&
                                      std::is_same_v<range_value_t<In>, range_value_t<Out>>>;
template <class In, class Off, class Out>
using if_segmented_device =
    std::enable_if_t<is_device_range_v<In> && is_device_range_v<Off> && is_device_range_v<Out>>;
}  // namespace detail

/// out[s] = the reduction of segment s (the identity when empty).
template <class In, class Off, class Out, class = detail::if_segmented<In, Off, Out>>
void segmented_reduce(context& ctx, const In& in, const Off& offsets, Out&& out, const op& o = op::sum(),
                      const run_options& opt = {}) {
  const monoid m(o, dtype_of<detail::range_value_t<In>>::value);
  detail::segmented_reduce_run(ctx, nullptr, detail::in_ref(in), detail::in_ref(offsets),
                               detail::out_ref(std::forward<Out>(out)), m, opt);
}
/// Inclusive scan restarting at every segment start.
template <class In, class Off, class Out, class = detail::if_segmented<In, Off, Out>>
void segmented_inclusive_scan(context& ctx, const In& in, const Off& offsets, Out&& out, const op& o = op::sum(),
                              const run_options& opt = {}) {
  const monoid m(o, dtype_of<detail::range_value_t<In>>::value);
  detail::segmented_scan_run(ctx, nullptr, detail::in_ref(in), detail::in_ref(offsets),
                             detail::out_ref(std::forward<Out>(out)), m, scan_kind::inclusive, opt);
}
/// Exclusive scan restarting at every segment start.
template <class In, class Off, class Out, class = detail::if_segmented<In, Off, Out>>
void segmented_exclusive_scan(context& ctx, const In& in, const Off& offsets, Out&& out, const op& o = op::sum(),
                              const run_options& opt = {}) {
  const monoid m(o, dtype_of<detail::range_value_t<In>>::value);
  detail::segmented_scan_run(ctx, nullptr, detail::in_ref(in), detail::in_ref(offsets),
                             detail::out_ref(std::forward<Out>(out)), m, scan_kind::exclusive, opt);
}

/// Recorded into the caller's command encoder (device ranges; offsets not checked).
template <class In, class Off, class Out, class = detail::if_segmented_device<In, Off, Out>>
void segmented_reduce(context& ctx, WGPUCommandEncoder encoder, const In& in, const Off& offsets, Out&& out,
                      const op& o = op::sum(), const run_options& opt = {}) {
  const monoid m(o, dtype_of<detail::range_value_t<In>>::value);
  detail::segmented_reduce_run(ctx, encoder, detail::in_ref(in), detail::in_ref(offsets),
                               detail::out_ref(std::forward<Out>(out)), m, opt);
}
/// Records a segmented scan of device ranges into the caller's encoder.
template <class In, class Off, class Out, class = detail::if_segmented_device<In, Off, Out>>
void segmented_scan(context& ctx, WGPUCommandEncoder encoder, const In& in, const Off& offsets, Out&& out,
                    scan_kind kind, const op& o = op::sum(), const run_options& opt = {}) {
  const monoid m(o, dtype_of<detail::range_value_t<In>>::value);
  detail::segmented_scan_run(ctx, encoder, detail::in_ref(in), detail::in_ref(offsets),
                             detail::out_ref(std::forward<Out>(out)), m, kind, opt);
}

/// Runtime-typed (for tools): the element type from the monoid.
inline void segmented_reduce(context& ctx, const buffer& in, std::size_t n, const buffer& offsets,
                             std::size_t n_segments, buffer& out, const monoid& m, const run_options& opt = {}) {
  detail::segmented_reduce_run(ctx, nullptr, detail::in_ref(device_span<const std::uint32_t>(in, 0, n)),
                               detail::in_ref(device_span<const std::uint32_t>(offsets, 0, n_segments + 1)),
                               detail::out_ref(device_span<std::uint32_t>(out, 0, n_segments)), m, opt);
}
/// Runtime-typed segmented scan (for tools): n elements, n_segments + 1 offsets.
inline void segmented_scan(context& ctx, const buffer& in, std::size_t n, const buffer& offsets,
                           std::size_t n_segments, buffer& out, const monoid& m, scan_kind kind,
                           const run_options& opt = {}) {
  detail::segmented_scan_run(ctx, nullptr, detail::in_ref(device_span<const std::uint32_t>(in, 0, n)),
                             detail::in_ref(device_span<const std::uint32_t>(offsets, 0, n_segments + 1)),
                             detail::out_ref(device_span<std::uint32_t>(out, 0, n)), m, kind, opt);
}

}  // namespace wgprim
