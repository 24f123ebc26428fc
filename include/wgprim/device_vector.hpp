/// @file
/// Typed device memory, sized in elements: device_vector<T> owns a buffer (like thrust::device_vector),
/// device_span<T> views a range of one (like std::span) — a wgprim buffer, or a WGPUBuffer of the caller's own
/// WebGPU code at an element offset. Every algorithm takes spans; host_span<T> is the host-side twin (pointer +
/// count, or any contiguous container).
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#include <memory>
#include <type_traits>
#include <vector>

#include "wgprim/buffer.hpp"
#include "wgprim/context.hpp"
#include "wgprim/error.hpp"
#include "wgprim/types.hpp"

namespace wgprim {

namespace detail {
/// A device range with its type erased: what the dispatch layer works with.
struct device_view {
  WGPUBuffer buf = nullptr;
  void* host = nullptr;            // native backend: the buffer's host memory (offset applies as for buf)
  std::uint64_t owner = 0;         // context id
  std::uint64_t offset = 0;        // bytes
  std::uint64_t count = 0;         // elements
  std::uint64_t capacity = 0;      // bytes of the whole buffer
  std::uint32_t elem_bytes = 4;
  std::uint64_t bytes() const { return count * elem_bytes; }
};
/// The capacity of a caller's WGPUBuffer (src/gpu asks wgpu).
std::uint64_t native_buffer_size(WGPUBuffer b);
template <class C>
using data_t = std::remove_pointer_t<decltype(std::declval<C&>().data())>;
}  // namespace detail

/// A non-owning view of `size()` elements of type T on the device. device_span<T> converts to device_span<const T>.
template <class T>
class device_span {
 public:
  /// The element type, const-qualified for read-only views.
  using element_type = T;
  /// The element type without const.
  using value_type = std::remove_cv_t<T>;
  /// The element type as a runtime dtype.
  static constexpr dtype type = dtype_of<value_type>::value;

  device_span() = default;
  /// All of a buffer (its bytes / sizeof(T) elements).
  device_span(const buffer& b) : device_span(b, 0, b.size_bytes() / sizeof(T)) {}  // NOLINT: implicit on purpose
  /// `count` elements of a buffer starting at element `offset`.
  device_span(const buffer& b, std::size_t offset, std::size_t count) {
    init(b.native(), b.owner(), b.size_bytes(), offset, count);
    v_.host = b.host_data();
  }
  /// A view over a WGPUBuffer of the caller's (made on ctx's device, with Storage | CopySrc | CopyDst usage).
  static device_span wrap(const context& ctx, WGPUBuffer b, std::size_t offset, std::size_t count) {
    if (!b) throw error(errc::invalid_argument, "device_span::wrap: null WGPUBuffer");
    device_span s;
    s.init(b, ctx.id(), detail::native_buffer_size(b), offset, count);
    return s;
  }
  /// A read-only view of a writable span (T -> const T).
  template <class U, class = std::enable_if_t<std::is_same_v<const U, T> && !std::is_same_v<U, T>>>
  device_span(const device_span<U>& o) : v_(o.view()) {}  // NOLINT: T -> const T

  /// The number of elements.
  std::size_t size() const { return static_cast<std::size_t>(v_.count); }
  /// Whether the span has no elements.
  bool empty() const { return v_.count == 0; }
  /// The view's offset in its buffer, in bytes.
  std::uint64_t offset_bytes() const { return v_.offset; }
  /// The WGPUBuffer viewed (null on a native context).
  WGPUBuffer native() const { return v_.buf; }
  /// Elements [offset, offset + count) of this view (count clipped to the end).
  device_span subspan(std::size_t offset, std::size_t count = std::numeric_limits<std::size_t>::max()) const {
    if (offset > size()) throw error(errc::invalid_argument, "device_span::subspan: offset past the end");
    device_span s = *this;
    s.v_.offset += std::uint64_t(offset) * sizeof(T);
    s.v_.count = std::min<std::uint64_t>(count, v_.count - offset);
    return s;
  }
  /// The first `count` elements.
  device_span first(std::size_t count) const { return subspan(0, count); }
  /// The view (library internals).
  const detail::device_view& view() const { return v_; }

