// A device buffer: move-only owner of one WGPUBuffer. Create it with context::create_buffer.
#pragma once
#include <cstdint>

typedef struct WGPUBufferImpl* WGPUBuffer;

namespace wgprim {

class buffer {
 public:
  buffer() = default;
  ~buffer();
  buffer(buffer&& o) noexcept : handle_(o.handle_), size_(o.size_) { o.handle_ = nullptr; o.size_ = 0; }
  buffer& operator=(buffer&& o) noexcept;
  buffer(const buffer&) = delete;
  buffer& operator=(const buffer&) = delete;

  std::uint64_t size_bytes() const { return size_; }
  explicit operator bool() const { return handle_ != nullptr; }
  /// The underlying WebGPU handle, for interop; ownership stays here.
  WGPUBuffer native() const { return handle_; }

 private:
  friend struct detail_buffer_access;
  buffer(WGPUBuffer h, std::uint64_t size) : handle_(h), size_(size) {}
  WGPUBuffer handle_ = nullptr;
  std::uint64_t size_ = 0;
};

}  // namespace wgprim
