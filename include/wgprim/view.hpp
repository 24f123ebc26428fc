/// @file
/// Fused input views, like CUB's fancy iterators and Thrust's counting_iterator / constant_iterator /
/// transform_iterator / permutation_iterator / zip_iterator: a range whose values are computed inside the load of
/// the primitive that reads it. No temporary buffer ever holds them.
///
/// @code
///   auto s  = wgprim::reduce(ctx, wgprim::view::counting<std::uint32_t>(0, n));            // 0 + 1 + ... + n-1
///   auto lo = wgprim::reduce(ctx, wgprim::view::transform(x, "a & 0xffffu"));             // x: device range of u32
///   auto g  = wgprim::reduce(ctx, wgprim::view::gather(x, idx), wgprim::op::max());       // max of x[idx[i]]
///   auto c  = wgprim::reduce(ctx, wgprim::view::transform<float>(wgprim::view::counting<std::uint32_t>(0, n),
///                                                                "f32(a) * 0.5"));
///   auto dot = wgprim::reduce(ctx, wgprim::view::zip(x, y, "a * b"));                   // x . y
/// @endcode
///
/// Views yield 32-bit elements (u32, i32, f32). A transform applies to the values of a buffer, a counting, a
/// constant, a gather or a zip view (one transform per view). Primitives that take views: reduce, the scans,
/// argmin / argmax, select_if / partition / unique, sort, histogram_even / histogram_range (docs/views.md says which
/// compute the view in their load and which through their output or a temporary). On the native CPU backend a view's values are
/// computed into a host array first (the same values; not fused).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include "wgprim/device_vector.hpp"
#include "wgprim/arg_reduce.hpp"
#include "wgprim/histogram.hpp"
#include "wgprim/reduce_by_key.hpp"
#include "wgprim/segmented.hpp"
#include "wgprim/reduce.hpp"
#include "wgprim/scan.hpp"
#include "wgprim/select.hpp"
#include "wgprim/sort.hpp"
#include "wgprim/transform_reduce.hpp"

namespace wgprim {

namespace detail {
/// What a view reads, type-erased for the primitives' dispatch layers.
struct view_desc {
  /// Where the values come from (before the transform).
  enum class source { buffer, counting, constant, gather, zip };
  source kind = source::buffer;
  dtype type = dtype::u32;          ///< the source's element type (the transform's input type)
  std::uint64_t count = 0;          ///< the number of elements the view yields
  std::uint32_t start = 0;          ///< counting: the first value's bits; constant: the value's bits
  std::uint32_t step = 0;           ///< counting: the step's bits
  device_view base;                 ///< buffer: the elements; gather: the range indexed; zip: the first range (a)
  device_view index;                ///< gather: the u32 indices (count of them); zip: the second range (b)
  std::string zip_expr;             ///< zip: the expression in a and b that combines them (of type `type`)
  std::shared_ptr<const transform> tr;  ///< applied to every value (null: none)
  /// The type of the values the view yields (the transform's result type, else `type`).
  dtype value_type() const { return tr ? tr->result_type(type) : type; }
};
/// Throws errc::invalid_argument unless t is u32, i32 or f32 (the element types views yield).
void check_view_type(dtype t, const char* what);
/// Checks view::zip's expression: one in a and b of type t that yields t (the language of custom operators);
/// throws errc::invalid_argument naming view::zip and the column otherwise.
void check_zip_expr(dtype t, const std::string& expression);
/// reduce over a view (reduce.cpp): the result (and init) in to_raw's layout, of the monoid's type.
std::uint64_t reduce_view_raw(context& ctx, const view_desc& v, const monoid& m, const std::uint64_t* init,
                              const run_options& opt);
/// arg-min / arg-max of a counting, constant or gather view (arg_reduce.cpp).
arg_result<std::uint32_t> arg_reduce_view_bits(context& ctx, const view_desc& v, arg_op o, const run_options& opt);
/// select_if (predicate), partition, unique over a view into a device range (select/view.cpp); returns the count.
std::uint64_t select_view_run(context& ctx, const view_desc& v, const range_ref& out, select_mode mode,
                              bool partition, const predicate* pred, const run_options& opt);
/// The view's values, in order, into the first v.count elements of a device range (select/view.cpp: one pass, the
/// select keeping every value); what the pass measured into *spent (null: nothing measured). For primitives that
/// read a view through their output or a temporary.
void materialize_view(context& ctx, const view_desc& v, const range_ref& out, const char* what, run_stats* spent);
/// Adds what an earlier pass of the call measured (GPU and compile time, look-back fallbacks) to opt.stats.
void add_stats(const run_options& opt, const run_stats& before);
/// sort of a view into a device range (sort/view.cpp): the view computed into out (into a temporary when the view
/// reads out's buffer), then sorted.
void sort_view_run(context& ctx, const view_desc& v, const range_ref& out, const sort_order& o,
                   const run_options& opt);
/// histogram of a view (histogram/histogram.cpp): computed in the histogram's load; counts (and levels) on the device.
void histogram_view_run(context& ctx, const view_desc& v, const range_ref& counts, histogram_bins b,
                        const run_options& opt);
/// scan of a view into a device range (scan.cpp); init (may be null) in to_raw's layout.
void scan_view_run(context& ctx, const view_desc& v, const range_ref& out, const monoid& m, scan_kind kind,
                   const std::uint64_t* init, const run_options& opt);
}  // namespace detail

/// A range computed inside the load of the primitive that reads it; T is the type of the values it yields.
/// Make one with the functions of wgprim::view. A view holds its buffers by reference (as device_span does): they
/// must outlive the calls that read it.
template <class T>
class input_view {
 public:
  /// The type of the values.
  using value_type = T;
  /// Wraps a description (the wgprim::view functions build them).
  explicit input_view(detail::view_desc d) : d_(std::move(d)) {}
  /// The number of values.
  std::size_t size() const { return static_cast<std::size_t>(d_.count); }
  /// Whether the view has no values.
  bool empty() const { return d_.count == 0; }
  /// The type-erased description.
  const detail::view_desc& desc() const { return d_; }

