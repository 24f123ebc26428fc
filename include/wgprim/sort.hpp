/// @file
/// Device-wide radix sort of 32-bit keys, alone or with 32-bit values, like cub::DeviceRadixSort / std::stable_sort.
/// Stable: equal keys keep their input order (and their values travel with them).
/// Key order: u32 and i32 numeric; f32 -inf < ... < -0.0 < +0.0 < ... < +inf < NaN (NaNs last, as NumPy; all NaNs
/// compare equal, so they keep their input order and their bits). order::descending is exactly the reverse order of
/// distinct keys (NaNs first, +0.0 before -0.0), and still stable: equal keys stay in input order.
/// Ranges are device_vector / device_span or host containers / host_span (uploaded, sorted, downloaded); any n whose
/// keys fit the device's largest buffer (past one storage binding: binding-sized chunks radix-sorted, then merged;
/// more: errc::limit). The encoder overloads (device ranges) record the whole sort into the caller's encoder with no
/// host wait: passes whose digit is the same for every key are skipped on the GPU.
///
/// @code
///   wgprim::sort(ctx, d_keys);                                   // in place, ascending
///   wgprim::sort(ctx, d_in, d_out, wgprim::order::descending);   // out of place
///   wgprim::sort_pairs(ctx, d_keys, d_indices);                  // values (any 32-bit payload) follow their keys
///   wgprim::sort(ctx, encoder, d_keys);                          // recorded; the caller submits
///   wgprim::sort(ctx, d_keys, wgprim::key_bits(0, 16));          // only bits 0..15 compared (two digit passes)
///   wgprim::sort(ctx, h.begin(), h.end(), std::greater<>{});     // the standard's spelling (host iterators)
/// @endcode
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "wgprim/algorithm.hpp"
#include "wgprim/context.hpp"
#include "wgprim/device_vector.hpp"
#include "wgprim/kinds.hpp"
#include "wgprim/op.hpp"

namespace wgprim {

namespace detail {
/// std::less<T> / std::greater<T> (T void included): the comparators sort_order takes.
template <class C> struct is_less_or_greater : std::false_type { static constexpr bool descending = false; };
template <class T> struct is_less_or_greater<std::less<T>> : std::true_type { static constexpr bool descending = false; };
template <class T> struct is_less_or_greater<std::greater<T>> : std::true_type { static constexpr bool descending = true; };
}  // namespace detail

/// What a sort compares: the direction, and which bits of the key's ordered bit pattern (cub::DeviceRadixSort's
/// begin_bit / end_bit). The ordered pattern is the radix sort's transform of the key: unsigned as is, signed with
/// the sign bit flipped, floats with negatives' bits all flipped and positives' sign bit set, every NaN all ones.
/// Only bits [begin_bit, end_bit) of it are compared (0 <= begin_bit < end_bit <= the key's width; end_bit 0 means
/// the width: 32 or 64); keys equal on those bits keep their input order (stable), and only the 8-bit digit passes
/// that cover those bits run. Converts from `order`, so `order::descending` reads as before.
struct sort_order {
  order direction = order::ascending;  ///< ascending, or exactly its reverse
  unsigned begin_bit = 0;              ///< the lowest bit compared
  unsigned end_bit = 0;                ///< one past the highest bit compared; 0: the key's width
  /// The direction and the bit range [begin, end); end 0: the key's width.
  sort_order(order o = order::ascending, unsigned begin = 0, unsigned end = 0)  // NOLINT: implicit from order
      : direction(o), begin_bit(begin), end_bit(end) {}
  /// The standard's spelling of the direction, as std::sort's comparator: std::less<> (or std::less<T>) is
  /// ascending, std::greater<> descending (both still stable, and with f32 keys in the order above: NaNs last,
  /// -0.0 before +0.0, where std::less leaves those unordered). Any other comparator fails to compile with a
  /// static_assert: a radix sort takes no C++ comparison.
  template <class C, class = std::enable_if_t<detail::is_functor_like_v<C>>>
  sort_order(const C&)  // NOLINT: implicit, as a comparator argument
      : direction(direction_of<C>()) {}

