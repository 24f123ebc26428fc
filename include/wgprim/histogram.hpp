/// @file
/// Histograms with numpy.histogram's rules, like cub::DeviceHistogram::HistogramEven / HistogramRange.
/// @code
///   histogram_even(ctx, in, counts, bins, lo, hi): `bins` equal bins over [lo, hi]. The edges are NumPy's
///     (np.linspace(lo, hi, bins + 1) in double, rounded to float for f32 input, as np.histogram does); a value
///     x is counted in the bin i < bins with edge[i] <= x < edge[i + 1], the last bin also taking x == edge[bins].
///     Values outside [edge[0], edge[bins]] and NaN are not counted. lo == hi widens the range to [lo-0.5, hi+0.5]
///     (NumPy does too); lo > hi or a non-finite bound is an error.
///   histogram_range(ctx, in, counts, levels): bins between consecutive levels (np.histogram with bins=array):
///     levels.size() - 1 bins, same rule; levels must be non-decreasing, not NaN, of the input's type.
/// @endcode
/// Counts are u32 (cleared and written: counts[i] = the count of bin i), counts.size() == the number of bins,
/// 1 <= bins <= 2^24. Input of float, std::int32_t or std::uint32_t; device ranges (data stays on the GPU) or host
/// ranges (uploaded; counts downloaded).
///
/// @code
///   std::vector<std::uint32_t> c(256);
///   wgprim::histogram_even(ctx, d_values, c, 256, -500.0, 500.0);
///   wgprim::histogram_range(ctx, d_values, d_counts, d_levels);
///   wgprim::histogram_even(ctx, encoder, d_values, d_counts, 256, 0.0, 1.0);   // recorded, not submitted
/// @endcode
#pragma once
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "wgprim/algorithm.hpp"
#include "wgprim/context.hpp"
#include "wgprim/device_vector.hpp"

typedef struct WGPUCommandEncoderImpl* WGPUCommandEncoder;

namespace wgprim {

namespace detail {
struct view_desc;
/// What the bins are: even (bins, lo, hi) or the edges in `levels` (non-null); `view`: the input is this view
/// (wgprim/view.hpp, histogram_view_run), not the range.
struct histogram_bins {
  std::uint64_t bins = 0;
  double lo = 0, hi = 0;
  const range_ref* levels = nullptr;
  const view_desc* view = nullptr;
};
/// The type-erased entry point: runs (encoder == null) or records into the caller's encoder.
void histogram_run(context& ctx, WGPUCommandEncoder encoder, const range_ref& in, dtype t, const range_ref& counts,
                   const histogram_bins& bins, const run_options& opt);
template <class In, class Out>
using if_histogram = std::enable_if_t<is_range_v<In> && is_range_v<Out> &&
                                      std::is_same_v<range_value_t<Out>, std::uint32_t>>;
}  // namespace detail

/// histogram_even over device or host ranges: `bins` equal bins over [lo, hi] (see the file's description).
template <class In, class Out, class = detail::if_histogram<In, Out>>
void histogram_even(context& ctx, const In& in, Out&& counts, std::size_t bins, double lo, double hi,
                    const run_options& opt = {}) {
  detail::histogram_bins b{bins, lo, hi, nullptr};
  detail::histogram_run(ctx, nullptr, detail::in_ref(in), dtype_of<detail::range_value_t<In>>::value,
                        detail::out_ref(std::forward<Out>(counts)), b, opt);
}

/// histogram_range over device or host ranges: bins between consecutive `levels`.
template <class In, class Out, class L, class = detail::if_histogram<In, Out>>
void histogram_range(context& ctx, const In& in, Out&& counts, const L& levels, const run_options& opt = {}) {
  static_assert(std::is_same_v<detail::range_value_t<In>, detail::range_value_t<L>>,
                "wgprim: the levels must have the input's element type");
  const detail::range_ref lv = detail::in_ref(levels);
  detail::histogram_bins b{lv.count ? lv.count - 1 : 0, 0, 0, &lv};
  detail::histogram_run(ctx, nullptr, detail::in_ref(in), dtype_of<detail::range_value_t<In>>::value,
                        detail::out_ref(std::forward<Out>(counts)), b, opt);
}

/// Recorded into the caller's command encoder (device ranges only); nothing is submitted.
template <class In, class Out, class = std::enable_if_t<detail::is_device_range_v<In> && detail::is_device_range_v<Out>>>
void histogram_even(context& ctx, WGPUCommandEncoder encoder, const In& in, Out&& counts, std::size_t bins, double lo,
                    double hi, const run_options& opt = {}) {
  static_assert(std::is_same_v<detail::range_value_t<Out>, std::uint32_t>, "wgprim: counts are std::uint32_t");
  detail::histogram_bins b{bins, lo, hi, nullptr};
  detail::histogram_run(ctx, encoder, detail::in_ref(in), dtype_of<detail::range_value_t<In>>::value,
                        detail::out_ref(std::forward<Out>(counts)), b, opt);
}
/// Recorded; the levels are not checked (non-decreasing, no NaN is the caller's promise; broken levels give
/// unspecified counts, never out-of-range accesses).
template <class In, class Out, class L,
          class = std::enable_if_t<detail::is_device_range_v<In> && detail::is_device_range_v<Out> &&
                                   detail::is_device_range_v<L>>>
void histogram_range(context& ctx, WGPUCommandEncoder encoder, const In& in, Out&& counts, const L& levels,
                     const run_options& opt = {}) {
  static_assert(std::is_same_v<detail::range_value_t<Out>, std::uint32_t>, "wgprim: counts are std::uint32_t");
  static_assert(std::is_same_v<detail::range_value_t<In>, detail::range_value_t<L>>,
                "wgprim: the levels must have the input's element type");
  const detail::range_ref lv = detail::in_ref(levels);
  detail::histogram_bins b{lv.count ? lv.count - 1 : 0, 0, 0, &lv};
  detail::histogram_run(ctx, encoder, detail::in_ref(in), dtype_of<detail::range_value_t<In>>::value,
                        detail::out_ref(std::forward<Out>(counts)), b, opt);
}

/// Runtime-typed (for tools): n elements of `in` of type t into bins counts of `counts`.
inline void histogram_even(context& ctx, const buffer& in, std::size_t n, dtype t, buffer& counts, std::size_t bins,
                           double lo, double hi, const run_options& opt = {}) {
  detail::histogram_bins b{bins, lo, hi, nullptr};
  detail::histogram_run(ctx, nullptr, detail::in_ref(device_span<const std::uint32_t>(in, 0, n)), t,
                        detail::out_ref(device_span<std::uint32_t>(counts, 0, bins)), b, opt);
}
/// Runtime-typed histogram_range (for tools): n elements of type t, n_levels levels of type t.
inline void histogram_range(context& ctx, const buffer& in, std::size_t n, dtype t, buffer& counts,
                            const buffer& levels, std::size_t n_levels, const run_options& opt = {}) {
  const detail::range_ref lv = detail::in_ref(device_span<const std::uint32_t>(levels, 0, n_levels));
  detail::histogram_bins b{n_levels ? n_levels - 1 : 0, 0, 0, &lv};
  detail::histogram_run(ctx, nullptr, detail::in_ref(device_span<const std::uint32_t>(in, 0, n)), t,
                        detail::out_ref(device_span<std::uint32_t>(counts, 0, n_levels ? n_levels - 1 : 0)), b, opt);
}

}  // namespace wgprim
