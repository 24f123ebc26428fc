/// @file
/// Stable compaction, like std::copy_if / std::stable_partition / std::unique and cub::DeviceSelect /
/// cub::DevicePartition: the kept elements keep their input order.
/// @code
///   select_if(in, out, p)         out = the elements x with p(x), in order; returns how many
///   select_flagged(in, f, out)    out = the elements x[i] with f[i] != 0 (f: u32 flags, one per element)
///   partition(in, out, p)         out = the kept elements, then the rejected ones, BOTH in input order (as
///                                 std::stable_partition); returns the number kept. With run_options::rejected =
///                                 rejected_order::reversed the rejected part is in reverse input order, as
///                                 cub::DevicePartition::If writes it (the first rejected at out[n - 1]): no
///                                 counting pass over the input first
///   unique(in, out)               out = in without consecutive duplicates (the first of each run stays), as
///                                 std::unique with operator==: integers by value; f32 by IEEE ==, so every NaN
///                                 is kept (a NaN equals nothing) and -0.0 after +0.0 is a duplicate (0.0 == -0.0)
/// @endcode
/// The output must hold at least as many elements as the input; past the returned count its contents are
/// unspecified (partition writes all of it). in == out (in place) is allowed: the input is copied first.
/// Predicates are checked WGSL expressions in `a` (predicate.hpp), evaluated with WGSL's semantics.
///
/// @code
///   std::size_t k = wgprim::select_if(ctx, d_in, d_out, wgprim::predicate::expr("a > 100"));  // reads k back
///   wgprim::select_if(ctx, d_in, d_out, d_count, pred);            // the count stays on the device (d_count[0])
///   wgprim::unique(ctx, encoder, d_in, d_out, d_count);            // recorded into the caller's encoder
///   std::vector<float> kept = wgprim::select_if(ctx, host_vector, pred);
///   wgprim::unique(ctx, wgprim::counted(d_in.span(), n), d_out, n);  // length and count on the device
/// @endcode
/// A counted input (device_count.hpp) takes its length from a device_count when the work runs; such calls need a
/// device range for the count and arrays within one storage binding (context::binding_limit()).
#pragma once
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "wgprim/algorithm.hpp"
#include "wgprim/context.hpp"
#include "wgprim/device_count.hpp"
#include "wgprim/device_vector.hpp"
#include "wgprim/kinds.hpp"
#include "wgprim/predicate.hpp"

typedef struct WGPUCommandEncoderImpl* WGPUCommandEncoder;