 private:
  template <class C>
  static constexpr order direction_of() {
    using D = std::remove_cv_t<std::remove_reference_t<C>>;
    static_assert(detail::is_less_or_greater<D>::value,
                  "wgprim: a sort takes std::less<> (ascending) or std::greater<> (descending), wgprim::order or "
                  "wgprim::key_bits; a radix sort cannot call a C++ comparator");
    return detail::is_less_or_greater<D>::descending ? order::descending : order::ascending;
  }
};
/// Bits [begin, end) of the ordered key, e.g. wgprim::sort(ctx, keys, wgprim::key_bits(0, 16)).
inline sort_order key_bits(unsigned begin, unsigned end, order o = order::ascending) { return {o, begin, end}; }

namespace detail {
/// The type-erased entry point. vals_in / vals_out are null for keys only; encoder null: run and wait.
void sort_run(context& ctx, WGPUCommandEncoder encoder, const range_ref& keys_in, const range_ref& keys_out, const range_ref* vals_in,
              const range_ref* vals_out, dtype key_type, const sort_order& o, const run_options& opt);
template <class R>
range_ref in_place_ref(R&& r) {
  range_ref x = out_ref(std::forward<R>(r));
  x.host = x.host_out;
  return x;
}
template <class K>
using if_range = std::enable_if_t<is_range_v<K>>;
}  // namespace detail

/// Sorts keys in place.
template <class K, class = detail::if_range<K>>
void sort(context& ctx, K&& keys, sort_order o = {}, const run_options& opt = {}) {
  using T = detail::range_value_t<K>;
  const detail::range_ref r = detail::in_place_ref(std::forward<K>(keys));
  detail::sort_run(ctx, nullptr, r, r, nullptr, nullptr, dtype_of<T>::value, o, opt);
}

/// Sorts [first, last) of contiguous host memory in place, as std::stable_sort(first, last[, comp]): pointers,
/// std::vector or std::array iterators (anything else is a static_assert), e.g.
/// wgprim::sort(ctx, v.begin(), v.end(), std::greater<>{}).
template <class It, class = std::enable_if_t<detail::is_iterator_v<It>>>
void sort(context& ctx, It first, It last, sort_order o = {}, const run_options& opt = {}) {
  static_assert(detail::is_contiguous_iterator_v<It>, WGPRIM_CONTIGUOUS_MESSAGE);
  if constexpr (detail::is_contiguous_iterator_v<It>) sort(ctx, detail::iter_span(first, last), o, opt);
}

/// Sorts keys_in into keys_out (same length, both on the device or both on the host).
template <class In, class Out, class = std::enable_if_t<detail::is_range_v<In> && detail::is_range_v<Out>>>
void sort(context& ctx, const In& keys_in, Out&& keys_out, sort_order o = {}, const run_options& opt = {}) {
  using T = detail::range_value_t<In>;
  static_assert(std::is_same_v<T, detail::range_value_t<Out>>, "wgprim: input and output key types differ");
  detail::sort_run(ctx, nullptr, detail::in_ref(keys_in), detail::out_ref(std::forward<Out>(keys_out)), nullptr, nullptr,
                   dtype_of<T>::value, o, opt);
}

/// Sorts keys in place and applies the same permutation to values (any 32-bit type).
template <class K, class V, class = std::enable_if_t<detail::is_range_v<K> && detail::is_range_v<V>>>
void sort_pairs(context& ctx, K&& keys, V&& values, sort_order o = {}, const run_options& opt = {}) {
  using T = detail::range_value_t<K>;
  const detail::range_ref k = detail::in_place_ref(std::forward<K>(keys));
  const detail::range_ref v = detail::in_place_ref(std::forward<V>(values));
  detail::sort_run(ctx, nullptr, k, k, &v, &v, dtype_of<T>::value, o, opt);
}

/// Out of place: keys_in / values_in sorted into keys_out / values_out.
template <class KI, class VI, class KO, class VO,
          class = std::enable_if_t<detail::is_range_v<KI> && detail::is_range_v<VI> && detail::is_range_v<KO> &&
                                   detail::is_range_v<VO>>>
void sort_pairs(context& ctx, const KI& keys_in, const VI& values_in, KO&& keys_out, VO&& values_out,
                sort_order o = {}, const run_options& opt = {}) {
  using T = detail::range_value_t<KI>;
  static_assert(std::is_same_v<T, detail::range_value_t<KO>>, "wgprim: input and output key types differ");
  static_assert(std::is_same_v<detail::range_value_t<VI>, detail::range_value_t<VO>>,
                "wgprim: input and output value types differ");
  const detail::range_ref vi = detail::in_ref(values_in), vo = detail::out_ref(std::forward<VO>(values_out));
  detail::sort_run(ctx, nullptr, detail::in_ref(keys_in), detail::out_ref(std::forward<KO>(keys_out)), &vi, &vo,
                   dtype_of<T>::value, o, opt);
}

/// Encoder overloads (device ranges only): the same sorts recorded into the caller's command encoder.
template <class K, class = std::enable_if_t<detail::is_device_range_v<K>>>
void sort(context& ctx, WGPUCommandEncoder encoder, K&& keys, sort_order o = {}, const run_options& opt = {}) {
  using T = detail::range_value_t<K>;
  const detail::range_ref r = detail::in_place_ref(std::forward<K>(keys));
  detail::sort_run(ctx, encoder, r, r, nullptr, nullptr, dtype_of<T>::value, o, opt);
}
template <class In, class Out,
          class = std::enable_if_t<detail::is_device_range_v<In> && detail::is_device_range_v<Out>>>
/// Records a sort of device ranges into the caller's encoder (no host wait).
void sort(context& ctx, WGPUCommandEncoder encoder, const In& keys_in, Out&& keys_out, sort_order o = {},
          const run_options& opt = {}) {
  using T = detail::range_value_t<In>;
  static_assert(std::is_same_v<T, detail::range_value_t<Out>>, "wgprim: input and output key types differ");
  detail::sort_run(ctx, encoder, detail::in_ref(keys_in), detail::out_ref(std::forward<Out>(keys_out)), nullptr,
                   nullptr, dtype_of<T>::value, o, opt);
}
/// Records an in-place pair sort of device ranges into the caller's encoder.
template <class K, class V, class = std::enable_if_t<detail::is_device_range_v<K> && detail::is_device_range_v<V>>>
void sort_pairs(context& ctx, WGPUCommandEncoder encoder, K&& keys, V&& values, sort_order o = {},
                const run_options& opt = {}) {
  using T = detail::range_value_t<K>;
  const detail::range_ref k = detail::in_place_ref(std::forward<K>(keys));
  const detail::range_ref v = detail::in_place_ref(std::forward<V>(values));
  detail::sort_run(ctx, encoder, k, k, &v, &v, dtype_of<T>::value, o, opt);
}
template <class KI, class VI, class KO, class VO,
          class = std::enable_if_t<detail::is_device_range_v<KI> && detail::is_device_range_v<VI> &&
                                   detail::is_device_range_v<KO> && detail::is_device_range_v<VO>>>
/// Records a pair sort of device ranges into the caller's encoder, keys and values into separate outputs.
void sort_pairs(context& ctx, WGPUCommandEncoder encoder, const KI& keys_in, const VI& values_in, KO&& keys_out,
                VO&& values_out, sort_order o = {}, const run_options& opt = {}) {
  using T = detail::range_value_t<KI>;
  static_assert(std::is_same_v<T, detail::range_value_t<KO>>, "wgprim: input and output key types differ");
  const detail::range_ref vi = detail::in_ref(values_in), vo = detail::out_ref(std::forward<VO>(values_out));
  detail::sort_run(ctx, encoder, detail::in_ref(keys_in), detail::out_ref(std::forward<KO>(keys_out)), &vi, &vo,
                   dtype_of<T>::value, o, opt);
}

/// Runtime-typed (for tools): n keys of type key_type from keys_in into keys_out (may be the same buffer); values
/// may be null (keys only).
inline void sort_bits(context& ctx, const buffer& keys_in, buffer& keys_out, std::size_t n, dtype key_type, sort_order o,
                      const buffer* values_in = nullptr, buffer* values_out = nullptr, const run_options& opt = {}) {
  using detail::in_ref;
  using detail::out_ref;
  const detail::range_ref ki = in_ref(device_span<const std::uint32_t>(keys_in, 0, n));
  const detail::range_ref ko = out_ref(device_span<std::uint32_t>(keys_out, 0, n));
  if (!values_in || !values_out) return detail::sort_run(ctx, nullptr, ki, ko, nullptr, nullptr, key_type, o, opt);
  const detail::range_ref vi = in_ref(device_span<const std::uint32_t>(*values_in, 0, n));
  const detail::range_ref vo = out_ref(device_span<std::uint32_t>(*values_out, 0, n));
  detail::sort_run(ctx, nullptr, ki, ko, &vi, &vo, key_type, o, opt);
}

namespace detail {
/// The segmented sort's type-erased entry point (src/primitives/sort/segmented.cpp); vals null: keys only.
void segmented_sort_run(context& ctx, const range_ref& keys, const range_ref* vals, const range_ref& offsets,
                        dtype key_type, const sort_order& o, const run_options& opt);
template <class K, class Off>
using if_segmented_sort =
    std::enable_if_t<is_range_v<K> && is_range_v<Off> && std::is_same_v<range_value_t<Off>, std::uint32_t>>;
}  // namespace detail

/// Segmented sort, like cub::DeviceSegmentedSort::StableSortKeys: sorts every segment of CSR offsets on its own,
/// in place and stably, in the order sort() uses (sort_order: direction, bit range; f32 NaNs last, -0.0 before
/// +0.0). offsets: n_segments + 1 non-decreasing u32 values, offsets[n_segments] <= keys.size(); segment s is
/// [offsets[s], offsets[s + 1]) (empty segments allowed); keys outside [offsets[0], offsets[n_segments]) are left
/// as they are. Keys u32, i32 or f32; all ranges on the device or all on the host. Bad offsets give
/// errc::invalid_argument (they are read to the host first: device offsets cost one small readback).
/// On the GPU, segments of up to 256 keys are sorted many per workgroup, up to 2,048 one per workgroup in
/// workgroup memory, longer ones by the device radix sort on their sub-range (see docs/cpp.md).
/// @code
///   wgprim::segmented_sort(ctx, d_keys, d_offsets);                            // every segment ascending
///   wgprim::segmented_sort_pairs(ctx, keys, values, offsets, wgprim::order::descending);
/// @endcode
template <class K, class Off, class = detail::if_segmented_sort<K, Off>>
void segmented_sort(context& ctx, K&& keys, const Off& offsets, sort_order o = {}, const run_options& opt = {}) {
  using T = detail::range_value_t<K>;
  const detail::range_ref k = detail::in_place_ref(std::forward<K>(keys));
  detail::segmented_sort_run(ctx, k, nullptr, detail::in_ref(offsets), dtype_of<T>::value, o, opt);
}
/// Segmented sort of keys with values (any 32-bit type) that follow their keys, like
/// cub::DeviceSegmentedSort::StablePairs; in place.
template <class K, class V, class Off,
          class = std::enable_if_t<detail::is_range_v<V> && std::is_same_v<detail::if_segmented_sort<K, Off>, void>>>
void segmented_sort_pairs(context& ctx, K&& keys, V&& values, const Off& offsets, sort_order o = {},
                          const run_options& opt = {}) {
  using T = detail::range_value_t<K>;
  const detail::range_ref k = detail::in_place_ref(std::forward<K>(keys));
  const detail::range_ref v = detail::in_place_ref(std::forward<V>(values));
  detail::segmented_sort_run(ctx, k, &v, detail::in_ref(offsets), dtype_of<T>::value, o, opt);
}
/// Runtime-typed segmented sort (for tools): n keys of key_type in place, n_segments + 1 u32 offsets; values may
/// be null (keys only).
inline void segmented_sort_bits(context& ctx, buffer& keys, std::size_t n, const buffer& offsets,
                                std::size_t n_segments, dtype key_type, sort_order o, buffer* values = nullptr,
                                const run_options& opt = {}) {
  detail::range_ref k = detail::in_place_ref(device_span<std::uint32_t>(keys, 0, n));
  k.type = key_type;
  const detail::range_ref off = detail::in_ref(device_span<const std::uint32_t>(offsets, 0, n_segments + 1));
  if (!values) return detail::segmented_sort_run(ctx, k, nullptr, off, key_type, o, opt);
  const detail::range_ref v = detail::in_place_ref(device_span<std::uint32_t>(*values, 0, n));
  detail::segmented_sort_run(ctx, k, &v, off, key_type, o, opt);
}

/// A sort order written as a WGSL bool expression in `a` and `b` of the key type, true when a goes before b (the
/// comparator of std::stable_sort), e.g. comparator::expr("abs(a) < abs(b)") or "a > b". The same expression
/// language as custom operators (op::expr), with comparisons, && || ! and select(); f32 comparisons follow IEEE
/// (every comparison with NaN false but !=). It must be a strict weak order: before a sort runs it is checked on a
/// sample of keys of the type (irreflexive, asymmetric, transitive, and incomparability transitive; NaN is not in
/// the sample), and refused with errc::invalid_argument naming the keys that break it (run_options::check_operator
/// = false skips the check). On data where it is not a strict weak order (NaN keys with `a < b`) the result is
/// some permutation of the keys.
class comparator {
 public:
  /// The comparator of an expression in `a` and `b`.
  static comparator expr(std::string expression) { return comparator(std::move(expression)); }
  /// The expression as written.
  const std::string& expression() const { return expression_; }

