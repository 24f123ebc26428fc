// A device buffer: move-only owner of one WGPUBuffer, sized in bytes. Create it with context::create_buffer, or
// use the typed wgprim::device_vector<T> (device_vector.hpp), which the algorithms take as spans.
#pragma once
#include <cstdint>

typedef struct WGPUBufferImpl* WGPUBuffer;

namespace wgprim {

class buffer {
 public:
  buffer() = default;
  ~buffer();
  buffer(buffer&& o) noexcept : handle_(o.handle_), size_(o.size_), owner_(o.owner_) {
    o.handle_ = nullptr; o.size_ = 0; o.owner_ = 0;
  }
  buffer& operator=(buffer&& o) noexcept;
  buffer(const buffer&) = delete;
  buffer& operator=(const buffer&) = delete;

  std::uint64_t size_bytes() const { return size_; }
  explicit operator bool() const { return handle_ != nullptr; }
  /// The underlying WebGPU handle, for interop; ownership stays here.
  WGPUBuffer native() const { return handle_; }
  /// The id of the context that made it (context::id()); every call checks it, so a buffer of one context
  /// cannot be used with another.
  std::uint64_t owner() const { return owner_; }

 private:
  friend struct detail_buffer_access;
  buffer(WGPUBuffer h, std::uint64_t size, std::uint64_t owner) : handle_(h), size_(size), owner_(owner) {}
  WGPUBuffer handle_ = nullptr;
  std::uint64_t size_ = 0;
  std::uint64_t owner_ = 0;
};

}  // namespace wgprim
