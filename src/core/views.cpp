#include "core/views.hpp"

#include <string>

#include "wgprim/error.hpp"

namespace wgprim::detail {

void check_view(const context& ctx, const device_view& v, const char* what) {
  if (v.count == 0) return;
  if (!v.buf && !v.host) throw error(errc::invalid_argument, std::string(what) + ": an empty (moved-from or default) buffer");
  if (v.owner != ctx.id())
    throw error(errc::invalid_argument, std::string(what) +
                                            ": a buffer of another wgprim::context (buffers work only with the "
                                            "context that made them)");
  if (v.offset % 4)  // WebGPU binds and copies whole 32-bit words
    throw error(errc::invalid_argument, std::string(what) + ": starts at byte " + std::to_string(v.offset) +
                                            ", not on a 32-bit word (subspans of 1- and 2-byte elements must)");
  if (v.offset > v.capacity || v.count > (v.capacity - v.offset) / v.elem_bytes)
    throw error(errc::invalid_argument, std::string(what) + ": " + std::to_string(v.count) +
                                            " elements exceed the buffer's " + std::to_string(v.capacity) + " bytes");
}

}  // namespace wgprim::detail