 private:
  explicit comparator(std::string e) : expression_(std::move(e)) {}
  std::string expression_;
};

namespace detail {
/// The comparator sort's type-erased entry point (src/primitives/sort/comparator.cpp); vals null: keys only.
void comparator_sort_run(context& ctx, const range_ref& keys, const range_ref* vals, dtype key_type,
                         const comparator& less, const run_options& opt);
}  // namespace detail

/// Sorts keys (u32, i32 or f32) in place by a comparator expression, stably (a merge sort, like
/// cub::DeviceMergeSort::StableSortKeys with a user comparison): wgprim::sort(ctx, keys,
/// wgprim::comparator::expr("abs(a) < abs(b)")).
template <class K, class = detail::if_range<K>>
void sort(context& ctx, K&& keys, const comparator& less, const run_options& opt = {}) {
  using T = detail::range_value_t<K>;
  const detail::range_ref r = detail::in_place_ref(std::forward<K>(keys));
  detail::comparator_sort_run(ctx, r, nullptr, dtype_of<T>::value, less, opt);
}
/// Sorts keys in place by a comparator expression, stably, and applies the same permutation to values (32-bit).
template <class K, class V, class = std::enable_if_t<detail::is_range_v<K> && detail::is_range_v<V>>>
void sort_pairs(context& ctx, K&& keys, V&& values, const comparator& less, const run_options& opt = {}) {
  using T = detail::range_value_t<K>;
  const detail::range_ref k = detail::in_place_ref(std::forward<K>(keys));
  const detail::range_ref v = detail::in_place_ref(std::forward<V>(values));
  detail::comparator_sort_run(ctx, k, &v, dtype_of<T>::value, less, opt);
}
/// Runtime-typed comparator sort (for tools): n keys of key_type in place; values may be null (keys only).
inline void sort_less_bits(context& ctx, buffer& keys, std::size_t n, dtype key_type, const comparator& less,
                           buffer* values = nullptr, const run_options& opt = {}) {
  detail::range_ref k = detail::in_place_ref(device_span<std::uint32_t>(keys, 0, n));
  k.type = key_type;
  if (!values) return detail::comparator_sort_run(ctx, k, nullptr, key_type, less, opt);
  const detail::range_ref v = detail::in_place_ref(device_span<std::uint32_t>(*values, 0, n));
  detail::comparator_sort_run(ctx, k, &v, key_type, less, opt);
}

/// The check a comparator sort of keys held on the host makes before it runs, for keys held anywhere: `less` on the
/// type's sample and on the keys (a few of them, all of their values when there are at most 16 distinct ones, and
/// the first NaN of f32 keys), so that a caller that sorts a copy
/// of these keys on the device gets the same refusal; throws errc::invalid_argument naming the keys that break it.
void check_comparator(const comparator& less, dtype key_type, const std::uint32_t* keys, std::size_t n);

/// One phase of a sort, timed alone (sort_phases).
struct sort_phase {
  std::string name;             ///< "histogram + plan", "pass 2 (bits 16..23)", "slot 3 (skipped)", "finish"
  double gpu_ms = 0;            ///< GPU timestamps of the phase's passes where trustworthy, else its wall time
  bool gpu_timestamps = false;  ///< whether gpu_ms came from timestamps
  bool skipped = false;         ///< a slot the plan left empty (every workgroup returned at once)
};
/// The same sort as sort_bits (keys of a 32-bit key_type; both backends), with each phase submitted and timed on
/// its own: the upfront histogram and plan, every digit-pass slot (named by the pass it ran), and the finish copy.
/// A breakdown for profiling, not the fastest way to sort: the phases do not overlap, and each pays a submission.
/// Keys within one storage binding (the merged path has no such phases); the native backend reports one phase.
std::vector<sort_phase> sort_phases(context& ctx, const buffer& keys_in, buffer& keys_out, std::size_t n,
                                    dtype key_type, sort_order o, const buffer* values_in = nullptr,
                                    buffer* values_out = nullptr, const run_options& opt = {});

/// The comparator sort (sort_less_bits) of n keys of `keys` in place, each phase submitted and timed on its own: the
/// blocks sorted in workgroups, every merge level's split and merge, the copy back. For profiling, as sort_phases;
/// the native backend reports one phase.
std::vector<sort_phase> comparator_sort_phases(context& ctx, buffer& keys, std::size_t n, dtype key_type,
                                               const comparator& less, buffer* values = nullptr,
                                               const run_options& opt = {});

/// The segmented sort (segmented_sort_bits) with each kernel submitted and timed on its own: the binning of the
/// offsets, the tile starts, the short segments, each mid size class, the long segments' device sorts. For
/// profiling, as sort_phases; the native backend reports one phase.
std::vector<sort_phase> segmented_sort_phases(context& ctx, buffer& keys, std::size_t n, const buffer& offsets,
                                              std::size_t n_segments, dtype key_type, sort_order o = {},
                                              buffer* values = nullptr, const run_options& opt = {});

}  // namespace wgprim
