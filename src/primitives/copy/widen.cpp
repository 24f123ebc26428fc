// Widening of packed storage types (f16, u8, i8) into their accumulation type, recorded before a reduce or scan.
#include "primitives/copy/widen.hpp"

#include "core/wgsl_compose.hpp"
#include "wgprim/error.hpp"

namespace wgprim::detail {

struct widen_params {
  std::uint32_t n, pad0, pad1, pad2;
};
static_assert(sizeof(widen_params) == 16);
const kernel_spec widen_spec{"copy/widen.wgsl", "widen", {slot::uniform, slot::storage_read, slot::storage_rw},
                             sizeof(widen_params)};

const std::string& widen_module(dtype t) {
  const dtype w = accumulation_type(t);
  const char* kind = t == dtype::f16 ? "0u" : t == dtype::u8 ? "1u" : "2u";
  return compose_wgsl_with_prelude(widen_spec.file, std::string("alias W = ") + dtype_name(w) + ";",
                                   {{"KIND", kind}, {"PER_WORD", t == dtype::f16 ? "2u" : "4u"}}, {});
}

void record_widen(recorder& rec, const device_view& in, dtype t, const device_view& out) {
  if (!is_narrow(t)) throw error(errc::invalid_argument, "internal: widen of a type that is not packed");
  context& ctx = rec.ctx();
  const std::uint32_t eb = dtype_bytes(t);
  // The words that hold the last element must lie inside the buffer (device_vector pads them; a caller's buffer
  // of an odd size may not).
  if (in.offset + (in.count * eb + 3) / 4 * 4 > in.capacity)
    throw error(errc::invalid_argument, std::string("the ") + dtype_name(t) +
                                            " input's last 32-bit word lies past the end of its buffer");
  const auto& k = get_kernel(ctx, widen_spec, widen_module(t), /*trusted=*/true);
  // Chunks start at multiples of 256 elements: the source (1 or 2 bytes each) and the destination (4 bytes) then
  // both start at multiples of 256 bytes.
  for (const chunk& c : chunks_of(in.count, elements_per_binding(ctx, 4, 256))) {
    const binding src{in.buf, in.offset + c.first * eb, (c.count * eb + 3) / 4 * 4};
    widen_params p{static_cast<std::uint32_t>(c.count), 0, 0, 0};
    std::uint32_t x, y;
    grid_2d((c.count + 255) / 256, ctx.limits().max_compute_workgroups_per_dimension, x, y);
    rec.dispatch(k, {rec.params(p), src, bind(out, c.first, c.count)}, x, y);
  }
}

}  // namespace wgprim::detail
