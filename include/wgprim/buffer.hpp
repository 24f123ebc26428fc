/// @file
/// A device buffer: move-only owner of one WGPUBuffer, sized in bytes. Create it with context::create_buffer, or
/// use the typed wgprim::device_vector<T> (device_vector.hpp), which the algorithms take as spans.
/// On a context of the native CPU backend (context::backend() == backend_choice::native) there is no WebGPU
/// device: the same handle owns host memory instead (host_data() non-null, native() null), so every container
/// and span works unchanged on either backend.
#pragma once
#include <cstdint>

typedef struct WGPUBufferImpl* WGPUBuffer;

namespace wgprim {

/// A device buffer: move-only owner of one WGPUBuffer (or of host memory on a native context), sized in bytes.
class buffer {
 public:
  buffer() = default;
  ~buffer();
  /// Takes o's buffer; o is left empty.
  buffer(buffer&& o) noexcept : handle_(o.handle_), host_(o.host_), size_(o.size_), owner_(o.owner_) {
    o.handle_ = nullptr; o.host_ = nullptr; o.size_ = 0; o.owner_ = 0;
  }
  /// Releases this buffer and takes o's; o is left empty.
  buffer& operator=(buffer&& o) noexcept;
  buffer(const buffer&) = delete;
  buffer& operator=(const buffer&) = delete;

  /// The size in bytes.
  std::uint64_t size_bytes() const { return size_; }
  /// Whether the handle owns a buffer (device or host memory).
  explicit operator bool() const { return handle_ != nullptr || host_ != nullptr; }
  /// The underlying WebGPU handle, for interop; ownership stays here. Null on a native-backend context.
  WGPUBuffer native() const { return handle_; }
  /// The host memory of a native-backend buffer (16-byte aligned, zero-initialised); null on a WebGPU context.
  void* host_data() const { return host_; }
  /// The id of the context that made it (context::id()); every call checks it, so a buffer of one context
  /// cannot be used with another.
  std::uint64_t owner() const { return owner_; }

 private:
  friend struct detail_buffer_access;
  buffer(WGPUBuffer h, void* host, std::uint64_t size, std::uint64_t owner)
      : handle_(h), host_(host), size_(size), owner_(owner) {}
  WGPUBuffer handle_ = nullptr;
  void* host_ = nullptr;
  std::uint64_t size_ = 0;
  std::uint64_t owner_ = 0;
};

}  // namespace wgprim