 private:
  detail::view_desc d_;
};

/// Makers of input views.
namespace view {

/// start, start + step, start + 2 step, ... (n values), as thrust::counting_iterator / cub::CountingInputIterator
/// with a step. Integers wrap modulo 2^32; f32 values are fma(f32(i), step, start), one rounding each (exact
/// for indices below 2^24).
template <class T>
input_view<T> counting(T start, std::size_t n, T step = T(1)) {
  detail::check_view_type(dtype_of<T>::value, "view::counting");
  detail::view_desc d;
  d.kind = detail::view_desc::source::counting;
  d.type = dtype_of<T>::value;
  d.count = n;
  d.start = to_bits(start);
  d.step = to_bits(step);
  return input_view<T>(std::move(d));
}

/// n copies of value, as thrust::constant_iterator.
template <class T>
input_view<T> constant(T value, std::size_t n) {
  detail::check_view_type(dtype_of<T>::value, "view::constant");
  detail::view_desc d;
  d.kind = detail::view_desc::source::constant;
  d.type = dtype_of<T>::value;
  d.count = n;
  d.start = to_bits(value);
  return input_view<T>(std::move(d));
}

/// base[index[0]], base[index[1]], ... (index.size() values), as thrust::permutation_iterator. base and index are
/// device ranges (device_vector or device_span); an index past the end of base reads base's last element (so a
/// bad index never reads outside the buffer, on either backend). base must not be empty unless index is.
template <class R, class I, class = std::enable_if_t<detail::is_device_range_v<R> && detail::is_device_range_v<I>>>
input_view<detail::range_value_t<R>> gather(const R& base, const I& index) {
  using T = detail::range_value_t<R>;
  static_assert(std::is_same_v<detail::range_value_t<I>, std::uint32_t>, "wgprim::view::gather: indices are u32");
  detail::check_view_type(dtype_of<T>::value, "view::gather");
  detail::view_desc d;
  d.kind = detail::view_desc::source::gather;
  d.type = dtype_of<T>::value;
  d.base = detail::in_ref(base).view;
  d.index = detail::in_ref(index).view;
  d.count = d.index.count;
  return input_view<T>(std::move(d));
}

/// expression(a[0], b[0]), expression(a[1], b[1]), ... over two device ranges (device_vector or device_span) of
/// the same element type and length, as thrust::zip_iterator followed by a transform of the pair: a checked
/// expression in `a` and `b` (the language of custom operators, e.g. "a * b", "max(a, b) - min(a, b)",
/// "select(0u, a, b > 10u)") that yields the elements' type. reduce(ctx, view::zip(x, y, "a * b")) is the dot
/// product, read in one pass with no temporary. Ranges of different lengths, or an expression that does not
/// check, are errc::invalid_argument. A view::transform may follow (one per view), e.g. to change the type.
template <class RA, class RB,
          class = std::enable_if_t<detail::is_device_range_v<RA> && detail::is_device_range_v<RB>>>
input_view<detail::range_value_t<RA>> zip(const RA& a, const RB& b, const std::string& expression) {
  using T = detail::range_value_t<RA>;
  static_assert(std::is_same_v<detail::range_value_t<RB>, T>, "wgprim::view::zip: both ranges hold one type");
  detail::check_view_type(dtype_of<T>::value, "view::zip");
  detail::view_desc d;
  d.kind = detail::view_desc::source::zip;
  d.type = dtype_of<T>::value;
  d.base = detail::in_ref(a).view;
  d.index = detail::in_ref(b).view;
  if (d.base.count != d.index.count)
    throw error(errc::invalid_argument, "view::zip: the ranges differ in length (" + std::to_string(d.base.count) +
                                            " and " + std::to_string(d.index.count) + " elements)");
  d.count = d.base.count;
  detail::check_zip_expr(d.type, expression);
  d.zip_expr = expression;
  return input_view<T>(std::move(d));
}

/// expression(v[0]), expression(v[1]), ... over a view: a checked expression in `a` (the language of
/// wgprim::transform, e.g. "a & 0xffffu", "f32(a) * 0.5", "select(0u, 1u, a > 10)"), as
/// thrust::transform_iterator. Out is the type it yields (by default the input's); a different result type is
/// errc::invalid_argument naming it. A view that already has a transform cannot take another.
template <class Out = void, class T>
input_view<std::conditional_t<std::is_void_v<Out>, T, Out>> transform(const input_view<T>& v,
                                                                      const std::string& expression) {
  using U = std::conditional_t<std::is_void_v<Out>, T, Out>;
  if (v.desc().tr) throw error(errc::invalid_argument, "view::transform: the view already has a transform");
  detail::view_desc d = v.desc();
  const wgprim::transform t = wgprim::transform::expr(expression);
  detail::check_transform_type(bound_transform(t, d.type), dtype_of<U>::value);
  detail::check_view_type(dtype_of<U>::value, "view::transform");
  d.tr = std::make_shared<const wgprim::transform>(t);
  return input_view<U>(std::move(d));
}

/// expression(x[0]), expression(x[1]), ... over a device range (device_vector or device_span).
template <class Out = void, class R, class = std::enable_if_t<detail::is_device_range_v<R>>>
auto transform(const R& x, const std::string& expression) {
  using T = detail::range_value_t<R>;
  detail::check_view_type(dtype_of<T>::value, "view::transform");
  detail::view_desc d;
  d.kind = detail::view_desc::source::buffer;
  d.type = dtype_of<T>::value;
  d.base = detail::in_ref(x).view;
  d.count = d.base.count;
  return transform<Out>(input_view<T>(std::move(d)), expression);
}

}  // namespace view

/// Reduces a view (see wgprim::reduce for ranges): the view's values are computed in the reduction's load.
/// Every operator and accuracy mode (a transform view takes accuracy::fast only, as transform_reduce).
template <class T>
accumulation_t<T> reduce(context& ctx, const input_view<T>& in, const op& o = op::sum(),
                         const run_options& options = {}) {
  const monoid m(o, dtype_of<T>::value);
  return from_raw<accumulation_t<T>>(detail::reduce_view_raw(ctx, in.desc(), m, nullptr, options));
}

/// Reduces a view with an initial value, as std::reduce(first, last, init, op).
template <class T>
accumulation_t<T> reduce(context& ctx, const input_view<T>& in, typename detail::identity_type<accumulation_t<T>>::type init,
                         const op& o = op::sum(), const run_options& options = {}) {
  const monoid m(o, dtype_of<T>::value);
  const std::uint64_t init_raw = to_raw(init);
  return from_raw<accumulation_t<T>>(detail::reduce_view_raw(ctx, in.desc(), m, &init_raw, options));
}

/// Inclusive scan of a view into a device range of as many elements (device_vector or device_span of T), as
/// std::inclusive_scan. accuracy::fast only (the decoupled scan).
template <class T, class Out, class = std::enable_if_t<detail::is_device_range_v<std::remove_reference_t<Out>>>>
void inclusive_scan(context& ctx, const input_view<T>& in, Out&& out, const op& o = op::sum(),
                    const run_options& options = {}) {
  static_assert(std::is_same_v<detail::range_value_t<std::remove_reference_t<Out>>, T>,
                "wgprim: a view's scan writes elements of the view's type");
  detail::scan_view_run(ctx, in.desc(), detail::out_ref(std::forward<Out>(out)), monoid(o, dtype_of<T>::value),
                        scan_kind::inclusive, nullptr, options);
}

/// Exclusive scan of a view into a device range: out[0] = the operator's identity, out[i] = in[0] op ... op in[i-1].
template <class T, class Out, class = std::enable_if_t<detail::is_device_range_v<std::remove_reference_t<Out>>>>
void exclusive_scan(context& ctx, const input_view<T>& in, Out&& out, const op& o = op::sum(),
                    const run_options& options = {}) {
  static_assert(std::is_same_v<detail::range_value_t<std::remove_reference_t<Out>>, T>,
                "wgprim: a view's scan writes elements of the view's type");
  detail::scan_view_run(ctx, in.desc(), detail::out_ref(std::forward<Out>(out)), monoid(o, dtype_of<T>::value),
                        scan_kind::exclusive, nullptr, options);
}

/// The smallest value of a view and the first index holding it (an empty view is errc::invalid_argument, as for
/// ranges). Counting, constant, gather and zip views are computed in the load; a transform view is computed into a
/// temporary array first (one more pass and n words of memory: not fused yet).
template <class T>
arg_result<T> argmin(context& ctx, const input_view<T>& in, const run_options& options = {}) {
  const arg_result<std::uint32_t> r = detail::arg_reduce_view_bits(ctx, in.desc(), arg_op::min, options);
  return {from_bits<T>(r.value), r.index};
}
/// The largest value of a view and the first index holding it (as argmin).
template <class T>
arg_result<T> argmax(context& ctx, const input_view<T>& in, const run_options& options = {}) {
  const arg_result<std::uint32_t> r = detail::arg_reduce_view_bits(ctx, in.desc(), arg_op::max, options);
  return {from_bits<T>(r.value), r.index};
}

/// Copies the values of a view that satisfy p into a device range (as many elements as the view), in order, as
/// std::copy_if; returns how many were kept.
template <class T, class Out, class = std::enable_if_t<detail::is_device_range_v<std::remove_reference_t<Out>>>>
std::size_t select_if(context& ctx, const input_view<T>& in, Out&& out, const predicate& p,
                      const run_options& options = {}) {
  static_assert(std::is_same_v<detail::range_value_t<std::remove_reference_t<Out>>, T>,
                "wgprim: a view's select writes elements of the view's type");
  return static_cast<std::size_t>(detail::select_view_run(ctx, in.desc(), detail::out_ref(std::forward<Out>(out)),
                                                          select_mode::predicate, false, &p, options));
}
/// The values of a view that satisfy p, then the others, each in order (std::stable_partition; opt.rejected =
/// reversed: the others in reverse order, as cub::DevicePartition::If), into a device range; returns how many
/// satisfy p.
template <class T, class Out, class = std::enable_if_t<detail::is_device_range_v<std::remove_reference_t<Out>>>>
std::size_t partition(context& ctx, const input_view<T>& in, Out&& out, const predicate& p,
                      const run_options& options = {}) {
  static_assert(std::is_same_v<detail::range_value_t<std::remove_reference_t<Out>>, T>,
                "wgprim: a view's partition writes elements of the view's type");
  return static_cast<std::size_t>(detail::select_view_run(ctx, in.desc(), detail::out_ref(std::forward<Out>(out)),
                                                          select_mode::predicate, true, &p, options));
}
/// Sorts the values of a view into a device range of at least as many elements (the first view.size() hold the
/// result; a radix sort of the view's values as wgprim::sort sorts a range: stable, the same key order, bits and
/// direction). The view is computed into `out` first (one pass), then `out` is sorted in place; a view that reads
/// out's own buffer (sort(ctx, view::transform(x, "a & 0xffffu"), x): x's low halves, sorted, into x) is computed
/// into a temporary first. Elements of `out` past the view's count are left as they were.
template <class T, class Out, class = std::enable_if_t<detail::is_device_range_v<std::remove_reference_t<Out>>>>
void sort(context& ctx, const input_view<T>& in, Out&& out, sort_order o = {}, const run_options& options = {}) {
  static_assert(std::is_same_v<detail::range_value_t<std::remove_reference_t<Out>>, T>,
                "wgprim: a view's sort writes elements of the view's type");
  detail::sort_view_run(ctx, in.desc(), detail::out_ref(std::forward<Out>(out)), o, options);
}
/// histogram_even of a view's values (wgprim/histogram.hpp's rules: `bins` equal bins over [lo, hi], NumPy's
/// edges) into a device range of `bins` u32 counts; the view is computed in the histogram's load.
template <class T, class Out, class = std::enable_if_t<detail::is_device_range_v<std::remove_reference_t<Out>>>>
void histogram_even(context& ctx, const input_view<T>& in, Out&& counts, std::size_t bins, double lo, double hi,
                    const run_options& options = {}) {
  static_assert(std::is_same_v<detail::range_value_t<std::remove_reference_t<Out>>, std::uint32_t>,
                "wgprim: histogram counts are u32");
  detail::histogram_bins b{bins, lo, hi, nullptr, nullptr};
  detail::histogram_view_run(ctx, in.desc(), detail::out_ref(std::forward<Out>(counts)), b, options);
}
/// histogram_range of a view's values: bins between consecutive `levels` (a device range of the view's type).
template <class T, class Out, class L,
          class = std::enable_if_t<detail::is_device_range_v<std::remove_reference_t<Out>> && detail::is_device_range_v<L>>>
void histogram_range(context& ctx, const input_view<T>& in, Out&& counts, const L& levels,
                     const run_options& options = {}) {
  static_assert(std::is_same_v<detail::range_value_t<std::remove_reference_t<Out>>, std::uint32_t>,
                "wgprim: histogram counts are u32");
  static_assert(std::is_same_v<detail::range_value_t<L>, T>, "wgprim: the levels must have the view's type");
  const detail::range_ref lv = detail::in_ref(levels);
  detail::histogram_bins b{lv.count ? lv.count - 1 : 0, 0, 0, &lv, nullptr};
  detail::histogram_view_run(ctx, in.desc(), detail::out_ref(std::forward<Out>(counts)), b, options);
}
namespace detail {
/// A device array of a view's values (materialize_view: one pass), for the primitives that do not compute views
/// in their loads yet: they read this temporary (n words of device memory) instead.
template <class T>
device_vector<T> values_of(context& ctx, const input_view<T>& in) {
  device_vector<T> values(ctx, in.size());
  if (!in.empty()) materialize_view(ctx, in.desc(), out_ref(values.span()), "view", nullptr);
  return values;
}
}  // namespace detail

/// The primitives below take a view through a temporary array of its values (detail::values_of: one more pass and
/// n words of device memory; not fused yet), with the range overloads' contracts (wgprim/segmented.hpp,
/// wgprim/reduce_by_key.hpp, wgprim/sort.hpp, wgprim/select.hpp).
/// segmented_reduce of a view's values.
template <class T, class Off, class Out>
void segmented_reduce(context& ctx, const input_view<T>& in, const Off& offsets, Out&& out, const op& o = op::sum(),
                      const run_options& options = {}) {
  const device_vector<T> v = detail::values_of(ctx, in);
  segmented_reduce(ctx, v.span(), offsets, std::forward<Out>(out), o, options);
}
/// segmented_inclusive_scan of a view's values.
template <class T, class Off, class Out>
void segmented_inclusive_scan(context& ctx, const input_view<T>& in, const Off& offsets, Out&& out,
                              const op& o = op::sum(), const run_options& options = {}) {
  const device_vector<T> v = detail::values_of(ctx, in);
  segmented_inclusive_scan(ctx, v.span(), offsets, std::forward<Out>(out), o, options);
}
/// segmented_exclusive_scan of a view's values.
template <class T, class Off, class Out>
void segmented_exclusive_scan(context& ctx, const input_view<T>& in, const Off& offsets, Out&& out,
                              const op& o = op::sum(), const run_options& options = {}) {
  const device_vector<T> v = detail::values_of(ctx, in);
  segmented_exclusive_scan(ctx, v.span(), offsets, std::forward<Out>(out), o, options);
}
/// run_length_encode of a view's values; returns the number of runs.
template <class T, class VO, class CO>
std::size_t run_length_encode(context& ctx, const input_view<T>& in, VO&& values_out, CO&& counts_out,
                              const run_options& options = {}) {
  const device_vector<T> v = detail::values_of(ctx, in);
  return run_length_encode(ctx, v.span(), std::forward<VO>(values_out), std::forward<CO>(counts_out), options);
}
/// reduce_by_key with the keys from a view (values: a range); returns the number of runs.
template <class T, class V, class UK, class S>
std::size_t reduce_by_key(context& ctx, const input_view<T>& keys, const V& values, UK&& unique_keys_out,
                          S&& sums_out, const op& o = op::sum(), const run_options& options = {}) {
  const device_vector<T> k = detail::values_of(ctx, keys);
  return reduce_by_key(ctx, k.span(), values, std::forward<UK>(unique_keys_out), std::forward<S>(sums_out), o,
                       options);
}
/// sort_pairs with the keys from a view: keys_out gets them sorted, values_out the values in the same order.
template <class T, class VI, class KO, class VO>
void sort_pairs(context& ctx, const input_view<T>& keys, const VI& values_in, KO&& keys_out, VO&& values_out,
                sort_order o = {}, const run_options& options = {}) {
  const device_vector<T> k = detail::values_of(ctx, keys);
  sort_pairs(ctx, k.span(), values_in, std::forward<KO>(keys_out), std::forward<VO>(values_out), o, options);
}
/// select_flagged of a view's values by u32 flags (a device range), into a device range; returns how many.
template <class T, class F, class Out, class = std::enable_if_t<detail::is_device_range_v<std::remove_reference_t<Out>>>>
std::size_t select_flagged(context& ctx, const input_view<T>& in, const F& flags, Out&& out,
                           const run_options& options = {}) {
  const device_vector<T> v = detail::values_of(ctx, in);
  return select_flagged(ctx, v.span(), flags, std::forward<Out>(out), options);
}

/// The first value of every run of equal values of a view (std::unique) into a device range; returns how many.
/// A view of more elements than one storage binding holds is errc::limit here.
template <class T, class Out, class = std::enable_if_t<detail::is_device_range_v<std::remove_reference_t<Out>>>>
std::size_t unique(context& ctx, const input_view<T>& in, Out&& out, const run_options& options = {}) {
  static_assert(std::is_same_v<detail::range_value_t<std::remove_reference_t<Out>>, T>,
                "wgprim: a view's unique writes elements of the view's type");
  return static_cast<std::size_t>(detail::select_view_run(ctx, in.desc(), detail::out_ref(std::forward<Out>(out)),
                                                          select_mode::unique, false, nullptr, options));
}

}  // namespace wgprim
