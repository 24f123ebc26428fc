// Device copy through a compute shader: the same bytes a scan reads and writes, so benchmarks can report the
// adapter's copy speed as the ceiling of a scan.
#include <algorithm>

#include "core/wgsl_compose.hpp"
#include "primitives/copy/widen.hpp"
#include "primitives/backend.hpp"
#include "wgprim/copy.hpp"
#include "wgprim/error.hpp"

namespace wgprim::detail {

struct copy_params {
  std::uint32_t n_vec, pad0, pad1, pad2;
};
static_assert(sizeof(copy_params) == 16);
extern const kernel_spec copy_spec;
const kernel_spec copy_spec{"copy/copy.wgsl", "copy", {slot::uniform, slot::storage_read, slot::storage_rw},
                            sizeof(copy_params)};

struct fill_params {
  std::uint32_t n, value, take_at, src_at;
};
static_assert(sizeof(fill_params) == 16);
extern const kernel_spec fill_spec, fill_take_spec;
const kernel_spec fill_spec{"copy/fill.wgsl", "fill", {slot::uniform, slot::storage_rw}, sizeof(fill_params)};
const kernel_spec fill_take_spec{"copy/fill_take.wgsl", "fill_take", {slot::uniform, slot::storage_rw, slot::storage_read},
                                 sizeof(fill_params)};

namespace {
// record_zero's dispatch where the range can be bound (false: the caller falls back).
bool bindable_fill(context& ctx, std::uint64_t offset, std::uint64_t bytes) {
  const std::uint64_t align = ctx.limits().min_storage_buffer_offset_alignment;
  return !(bytes % 4 || bytes == 0 || (align && offset % align) || bytes > elements_per_binding(ctx, 4, 4) * 4 ||
           bytes / 4 > 0xffffffffull);
}
}  // namespace

std::uint32_t fill_groups(std::uint64_t words) {
  return static_cast<std::uint32_t>(std::min<std::uint64_t>(1024, (words + 255) / 256));
}

// record_copy_words, record_zero_take and the select's fused count read or write a word at any 4-byte offset.
binding bind_from_aligned(context& ctx, WGPUBuffer buf, std::uint64_t offset, std::uint64_t bytes,
                          std::uint32_t* word) {
  const std::uint64_t align = std::max<std::uint32_t>(ctx.limits().min_storage_buffer_offset_alignment, 4);
  const std::uint64_t at = offset / align * align;
  *word = static_cast<std::uint32_t>((offset - at) / 4);
  return binding{buf, at, offset - at + bytes};
}

void record_zero(recorder& rec, WGPUBuffer b, std::uint64_t offset, std::uint64_t bytes) {
  context& ctx = rec.ctx();
  const std::uint64_t words = bytes / 4;
  // Too large for one binding or one u32 count, or not bindable at this offset: the transfer command.
  if (!bindable_fill(ctx, offset, bytes)) return rec.clear_raw(b, offset, bytes);
  static const std::string& text = compose_wgsl(fill_spec.file, monoid(op::sum(), dtype::u32), {});
  const auto& k = get_kernel(ctx, fill_spec, text, true);
  const fill_params p{static_cast<std::uint32_t>(words), 0, 0, 0};
  rec.dispatch(k, {rec.params(p), binding{b, offset, bytes}}, fill_groups(words));
}

void record_zero_take(recorder& rec, const buffer& b, std::uint64_t offset, std::uint64_t bytes,
                      std::uint64_t take_word, WGPUBuffer src, std::uint64_t src_offset) {
  context& ctx = rec.ctx();
  // Not one dispatch (the range unbindable, the word outside it, the source unaligned or in the same buffer): a
  // clear and a copy.
  if (!bindable_fill(ctx, offset, bytes) || take_word >= bytes / 4 || src_offset % 4 || src == b.native()) {
    record_zero(rec, b, offset, bytes);
    return record_copy_words(rec, src, src_offset, b.native(), offset + take_word * 4, 4);
  }
  static const std::string& text = compose_wgsl(fill_take_spec.file, monoid(op::sum(), dtype::u32), {});
  const auto& k = get_kernel(ctx, fill_take_spec, text, true);
  const std::uint64_t words = bytes / 4;
  std::uint32_t src_at = 0;
  const binding from = bind_from_aligned(ctx, src, src_offset, 4, &src_at);
  const fill_params p{static_cast<std::uint32_t>(words), 0, static_cast<std::uint32_t>(take_word), src_at};
  rec.dispatch(k, {rec.params(p), bind(b, offset, bytes), from}, fill_groups(words));
}

namespace {
std::uint64_t round_up(std::uint64_t v, std::uint64_t a) { return a > 1 ? (v + a - 1) / a * a : v; }
}  // namespace

lookback_workspace::lookback_workspace(context& ctx, const std::string& name, std::uint64_t carry_bytes,
                                       std::uint64_t state_bytes)
    : carry_bytes_(carry_bytes),
      state_at_(round_up(carry_bytes, ctx.limits().min_storage_buffer_offset_alignment)),
      state_bytes_(state_bytes),
      buf_(scratch(ctx, name, state_at_ + state_bytes)) {}

void lookback_workspace::copy_state_word(recorder& rec, std::uint64_t word, const buffer& dst,
                                         std::uint64_t dst_offset) const {
  rec.copy(buf_, state_at_ + 4 * word, dst, dst_offset, 4);
}

struct words_params {
  std::uint32_t n, src_at, dst_at, pad;
};
static_assert(sizeof(words_params) == 16);
extern const kernel_spec copy_words_spec;
const kernel_spec copy_words_spec{"copy/words.wgsl", "copy_words", {slot::uniform, slot::storage_read, slot::storage_rw},
                                  sizeof(words_params)};

void record_copy_words(recorder& rec, WGPUBuffer src, std::uint64_t src_offset, WGPUBuffer dst,
                       std::uint64_t dst_offset, std::uint64_t bytes) {
  context& ctx = rec.ctx();
  // Large, unaligned or within one buffer (read and written by one dispatch): the transfer command.
  if (bytes == 0 || bytes % 4 || src_offset % 4 || dst_offset % 4 || bytes > 65536 || src == dst)
    return rec.copy_raw(src, src_offset, dst, dst_offset, bytes);
  static const std::string& text = compose_wgsl(copy_words_spec.file, monoid(op::sum(), dtype::u32), {});
  const auto& k = get_kernel(ctx, copy_words_spec, text, true);
  // Each side bound from the aligned offset at or below its first word.
  words_params p{static_cast<std::uint32_t>(bytes / 4), 0, 0, 0};
  const binding from = bind_from_aligned(ctx, src, src_offset, bytes, &p.src_at);
  const binding to = bind_from_aligned(ctx, dst, dst_offset, bytes, &p.dst_at);
  rec.dispatch(k, {rec.params(p), from, to}, static_cast<std::uint32_t>((bytes / 4 + 63) / 64));
}

void copy_run(context& ctx, WGPUCommandEncoder encoder, const range_ref& in, const range_ref& out,
              const run_options& opt) {
  backend_of(ctx).copy(ctx, encoder, in, out, opt);
}

void copy_webgpu(context& ctx, WGPUCommandEncoder encoder, const range_ref& in, const range_ref& out,
                 const run_options& opt) {
  check_view(ctx, in.view, "copy input");
  check_view(ctx, out.view, "copy output");
  if (in.count != out.count) throw error(errc::invalid_argument, "copy: input and output lengths differ");
  if (in.view.buf == out.view.buf) throw error(errc::invalid_argument, "copy: source and destination are one buffer");
  if (in.count == 0) return;
  static const monoid m(op::sum(), dtype::u32);
  const auto& k = get_kernel(ctx, copy_spec, compose_wgsl(copy_spec.file, m, {}), true);
  const std::uint32_t groups = ctx.adapter().kind == adapter_kind::cpu ? 32 : 2048;
  recorder rec = encoder ? recorder(ctx, encoder) : recorder(ctx, opt.timestamps || opt.stats);
  std::vector<buffer> temps;
  bindable_output o = bindable_output_of(rec, out.view);
  const device_view src = bindable_input(rec, in.view, temps);
  for (const chunk& c : chunks_of(in.count, elements_per_binding(ctx, 4, 4))) {
    const std::uint64_t nv = c.count / 4;
    if (nv) {
      copy_params p{static_cast<std::uint32_t>(nv), 0, 0, 0};
      rec.dispatch(k, {rec.params(p), bind(src, c.first, nv * 4), bind(o.view, c.first, nv * 4)},
                   static_cast<std::uint32_t>(std::min<std::uint64_t>(groups, (nv + 255) / 256)));
    }
    if (c.count % 4)
      rec.copy_raw(src.buf, src.offset + (c.first + nv * 4) * 4, o.view.buf, o.view.offset + (c.first + nv * 4) * 4,
                   (c.count % 4) * 4);
  }
  o.finish(rec);
  if (encoder) return rec.end();
  fill_stats(opt, rec.submit(), "copy");
}

}  // namespace wgprim::detail
