// Sort and reduce of counted ranges (wgprim/counted.hpp): a neutral tail written on the device (record_pad_tail),
// then the primitive over the whole capacity, so neither needs the count on the host.
#include <algorithm>

#include "native/backend.hpp"
#include "primitives/counted.hpp"
#include "primitives/sort/sort.hpp"
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
  if (!cpu_backend::native(ctx) && r.view.offset % ctx.limits().min_storage_buffer_offset_alignment)
    throw error(errc::invalid_argument, std::string(what) + ": a counted range starts at a multiple of " +
                                            std::to_string(ctx.limits().min_storage_buffer_offset_alignment) +
                                            " bytes of its buffer");
}

// The prefix of a native range that the count names.
range_ref prefix_of(const range_ref& r, const device_view& count) {
  range_ref p = r;
  p.count = p.view.count = std::min<std::uint64_t>(host_count(count), r.count);
  return p;
}

// Records the neutral tail into `encoder`, or into an encoder of its own submitted at once (not waited for: the
// primitive after it is queued behind it).
void pad(context& ctx, WGPUCommandEncoder encoder, const range_ref& r, const device_view& count, std::uint32_t value) {
  const bool own = encoder == nullptr;
  WGPUCommandEncoder enc = own ? ctx.begin_commands() : encoder;
  buffer work;
  {
    recorder rec(ctx, enc);
    record_pad_tail(rec, count, r.view, value, work);
    rec.end();
  }
  if (own) ctx.submit(enc);
}
}  // namespace

void sort_counted(context& ctx, WGPUCommandEncoder encoder, const range_ref& keys, const device_view& count,
                  const sort_order& o, const run_options& opt) {
  check_counted(ctx, keys, count, "sort");
  const std::uint32_t pad_key = last_key(keys.type, o.direction == order::descending);
  if (cpu_backend::native(ctx)) {
    if (encoder) cpu_backend::no_encoder("sort");
    const range_ref p = prefix_of(keys, count);
    return sort_run(ctx, nullptr, p, p, nullptr, nullptr, keys.type, o, opt);
  }
  // The passes cover the counted keys only (every sort kernel reads the count); past one binding, the capacity.
  if (sort_counted_webgpu(ctx, encoder, keys, count, o, opt)) return;
  pad(ctx, encoder, keys, count, pad_key);
  sort_run(ctx, encoder, keys, keys, nullptr, nullptr, keys.type, o, opt);
}

std::uint64_t reduce_counted(context& ctx, WGPUCommandEncoder encoder, const range_ref& in, const device_view& count,
                             const range_ref* result, const monoid& m, const run_options& opt) {
  check_counted(ctx, in, count, "reduce");
  last_key(in.type, false);  // the type check: 32-bit elements
  if (cpu_backend::native(ctx)) {
    if (encoder) cpu_backend::no_encoder("reduce");
    return reduce_raw(ctx, prefix_of(in, count), m, nullptr, opt);
  }
  if (result && !encoder) throw error(errc::invalid_argument, "reduce: a device result needs an encoder");
  pad(ctx, encoder, in, count, m.identity_bits());
  if (result) {
    reduce_record(ctx, encoder, in, *result, m, opt);
    return 0;
  }
  if (encoder) throw error(errc::invalid_argument, "reduce: recording into an encoder needs a device result");
  return reduce_raw(ctx, in, m, nullptr, opt);
}

}  // namespace wgprim::detail
