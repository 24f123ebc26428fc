/// @file
/// Counts that stay on the device. A compaction (select_if, select_flagged, partition, unique) can leave its
/// count in a wgprim::device_count, and the next call can take its length from one: wrap the range with
/// wgprim::counted(span, count). The span's size is the capacity (what the buffers are sized for); the number
/// of elements processed is the count read on the device when the work runs, clamped to the capacity. On a
/// WebGPU context the pass's grid is sized by an indirect dispatch written on the GPU (shaders/pipeline/
/// count_args.wgsl), so a chain of calls never waits for the host between steps. On the native backend the count
/// is read on the host (the calls run eagerly there).
/// @code
///   wgprim::device_count kept(ctx);
///   wgprim::select_if(ctx, d_in, d_tmp, kept, wgprim::predicate::expr("a % 2u == 0u"));  // no read-back
///   wgprim::sort(ctx, wgprim::counted(d_tmp.span(), kept), wgprim::key_bits(0, 16));     // sorts `kept` keys
///   wgprim::unique(ctx, wgprim::counted(d_tmp.span(), kept), d_out, kept);               // count updated in place
///   std::uint64_t k = kept.read();                                                       // the one wait
/// @endcode
/// Elements of a counted range past its count are scratch: sort and reduce over a counted range overwrite them
/// (with the largest key, or the identity) and run over the whole capacity.
#pragma once
#include <cstdint>
#include <type_traits>

#include "wgprim/context.hpp"
#include "wgprim/device_vector.hpp"
#include "wgprim/error.hpp"

namespace wgprim {

/// A u32 count in device memory, written and read by the GPU work that uses it. Move-only.
class device_count {
 public:
  device_count() = default;
  /// A count on ctx's device, starting at `value`.
  explicit device_count(context& ctx, std::uint32_t value = 0) : v_(ctx, 1) { write(value); }
  /// Queues a write of `value` (ordered before work submitted later; throws errc::limit past 2^32 - 1).
  void write(std::uint64_t value) {
    if (value > 0xffffffffull) throw error(errc::limit, "device_count: a count is at most 2^32 - 1");
    const std::uint32_t v = static_cast<std::uint32_t>(value);
    v_.assign(host_span<const std::uint32_t>(&v, 1));
  }
  /// Reads the count back: waits for the work queued before.
  std::uint64_t read() const { return v_.empty() ? 0 : v_.to_host()[0]; }
  /// The count as a one-element span: what the `count` arguments of the compactions take.
  device_span<std::uint32_t> span() { return v_.span(); }
  /// The count as a read-only one-element span.
  device_span<const std::uint32_t> span() const { return v_.span(); }
  /// The count as a one-element span.
  operator device_span<std::uint32_t>() { return span(); }  // NOLINT: a count is where counts go

 private:
  device_vector<std::uint32_t> v_;
};

/// A device range whose length lives on the device: elements [0, min(count, data.size())) of `data`.
template <class T>
struct counted_span {
  device_span<T> data;                  ///< the elements, sized to the capacity
  const device_count* count = nullptr;  ///< the length, read by the GPU when the work runs
  /// The capacity (the most elements the count may name).
  std::size_t capacity() const { return data.size(); }
};

/// `data` with its length taken from `count` on the device (see the file's description).
template <class T>
counted_span<T> counted(device_span<T> data, const device_count& count) {
  return counted_span<T>{data, &count};
}
/// All of `v` (its size is the capacity) with its length taken from `count`.
template <class T>
counted_span<T> counted(device_vector<T>& v, const device_count& count) {
  return counted_span<T>{v.span(), &count};
}

namespace detail {
/// A device_count is a device range of one u32, so it goes wherever a count span does.
template <> struct device_range_traits<device_count> {
  static constexpr bool value = true;
  using type = std::uint32_t;
};
template <class T> struct is_counted_span : std::false_type {};
template <class T> struct is_counted_span<counted_span<T>> : std::true_type {};
template <class R>
constexpr bool is_counted_v = is_counted_span<std::remove_cv_t<std::remove_reference_t<R>>>::value;
/// The capacity view of a counted range and the view of its count.
template <class T>
range_ref counted_ref(const counted_span<T>& c) {
  if (!c.count) throw error(errc::invalid_argument, "counted_span: no count");
  return in_ref(c.data);
}
template <class T>
device_view count_view_of(const counted_span<T>& c) {
  if (!c.count) throw error(errc::invalid_argument, "counted_span: no count");
  return c.count->span().view();
}
}  // namespace detail

}  // namespace wgprim