namespace wgprim {

namespace detail {
/// The type-erased entry point. count == null: the count is read back and returned; else it lands in count[0]
/// on the device (and 0 is returned). encoder != null: recorded, not submitted (needs count).
std::uint64_t select_run(context& ctx, WGPUCommandEncoder encoder, const range_ref& in, const range_ref* flags,
                         const range_ref& out, const range_ref* count, select_mode mode, bool partition, dtype type,
                         const predicate* pred, const run_options& opt);

/// select_run with the input's length read on the device from in_count (one u32) when the work runs.
std::uint64_t select_run_counted(context& ctx, WGPUCommandEncoder encoder, const range_ref& in,
                                 const device_view& in_count, const range_ref* flags, const range_ref& out,
                                 const range_ref* count, select_mode mode, bool partition, dtype type,
                                 const predicate* pred, const run_options& opt);
template <class T, class F, class Out, class C>
void select_counted(context& ctx, WGPUCommandEncoder enc, const counted_span<T>& in, const F* flags, Out&& out,
                    C&& count, select_mode mode, bool partition, const predicate* p, const run_options& opt) {
  using V = std::remove_cv_t<T>;
  static_assert(std::is_same_v<V, range_value_t<Out>>, "wgprim: input and output element types differ");
  static_assert(is_device_range_v<Out> && is_device_range_v<C>, "wgprim: a counted input needs device ranges");
  static_assert(std::is_same_v<range_value_t<C>, std::uint32_t>, "wgprim: a count is one std::uint32_t");
  range_ref f;
  if constexpr (!std::is_same_v<F, void>) {
    static_assert(std::is_same_v<range_value_t<F>, std::uint32_t>, "wgprim: flags are std::uint32_t");
    f = in_ref(*flags);
  }
  const range_ref c = out_ref(std::forward<C>(count));
  select_run_counted(ctx, enc, counted_ref(in), count_view_of(in), flags ? &f : nullptr,
                     out_ref(std::forward<Out>(out)), &c, mode, partition, dtype_of<V>::value, p, opt);
}

template <class In, class Out>
using if_select_ranges =
    std::enable_if_t<is_range_v<In> && is_range_v<Out> && std::is_same_v<range_value_t<In>, range_value_t<Out>>>;
template <class C>
using if_count = std::enable_if_t<is_device_range_v<C> && std::is_same_v<range_value_t<C>, std::uint32_t>>;
template <class In, class Out>
using if_device = std::enable_if_t<is_device_range_v<In> && is_device_range_v<Out>>;

template <class In, class Out>
std::size_t select_typed(context& ctx, WGPUCommandEncoder enc, const In& in, const range_ref* flags, Out&& out,
                         const range_ref* count, select_mode mode, bool partition, const predicate* p,
                         const run_options& opt) {
  using T = range_value_t<In>;
  static_assert(std::is_same_v<T, range_value_t<Out>>, "wgprim: input and output element types differ");
  return static_cast<std::size_t>(select_run(ctx, enc, in_ref(in), flags, out_ref(std::forward<Out>(out)), count,
                                             mode, partition, dtype_of<T>::value, p, opt));
}
template <class F>
range_ref flags_ref(const F& f) {
  static_assert(std::is_same_v<range_value_t<F>, std::uint32_t>, "wgprim: flags are std::uint32_t");
  return in_ref(f);
}
}  // namespace detail

// ---- select_if ----
/// Returns the number kept (read back from the device).
template <class In, class Out, class = detail::if_select_ranges<In, Out>>
std::size_t select_if(context& ctx, const In& in, Out&& out, const predicate& p, const run_options& opt = {}) {
  return detail::select_typed(ctx, nullptr, in, nullptr, std::forward<Out>(out), nullptr, select_mode::predicate,
                              false, &p, opt);
}
/// Device ranges; the count lands in count[0] on the device (no read-back).
template <class In, class Out, class C, class = detail::if_device<In, Out>, class = detail::if_count<C>>
void select_if(context& ctx, const In& in, Out&& out, C&& count, const predicate& p, const run_options& opt = {}) {
  const detail::range_ref c = detail::out_ref(std::forward<C>(count));
  detail::select_typed(ctx, nullptr, in, nullptr, std::forward<Out>(out), &c, select_mode::predicate, false, &p, opt);
}
/// Recorded into the caller's command encoder; nothing is submitted.
template <class In, class Out, class C, class = detail::if_device<In, Out>, class = detail::if_count<C>>
void select_if(context& ctx, WGPUCommandEncoder encoder, const In& in, Out&& out, C&& count, const predicate& p,
               const run_options& opt = {}) {
  const detail::range_ref c = detail::out_ref(std::forward<C>(count));
  detail::select_typed(ctx, encoder, in, nullptr, std::forward<Out>(out), &c, select_mode::predicate, false, &p, opt);
}
/// A host vector in, the kept elements out.
template <class T>
std::vector<T> select_if(context& ctx, const std::vector<T>& in, const predicate& p, const run_options& opt = {}) {
  std::vector<T> out(in.size());
  out.resize(select_if(ctx, in, out, p, opt));
  return out;
}

// ---- select_flagged ----
/// Copies the elements whose u32 flag is nonzero, in order; returns how many.
template <class In, class F, class Out, class = detail::if_select_ranges<In, Out>>
std::size_t select_flagged(context& ctx, const In& in, const F& flags, Out&& out, const run_options& opt = {}) {
  const detail::range_ref f = detail::flags_ref(flags);
  return detail::select_typed(ctx, nullptr, in, &f, std::forward<Out>(out), nullptr, select_mode::flags, false,
                              nullptr, opt);
}
/// select_flagged on device ranges, the count left on the device in count[0].
template <class In, class F, class Out, class C, class = detail::if_device<In, Out>, class = detail::if_count<C>>
void select_flagged(context& ctx, const In& in, const F& flags, Out&& out, C&& count, const run_options& opt = {}) {
  const detail::range_ref f = detail::flags_ref(flags), c = detail::out_ref(std::forward<C>(count));
  detail::select_typed(ctx, nullptr, in, &f, std::forward<Out>(out), &c, select_mode::flags, false, nullptr, opt);
}
/// select_flagged recorded into the caller's encoder; the count lands in count[0].
template <class In, class F, class Out, class C, class = detail::if_device<In, Out>, class = detail::if_count<C>>
void select_flagged(context& ctx, WGPUCommandEncoder encoder, const In& in, const F& flags, Out&& out, C&& count,
                    const run_options& opt = {}) {
  const detail::range_ref f = detail::flags_ref(flags), c = detail::out_ref(std::forward<C>(count));
  detail::select_typed(ctx, encoder, in, &f, std::forward<Out>(out), &c, select_mode::flags, false, nullptr, opt);
}

// ---- partition (kept, then rejected; both in input order, or the rejected reversed: run_options::rejected) ----
/// Writes the kept elements, then the rejected ones, both in input order (opt.rejected: or the rejected reversed);
/// returns the number kept.
template <class In, class Out, class = detail::if_select_ranges<In, Out>>
std::size_t partition(context& ctx, const In& in, Out&& out, const predicate& p, const run_options& opt = {}) {
  return detail::select_typed(ctx, nullptr, in, nullptr, std::forward<Out>(out), nullptr, select_mode::predicate,
                              true, &p, opt);
}
/// partition on device ranges, the number kept left on the device in count[0].
template <class In, class Out, class C, class = detail::if_device<In, Out>, class = detail::if_count<C>>
void partition(context& ctx, const In& in, Out&& out, C&& count, const predicate& p, const run_options& opt = {}) {
  const detail::range_ref c = detail::out_ref(std::forward<C>(count));
  detail::select_typed(ctx, nullptr, in, nullptr, std::forward<Out>(out), &c, select_mode::predicate, true, &p, opt);
}
/// partition recorded into the caller's encoder; the number kept lands in count[0].
template <class In, class Out, class C, class = detail::if_device<In, Out>, class = detail::if_count<C>>
void partition(context& ctx, WGPUCommandEncoder encoder, const In& in, Out&& out, C&& count, const predicate& p,
               const run_options& opt = {}) {
  const detail::range_ref c = detail::out_ref(std::forward<C>(count));
  detail::select_typed(ctx, encoder, in, nullptr, std::forward<Out>(out), &c, select_mode::predicate, true, &p, opt);
}

// ---- unique (consecutive duplicates removed) ----
/// Copies the input without consecutive duplicates (the first of each run stays); returns how many.
template <class In, class Out, class = detail::if_select_ranges<In, Out>>
std::size_t unique(context& ctx, const In& in, Out&& out, const run_options& opt = {}) {
  return detail::select_typed(ctx, nullptr, in, nullptr, std::forward<Out>(out), nullptr, select_mode::unique, false,
                              nullptr, opt);
}
/// unique on device ranges, the count left on the device in count[0].
template <class In, class Out, class C, class = detail::if_device<In, Out>, class = detail::if_count<C>>
void unique(context& ctx, const In& in, Out&& out, C&& count, const run_options& opt = {}) {
  const detail::range_ref c = detail::out_ref(std::forward<C>(count));
  detail::select_typed(ctx, nullptr, in, nullptr, std::forward<Out>(out), &c, select_mode::unique, false, nullptr, opt);
}
/// unique recorded into the caller's encoder; the count lands in count[0].
template <class In, class Out, class C, class = detail::if_device<In, Out>, class = detail::if_count<C>>
void unique(context& ctx, WGPUCommandEncoder encoder, const In& in, Out&& out, C&& count, const run_options& opt = {}) {
  const detail::range_ref c = detail::out_ref(std::forward<C>(count));
  detail::select_typed(ctx, encoder, in, nullptr, std::forward<Out>(out), &c, select_mode::unique, false, nullptr, opt);
}
/// unique of a host vector, returned as a new vector.
template <class T>
std::vector<T> unique(context& ctx, const std::vector<T>& in, const run_options& opt = {}) {
  std::vector<T> out(in.size());
  out.resize(unique(ctx, in, out, opt));
  return out;
}

// ---- counted inputs: the length is a device_count (device_count.hpp), the count lands in a device range ----
/// select_if of the first `in.count` elements (read on the device); the number kept lands in count[0].
template <class T, class Out, class C>
void select_if(context& ctx, const counted_span<T>& in, Out&& out, C&& count, const predicate& p,
               const run_options& opt = {}) {
  detail::select_counted<T, void>(ctx, nullptr, in, nullptr, std::forward<Out>(out), std::forward<C>(count),
                                  select_mode::predicate, false, &p, opt);
}
/// select_if of a counted input, recorded into the caller's encoder.
template <class T, class Out, class C>
void select_if(context& ctx, WGPUCommandEncoder encoder, const counted_span<T>& in, Out&& out, C&& count,
               const predicate& p, const run_options& opt = {}) {
  detail::select_counted<T, void>(ctx, encoder, in, nullptr, std::forward<Out>(out), std::forward<C>(count),
                                  select_mode::predicate, false, &p, opt);
}
/// select_flagged of a counted input (the flags are bound by the same count).
template <class T, class F, class Out, class C>
void select_flagged(context& ctx, const counted_span<T>& in, const F& flags, Out&& out, C&& count,
                    const run_options& opt = {}) {
  detail::select_counted(ctx, nullptr, in, &flags, std::forward<Out>(out), std::forward<C>(count),
                         select_mode::flags, false, nullptr, opt);
}
/// partition of a counted input: kept, then rejected (in input order, or reversed: opt.rejected), over the first
/// `in.count` elements.
template <class T, class Out, class C>
void partition(context& ctx, const counted_span<T>& in, Out&& out, C&& count, const predicate& p,
               const run_options& opt = {}) {
  detail::select_counted<T, void>(ctx, nullptr, in, nullptr, std::forward<Out>(out), std::forward<C>(count),
                                  select_mode::predicate, true, &p, opt);
}
/// unique of a counted input; `count` may be the input's own count (it is read before it is written).
template <class T, class Out, class C>
void unique(context& ctx, const counted_span<T>& in, Out&& out, C&& count, const run_options& opt = {}) {
  detail::select_counted<T, void>(ctx, nullptr, in, nullptr, std::forward<Out>(out), std::forward<C>(count),
                                  select_mode::unique, false, nullptr, opt);
}
/// unique of a counted input, recorded into the caller's encoder.
template <class T, class Out, class C>
void unique(context& ctx, WGPUCommandEncoder encoder, const counted_span<T>& in, Out&& out, C&& count,
            const run_options& opt = {}) {
  detail::select_counted<T, void>(ctx, encoder, in, nullptr, std::forward<Out>(out), std::forward<C>(count),
                                  select_mode::unique, false, nullptr, opt);
}

}  // namespace wgprim