 private:
  void init(WGPUBuffer b, std::uint64_t owner, std::uint64_t capacity, std::size_t offset, std::size_t count) {
    // Checked without overflow: offset and count are element counts of any size.
    const std::uint64_t max_elems = capacity / sizeof(T);
    if (offset > max_elems || count > max_elems - offset)
      throw error(errc::invalid_argument, "device_span: elements [" + std::to_string(offset) + ", " +
                                              std::to_string(offset) + " + " + std::to_string(count) +
                                              ") exceed the buffer's " + std::to_string(capacity) + " bytes");
    v_.buf = b;
    v_.owner = owner;
    v_.offset = std::uint64_t(offset) * sizeof(T);
    v_.count = count;
    v_.capacity = capacity;
    v_.elem_bytes = sizeof(T);
  }
  detail::device_view v_;
};

/// A non-owning host range: pointer + count, or any contiguous container with data() and size().
template <class T>
class host_span {
 public:
  host_span() = default;
  /// count elements from a host pointer.
  host_span(T* data, std::size_t n) : p_(data), n_(n) {}
  /// A view of a contiguous container (anything with data() and size()).
  template <class C, class = std::enable_if_t<std::is_convertible_v<detail::data_t<C> (*)[], T (*)[]>>>
  host_span(C& c) : p_(c.data()), n_(c.size()) {}  // NOLINT: implicit, like std::span
  /// A read-only view of a writable span.
  template <class U, class = std::enable_if_t<std::is_same_v<const U, T> && !std::is_same_v<U, T>>>
  host_span(const host_span<U>& o) : p_(o.data()), n_(o.size()) {}  // NOLINT
  /// The first element.
  T* data() const { return p_; }
  /// The number of elements.
  std::size_t size() const { return n_; }
  /// Whether the span has no elements.
  bool empty() const { return n_ == 0; }
  /// Iterator to the first element.
  T* begin() const { return p_; }
  /// Iterator past the last element.
  T* end() const { return p_ + n_; }

 private:
  T* p_ = nullptr;
  std::size_t n_ = 0;
};

/// Owning typed device memory (contents start zeroed, as WebGPU zero-initialises buffers).
template <class T>
class device_vector {
 public:
  static_assert(element_traits<T>::supported,
                "wgprim: element type not supported; the algorithms take float, double, std::int32_t, "
                "std::uint32_t, std::int64_t, std::uint64_t, wgprim::half, std::int8_t or std::uint8_t");
  device_vector() = default;
  /// n elements, uninitialised, on ctx's device.
  device_vector(context& ctx, std::size_t n) : link_(ctx.link()), n_(n) {
    if (n > (std::numeric_limits<std::uint64_t>::max() / sizeof(T)))
      throw error(errc::limit, "device_vector: " + std::to_string(n) + " elements is too many");
    // Narrow elements (f16, u8, i8) are packed; the buffer is whole 32-bit words (the padding reads as zero).
    buf_ = ctx.create_buffer((std::uint64_t(n) * sizeof(T) + 3) / 4 * 4);
  }
  /// Uploads host data.
  device_vector(context& ctx, host_span<const T> data) : device_vector(ctx, data.size()) { assign(data); }

  /// The number of elements.
  std::size_t size() const { return n_; }
  /// Whether the vector has no elements.
  bool empty() const { return n_ == 0; }
  /// A span of all elements.
  device_span<T> span() { return device_span<T>(buf_, 0, n_); }
  /// A read-only span of all elements.
  device_span<const T> span() const { return device_span<const T>(buf_, 0, n_); }
  /// A span of all elements.
  operator device_span<T>() { return span(); }              // NOLINT
  /// A read-only span of all elements.
  operator device_span<const T>() const { return span(); }  // NOLINT

