#include "primitives/primitive.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>

#include "core/wgsl_compose.hpp"
#include "primitives/backend.hpp"
#include "wgprim/error.hpp"

namespace wgprim::detail {

binding bind(const device_view& v, std::uint64_t first, std::uint64_t count) {
  count = std::min<std::uint64_t>(count, v.count - std::min(first, v.count));
  return {v.buf, v.offset + first * v.elem_bytes, std::max<std::uint64_t>(count, 1) * v.elem_bytes};
}

binding bind_vec4(const device_view& v, std::uint64_t first, std::uint64_t count, const buffer& placeholder,
                  std::uint64_t elem_bytes) {
  if (count / 4 == 0) return bind(placeholder);
  return {v.buf, v.offset + first * elem_bytes, count / 4 * 4 * elem_bytes};
}

device_view view_of(const buffer& b, std::uint64_t count, std::uint32_t elem_bytes) {
  device_view v;
  v.buf = b.native();
  v.host = b.host_data();
  v.owner = b.owner();
  v.offset = 0;
  v.capacity = b.size_bytes();
  v.elem_bytes = elem_bytes;
  v.count = std::min<std::uint64_t>(count, b.size_bytes() / elem_bytes);
  return v;
}

namespace {
bool aligned(const context& ctx, const device_view& v) {
  return v.offset % std::max<std::uint32_t>(1, ctx.limits().min_storage_buffer_offset_alignment) == 0;
}
}  // namespace

device_view bindable_input(recorder& rec, const device_view& in, std::vector<buffer>& temps,
                           const device_view* in_place_with) {
  // Any two views of one buffer conflict (WebGPU forbids a read-only and a writable binding of one buffer in a
  // dispatch, whether or not the ranges overlap).
  const bool alias = in_place_with && in_place_with->buf == in.buf && in.count;
  if (aligned(rec.ctx(), in) && !alias) return in;
  // Buffer copies move whole 32-bit words: a packed (1- or 2-byte) range is copied with the rest of its last word,
  // and must start on a word.
  const std::uint64_t bytes = (in.bytes() + 3) / 4 * 4;
  if (in.elem_bytes < 4 && (in.offset % 4 != 0 || in.offset + bytes > in.capacity))
    throw error(errc::unsupported, "a device range of " + std::to_string(in.elem_bytes) +
                                       "-byte elements must start at a multiple of 4 bytes and end inside its "
                                       "buffer's last word (offset " + std::to_string(in.offset) + " bytes)");
  temps.push_back(rec.ctx().create_buffer(std::max<std::uint64_t>(bytes, 4)));
  device_view t = view_of(temps.back(), in.count, in.elem_bytes);
  rec.copy_raw(in.buf, in.offset, t.buf, 0, bytes);
  return t;
}

bindable_output bindable_output_of(recorder& rec, const device_view& out) {
  bindable_output o;
  o.final = out;
  if (aligned(rec.ctx(), out)) {
    o.view = out;
    return o;
  }
  o.temp = rec.ctx().create_buffer(std::max<std::uint64_t>(out.bytes(), 4));
  o.view = view_of(o.temp, out.count, out.elem_bytes);
  return o;
}

void bindable_output::finish(recorder& rec) const {
  if (temp) rec.copy_raw(view.buf, 0, final.buf, final.offset, final.bytes());
}

device_view upload_host(context& ctx, const range_ref& in, buffer& holder, double* ms) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::uint64_t bytes = in.bytes(), padded = (bytes + 3) / 4 * 4;
  holder = ctx.create_buffer(std::max<std::uint64_t>(padded, 4));
  if (bytes == padded) {
    ctx.write(holder, 0, in.host, bytes);
  } else {  // narrow elements: whole words only
    std::vector<unsigned char> p(padded, 0);
    std::memcpy(p.data(), in.host, bytes);
    ctx.write(holder, 0, p.data(), padded);
  }
  ctx.finish();
  if (ms) *ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  device_view v = view_of(holder, ~0ull, dtype_bytes(in.type));
  v.count = in.count;
  return v;
}

std::vector<chunk> chunks_of(std::uint64_t n, std::uint64_t per_chunk) {
  std::vector<chunk> out;
  if (per_chunk == 0) throw error(errc::gpu, "internal: empty chunk size");
  for (std::uint64_t first = 0; first < n; first += per_chunk)
    out.push_back({first, std::min<std::uint64_t>(per_chunk, n - first)});
  return out;
}

reduction_grid reduction_grid_for(std::uint64_t n, std::uint64_t per_binding, std::uint64_t tile,
                                  std::uint32_t max_groups) {
  reduction_grid g;
  g.parts = chunks_of(n, per_binding);
  for (const chunk& c : g.parts) {
    const std::uint64_t tiles = (c.count + tile - 1) / tile;
    g.groups.push_back(static_cast<std::uint32_t>(std::max<std::uint64_t>(1, std::min<std::uint64_t>(max_groups, tiles))));
    g.total += g.groups.back();
  }
  return g;
}

std::uint64_t elements_per_binding(const context& ctx, std::uint64_t elem_bytes, std::uint64_t multiple) {
  std::uint64_t e = ctx.binding_limit() / elem_bytes / multiple * multiple;
  if (e == 0) throw error(errc::limit, "the storage binding limit is smaller than one tile");
  return e;
}

void require_type(const context& ctx, dtype t, const char* primitive, bool narrow_ok, bool wide_ok) {
  if ((is_narrow(t) && !narrow_ok) || (is_wide(t) && !wide_ok))
    throw error(errc::unsupported, std::string(primitive) + " does not support " + dtype_name(t) +
                                       " elements yet (it takes f32, i32 and u32)");
  if (!ctx.supports(t)) throw error(errc::unsupported, backend_of(ctx).type_refusal(ctx, t, primitive));
}

void fill_fallbacks(context& ctx, const run_options& opt, const buffer& fallbacks) {
  if (!opt.stats) return;
  opt.stats->lookback_fallbacks = 0;
  if (!fallbacks) return;
  std::vector<std::uint32_t> f(fallbacks.size_bytes() / 4);
  ctx.read(fallbacks, 0, f.data(), f.size() * 4);
  for (std::uint32_t x : f) opt.stats->lookback_fallbacks += x;
}

void fill_stats(const run_options& opt, const gpu_time& t, const std::string& algorithm) {
  if (!opt.stats) return;
  opt.stats->gpu_ms = t.ms;
  opt.stats->gpu_timestamps = t.from_timestamps;
  opt.stats->compile_ms = t.compile_ms;
  opt.stats->algorithm = algorithm;
}

const kernel& get_kernel(context& ctx, const kernel_spec& spec, const std::string& source, bool trusted) {
  return get_kernel(ctx, source, spec.entry, spec.layout, trusted, is_memoised(source) ? &spec : nullptr,
                    spec.params_bytes);
}

}  // namespace wgprim::detail

namespace wgprim {

std::vector<std::string> algorithms(const std::string& primitive) {
  std::vector<std::string> out;
  for (const auto& a : detail::algorithm_registry())
    if (primitive == a.primitive) out.push_back(a.name);
  return out;
}

std::vector<algorithm_description> algorithm_list() {
  std::vector<algorithm_description> out;
  for (const auto& a : detail::algorithm_registry())
    out.push_back({a.primitive, a.name, a.about, a.default_on_gpu, a.default_on_cpu});
  return out;
}

std::vector<std::string> reduce_algorithms() { return algorithms("reduce"); }
std::vector<std::string> scan_algorithms() { return algorithms("scan"); }

}  // namespace wgprim
