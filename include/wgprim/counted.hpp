/// @file
/// Sort and reduce of a counted range (device_count.hpp): the length is a device_count read when the work runs.
/// The host never reads the count. The sort's kernels read it on the device and work on the counted keys only,
/// leaving the elements past the count as they were (past one storage binding, it sorts the whole capacity after
/// writing the key that sorts last into the elements past the count). The reduce runs over the whole capacity after
/// writing the operator's identity past the count, so those elements are scratch. 32-bit element types (u32, i32,
/// f32; a descending f32 sort is errc::unsupported, as there is no key that sorts last). On the native backend the
/// count is read on the host and the call runs on that prefix.
/// @code
///   wgprim::sort(ctx, wgprim::counted(d_keys.span(), n), wgprim::key_bits(0, 16));
///   std::uint32_t total = wgprim::reduce(ctx, wgprim::counted(d_x.span(), n));       // waits for the result
///   wgprim::reduce(ctx, encoder, wgprim::counted(d_x.span(), n), d_total);           // recorded, no wait
/// @endcode
#pragma once
#include <type_traits>

#include "wgprim/device_count.hpp"
#include "wgprim/reduce.hpp"
#include "wgprim/sort.hpp"

namespace wgprim {

namespace detail {
/// The type-erased counted sort (keys only, in place): encoder null runs and waits.
void sort_counted(context& ctx, WGPUCommandEncoder encoder, const range_ref& keys, const device_view& count,
                  const sort_order& o, const run_options& opt);
/// The type-erased counted reduce: result null returns the raw result (waits); else it lands in result[0].
std::uint64_t reduce_counted(context& ctx, WGPUCommandEncoder encoder, const range_ref& in, const device_view& count,
                             const range_ref* result, const monoid& m, const run_options& opt);
}  // namespace detail

/// Sorts the first `keys.count` keys in place (the rest of the capacity is overwritten); waits.
template <class T>
void sort(context& ctx, const counted_span<T>& keys, sort_order o = {}, const run_options& opt = {}) {
  static_assert(!std::is_const_v<T>, "wgprim: the keys are sorted in place: a span of const T cannot be");
  detail::sort_counted(ctx, nullptr, detail::counted_ref(keys), detail::count_view_of(keys), o, opt);
}
/// The counted sort recorded into the caller's encoder.
template <class T>
void sort(context& ctx, WGPUCommandEncoder encoder, const counted_span<T>& keys, sort_order o = {},
          const run_options& opt = {}) {
  static_assert(!std::is_const_v<T>, "wgprim: the keys are sorted in place: a span of const T cannot be");
  detail::sort_counted(ctx, encoder, detail::counted_ref(keys), detail::count_view_of(keys), o, opt);
}
/// The reduction of the first `in.count` elements (the rest of the capacity is overwritten); waits.
template <class T>
accumulation_t<std::remove_cv_t<T>> reduce(context& ctx, const counted_span<T>& in, const op& o = op::sum(),
                                           const run_options& opt = {}) {
  using V = std::remove_cv_t<T>;
  const monoid m(o, dtype_of<V>::value);
  return from_raw<accumulation_t<V>>(
      detail::reduce_counted(ctx, nullptr, detail::counted_ref(in), detail::count_view_of(in), nullptr, m, opt));
}
/// The counted reduction recorded into the caller's encoder; the result lands in result[0].
template <class T, class Out, class = std::enable_if_t<detail::is_device_range_v<Out>>>
void reduce(context& ctx, WGPUCommandEncoder encoder, const counted_span<T>& in, Out&& result,
            const op& o = op::sum(), const run_options& opt = {}) {
  using V = std::remove_cv_t<T>;
  static_assert(std::is_same_v<accumulation_t<V>, detail::range_value_t<Out>>,
                "wgprim: the result element type is not the input's accumulation type");
  const monoid m(o, dtype_of<V>::value);
  const detail::range_ref r = detail::out_ref(std::forward<Out>(result));
  detail::reduce_counted(ctx, encoder, detail::counted_ref(in), detail::count_view_of(in), &r, m, opt);
}

}  // namespace wgprim