  /// Copies data.size() elements (at most size()) from the host.
  void assign(host_span<const T> data) {
    if (data.size() > n_) throw error(errc::invalid_argument, "device_vector::assign: more elements than the vector has");
    if (data.empty()) return;
    const std::uint64_t bytes = std::uint64_t(data.size()) * sizeof(T);
    if (bytes % 4 == 0) return ctx().write(buf_, 0, data.data(), bytes);
    // WebGPU writes whole words: the partial last word goes through a padded copy.
    std::vector<unsigned char> padded((bytes + 3) / 4 * 4, 0);
    std::memcpy(padded.data(), data.data(), bytes);
    ctx().write(buf_, 0, padded.data(), padded.size());
  }
  /// Reads the elements back (waits for the GPU).
  std::vector<T> to_host() const {
    std::vector<T> out(n_);
    if (!n_) return out;
    const std::uint64_t bytes = std::uint64_t(n_) * sizeof(T);
    if (bytes % 4 == 0) {
      ctx().read(buf_, 0, out.data(), bytes);
    } else {
      std::vector<unsigned char> padded((bytes + 3) / 4 * 4);
      ctx().read(buf_, 0, padded.data(), padded.size());
      std::memcpy(out.data(), padded.data(), bytes);
    }
    return out;
  }
  /// The underlying buffer.
  buffer& raw() { return buf_; }
  /// The underlying buffer.
  const buffer& raw() const { return buf_; }

 private:
  // The context that made it, through a shared link that knows when that context is gone (issue 29 row 6: a
  // device_vector used after its context was destroyed crashed on lavapipe and read freed memory on native).
  context& ctx() const {
    if (!link_) throw error(errc::invalid_argument, "device_vector: this vector has no context (default-constructed)");
    if (!link_->ctx) throw error(errc::invalid_argument, "device_vector: its context was destroyed");
    return *link_->ctx;
  }
  std::shared_ptr<detail::context_link> link_;
  std::size_t n_ = 0;
  buffer buf_;
};

}  // namespace wgprim

