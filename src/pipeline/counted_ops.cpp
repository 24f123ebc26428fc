// Sort and reduce of counted ranges (wgprim/counted.hpp): the checks every backend needs, then the context's
// backend table (sort_counted / reduce_counted). The WebGPU row reads the count on the device (the sort's kernels
// stop at it; a neutral tail for the reduce, and for a sort past one binding), so neither needs the count on the
// host; the native row runs on the prefix that the count names.
#include "primitives/backend.hpp"
#include "wgprim/counted.hpp"
#include "wgprim/error.hpp"

namespace wgprim::detail {

namespace {
// The 32-bit key whose ordered bits (sort.hpp) are all ones (ascending) or all zeros (descending): it sorts
// after every key on any bit range, and stability keeps the real keys that tie with it first.
std::uint32_t last_key(dtype t, bool descending) {
  switch (t) {
    case dtype::u32: return descending ? 0u : 0xffffffffu;
    case dtype::i32: return descending ? 0x80000000u : 0x7fffffffu;
    case dtype::f32:
      if (descending)
        throw error(errc::unsupported, "sort: a counted f32 range sorts ascending only (no f32 key sorts last "
                                       "in descending order)");
      return 0xffffffffu;  // a NaN: every NaN's ordered bits are all ones
    default:
      throw error(errc::unsupported, std::string("a counted range takes 32-bit elements (u32, i32, f32), not ") +
                                         dtype_name(t));
  }
}

void check_counted(context& ctx, const range_ref& r, const device_view& count, const char* what) {
  if (!r.on_device) throw error(errc::invalid_argument, std::string(what) + ": a counted range is on the device");
  check_view(ctx, r.view, what);
  device_view c = count;
  c.count = 1;
  check_view(ctx, c, (std::string(what) + " count").c_str());
}
}  // namespace

void sort_counted(context& ctx, WGPUCommandEncoder encoder, const range_ref& keys, const device_view& count,
                  const sort_order& o, const run_options& opt) {
  check_counted(ctx, keys, count, "sort");
  const std::uint32_t pad_key = last_key(keys.type, o.direction == order::descending);
  backend_of(ctx).sort_counted(ctx, encoder, keys, count, o, pad_key, opt);
}

std::uint64_t reduce_counted(context& ctx, WGPUCommandEncoder encoder, const range_ref& in, const device_view& count,
                             const range_ref* result, const monoid& m, const run_options& opt) {
  check_counted(ctx, in, count, "reduce");
  last_key(in.type, false);  // the type check: 32-bit elements
  return backend_of(ctx).reduce_counted(ctx, encoder, in, count, result, m, opt);
}

}  // namespace wgprim::detail