// ---- ranges: what the algorithms accept (device_vector, device_span, or host containers / host_span) ----
namespace wgprim::detail {

template <class R> struct device_range_traits { static constexpr bool value = false; };
template <class R> struct is_device_span { static constexpr bool value = false; };
template <class T> struct is_device_span<device_span<T>> { static constexpr bool value = true; };
template <class T> struct device_range_traits<device_vector<T>> {
  static constexpr bool value = true;
  using type = T;
};
template <class T> struct device_range_traits<device_span<T>> {
  static constexpr bool value = true;
  using type = std::remove_cv_t<T>;
};

template <class R, class = void> struct host_range_traits {
  static constexpr bool value = false;
  using type = void;
};
template <class R>
struct host_range_traits<R, std::void_t<decltype(std::declval<R&>().data()), decltype(std::declval<R&>().size())>> {
  using type = std::remove_cv_t<std::remove_pointer_t<decltype(std::declval<R&>().data())>>;
  // Every contiguous container is a range, whatever its element type: an unsupported one (std::vector<int16_t>)
  // then stops at dtype_of's static_assert with one readable line, not at "no matching function" and a list of
  // every overload.
  static constexpr bool value = std::is_pointer_v<decltype(std::declval<R&>().data())> &&
                                !std::is_void_v<type> && !device_range_traits<R>::value;
};

template <class R, class D = std::remove_cv_t<std::remove_reference_t<R>>>
constexpr bool is_range_v = device_range_traits<D>::value || host_range_traits<D>::value;
template <class R, class D = std::remove_cv_t<std::remove_reference_t<R>>>
constexpr bool is_device_range_v = device_range_traits<D>::value;

template <class R, class D = std::remove_cv_t<std::remove_reference_t<R>>>
using range_value_t =
    typename std::conditional_t<device_range_traits<D>::value, device_range_traits<D>, host_range_traits<D>>::type;

/// Whether It is an iterator (std::iterator_traits knows it): what the iterator-pair overloads take.
template <class It, class = void> struct is_iterator : std::false_type {};
template <class It>
struct is_iterator<It, std::void_t<typename std::iterator_traits<It>::iterator_category>> : std::true_type {};
template <class It> constexpr bool is_iterator_v = is_iterator<std::remove_cv_t<It>>::value;
/// What *it refers to, without reference and const.
template <class It> using iter_value_t = std::remove_cv_t<std::remove_reference_t<decltype(*std::declval<It&>())>>;
/// The iterators whose elements are contiguous in C++17 terms: pointers, and the iterators of std::vector (not
/// std::vector<bool>) and std::array. (C++20's contiguous_iterator concept is not available in C++17.)
template <class It, class V = iter_value_t<It>>
constexpr bool is_contiguous_iterator_v =
    std::is_pointer_v<It> ||
    (!std::is_same_v<V, bool> && (std::is_same_v<It, typename std::vector<V>::iterator> ||
                                  std::is_same_v<It, typename std::vector<V>::const_iterator>)) ||
    std::is_same_v<It, typename std::array<V, 1>::iterator> ||
    std::is_same_v<It, typename std::array<V, 1>::const_iterator>;
/// The message every iterator-pair overload gives for other iterators.
#define WGPRIM_CONTIGUOUS_MESSAGE                                                                             \
  "wgprim: iterator pairs must be contiguous host memory: pointers, std::vector or std::array iterators "      \
  "(for anything else, copy into a std::vector first)"
/// [first, last) of contiguous iterators as a host_span (keeps const).
template <class It>
auto iter_span(It first, It last) {
  using E = std::remove_reference_t<decltype(*first)>;
  const auto n = static_cast<std::size_t>(last - first);
  return host_span<E>(n ? &*first : nullptr, n);
}
/// n elements from a contiguous output iterator as a writable host_span.
template <class It>
auto iter_out_span(It first, std::size_t n) {
  using E = std::remove_reference_t<decltype(*first)>;
  return host_span<E>(n ? &*first : nullptr, n);
}

/// A range with its type erased: a device view, or host memory.
struct range_ref {
  bool on_device = false;
  device_view view;            // on_device
  const void* host = nullptr;  // !on_device (input)
  void* host_out = nullptr;    // !on_device (output)
  std::uint64_t count = 0;
  dtype type = dtype::u32;     // the element type (host and device)
  std::uint64_t bytes() const { return count * dtype_bytes(type); }
};

template <class R>
range_ref in_ref(const R& r) {
  using D = std::remove_cv_t<std::remove_reference_t<R>>;
  range_ref out;
  if constexpr (device_range_traits<D>::value) {
    out.on_device = true;
    if constexpr (is_device_span<D>::value) out.view = r.view();
    else out.view = r.span().view();
    out.count = out.view.count;
  } else {
    out.host = r.data();
    out.count = r.size();
  }
  out.type = dtype_of<range_value_t<D>>::value;
  return out;
}
template <class R>
range_ref out_ref(R&& r) {
  using D = std::remove_cv_t<std::remove_reference_t<R>>;
  range_ref out;
  if constexpr (device_range_traits<D>::value) {
    static_assert(!std::is_const_v<std::remove_reference_t<R>> || !std::is_same_v<D, device_vector<range_value_t<D>>>,
                  "wgprim: the output device_vector must not be const");
    out.on_device = true;
    if constexpr (is_device_span<D>::value) {
      static_assert(!std::is_const_v<typename D::element_type>, "wgprim: the output span must not be of const T");
      out.view = r.view();
    } else {
      out.view = r.span().view();
    }
    out.count = out.view.count;
  } else {
    static_assert(!std::is_const_v<std::remove_pointer_t<decltype(r.data())>>, "wgprim: the output must be writable");
    out.host_out = r.data();
    out.count = r.size();
  }
  out.type = dtype_of<range_value_t<D>>::value;
  return out;
}

}  // namespace wgprim::detail
