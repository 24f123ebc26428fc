// Counted passes: see counted.hpp and shaders/pipeline/count_args.wgsl.
#include "primitives/counted.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <utility>

#include "core/wgsl_compose.hpp"
#include "primitives/backend.hpp"
#include "primitives/copy/widen.hpp"
#include "wgprim/error.hpp"
#include "wgprim/reduce.hpp"
#include "wgprim/sort.hpp"

namespace wgprim::detail {

// shaders/pipeline/count_args.wgsl: count_args_config, at the end of the work block.
struct count_args_config {
  std::uint32_t capacity, tile, max_dim, words, n_word, tiles_word, grid_x_word, n2_word, count_at, one_group;
};
static_assert(sizeof(count_args_config) == 40);  // at most 48 bytes: the work block's [B + 16, B + 64)
struct pad_params {
  std::uint32_t capacity, pad, count_at, unused;
};
static_assert(sizeof(pad_params) == 16);

namespace {
const std::vector<slot> count_args_layout = {slot::storage_rw_dynamic, slot::storage_read};
const std::vector<slot> count_args_fill_layout = {slot::storage_rw_dynamic, slot::storage_read, slot::storage_rw};
const std::vector<slot> pad_tail_layout = {slot::uniform, slot::storage_read, slot::storage_rw};
constexpr std::size_t max_block = 240;

const kernel& count_args_kernel(context& ctx, const kernel_spec& spec) {
  // The embedded file's text is one object for the process: the kernel cache's fast path keys it by address.
  return get_kernel(ctx, shader_text(spec.file), spec.entry, spec.layout, true, &spec, spec.params_bytes);
}
std::uint32_t narrow(std::uint64_t x, const char* what) {
  if (x > 0xffffffffull) throw error(errc::limit, std::string("counted pass: ") + what + " past 2^32 - 1");
  return static_cast<std::uint32_t>(x);
}
}  // namespace

const kernel_spec count_args_size_spec{"pipeline/count_args.wgsl", "size_grid", count_args_layout, 0};
const kernel_spec count_args_fill_spec{"pipeline/count_args_fill.wgsl", "size_grid_fill", count_args_fill_layout, 0};
const kernel_spec count_args_pad_spec{"pipeline/pad_tail.wgsl", "pad_tail", pad_tail_layout, sizeof(pad_params)};

counted_pass record_counted_pass(recorder& rec, const device_view& count, const void* block, std::size_t bytes,
                                 const count_words& words, std::uint64_t tile, std::uint64_t capacity,
                                 const binding* zero) {
  context& ctx = rec.ctx();
  if (bytes % 4 || bytes == 0 || bytes > max_block)
    throw error(errc::gpu, "internal: a counted pass's parameter block is 4 to 240 bytes, whole words");
  // The work block (shaders/pipeline/count_args.wgsl): [0, B) the block, [B, B + 16) the grid, then the config.
  const std::size_t b = (bytes + 15) / 16 * 16;
  count_args_config cfg{};
  cfg.capacity = narrow(capacity, "capacity");
  cfg.tile = narrow(tile ? tile : 1, "tile");
  cfg.max_dim = ctx.limits().max_compute_workgroups_per_dimension;
  cfg.words = static_cast<std::uint32_t>(bytes / 4);
  cfg.n_word = words.n;
  cfg.tiles_word = words.tiles;
  cfg.grid_x_word = words.grid_x;
  cfg.n2_word = words.n2;
  cfg.one_group = words.one_group ? 1 : 0;
  const binding c = bind_from_aligned(ctx, count.buf, count.offset, 4, &cfg.count_at);
  std::uint8_t w[max_block + 64] = {};
  std::memcpy(w, block, bytes);
  std::memcpy(w + b + 16, &cfg, sizeof cfg);
  const binding work = rec.work_block(w, b + 64);
  if (zero) {
    // Composed (it imports count_args.wgsl); one text for the process. At least one workgroup: it sizes the grid.
    static const std::string& text = compose_wgsl(count_args_fill_spec.file, monoid(op::sum(), dtype::u32), {});
    rec.dispatch(get_kernel(ctx, count_args_fill_spec, text, true), {work, c, *zero},
                 std::max(fill_groups(zero->size / 4), 1u));
  } else {
    rec.dispatch(count_args_kernel(ctx, count_args_size_spec), {work, c}, 1);
  }
  return counted_pass{binding{work.buf, work.offset, b}, work.buf, work.offset + b};
}

void record_pad_tail(recorder& rec, const device_view& count, const device_view& v, std::uint32_t pad) {
  if (!v.count) return;
  context& ctx = rec.ctx();
  pad_params p{};
  p.pad = pad;
  p.capacity = narrow(v.count, "capacity");
  binding c = bind_from_aligned(ctx, count.buf, count.offset, 4, &p.count_at);
  if (count.buf == v.buf) {
    // One buffer cannot be bound read-only and writable in one dispatch: the count is read from a copy.
    const std::uint32_t zero = 0;
    c = rec.work_block(&zero, 4);
    rec.copy_raw(count.buf, count.offset, c.buf, c.offset, 4);
    p.count_at = 0;
  }
  std::uint32_t gx, gy;
  grid_2d((v.count + 63) / 64, ctx.limits().max_compute_workgroups_per_dimension, gx, gy);
  rec.dispatch(count_args_kernel(ctx, count_args_pad_spec), {rec.params(p), c, bind(v)}, gx, gy);
}

const kernel& counted_kernel(context& ctx, const kernel_spec& spec, const std::string& source, bool trusted) {
  // One marked copy of each source text (a distinct text: the cache keeps the immediate-block kernel of the same
  // WGSL apart), kept for the process as compose_wgsl's texts are.
  // A memoised source's marked copy is found by the source's address and memoised itself, so the kernel cache
  // takes its fast path (no key built from the whole text on every counted pass).
  const std::string& text = prefixed_wgsl("// counted pass: parameters patched on the device\n", source);
  return get_kernel(ctx, text, spec.entry, spec.layout, trusted, &spec, 0);
}

namespace {
void check_counted_binding(context& ctx, const range_ref& r, const char* what) {
  if (r.view.offset % ctx.limits().min_storage_buffer_offset_alignment)
    throw error(errc::invalid_argument, std::string(what) + ": a counted range starts at a multiple of " +
                                            std::to_string(ctx.limits().min_storage_buffer_offset_alignment) +
                                            " bytes of its buffer");
}

// Records the neutral tail into `encoder`, or into an encoder of its own submitted at once (not waited for: the
// primitive after it is queued behind it).
void pad(context& ctx, WGPUCommandEncoder encoder, const range_ref& r, const device_view& count, std::uint32_t value) {
  const bool own = encoder == nullptr;
  WGPUCommandEncoder enc = own ? ctx.begin_commands() : encoder;
  {
    recorder rec(ctx, enc);
    record_pad_tail(rec, count, r.view, value);
    rec.end();
  }
  if (own) ctx.submit(enc);
}
}  // namespace

// The counted sort and reduce of the WebGPU backend (the entry points: src/pipeline/counted_ops.cpp). The sort's
// passes cover the counted keys only (every sort kernel reads the count: sort_counted_webgpu); past one binding,
// and for the reduce, a neutral tail is written on the device, then the primitive runs over the whole capacity.
void counted_sort_webgpu(context& ctx, WGPUCommandEncoder encoder, const range_ref& keys, const device_view& count,
                         const sort_order& o, std::uint32_t pad_key, const run_options& opt) {
  check_counted_binding(ctx, keys, "sort");
  if (sort_counted_webgpu(ctx, encoder, keys, count, o, opt)) return;
  pad(ctx, encoder, keys, count, pad_key);
  sort_run(ctx, encoder, keys, keys, nullptr, nullptr, keys.type, o, opt);
}

std::uint64_t counted_reduce_webgpu(context& ctx, WGPUCommandEncoder encoder, const range_ref& in,
                                    const device_view& count, const range_ref* result, const monoid& m,
                                    const run_options& opt) {
  check_counted_binding(ctx, in, "reduce");
  if (result && !encoder) throw error(errc::invalid_argument, "reduce: a device result needs an encoder");
  pad(ctx, encoder, in, count, m.identity_bits());
  if (result) {
    reduce_record(ctx, encoder, in, *result, m, opt);
    return 0;
  }
  if (encoder) throw error(errc::invalid_argument, "reduce: recording into an encoder needs a device result");
  return reduce_raw(ctx, in, m, nullptr, opt);
}

std::uint64_t host_count(const device_view& count) {
  if (!count.host) throw error(errc::invalid_argument, "counted range: the count is not on this backend");
  std::uint32_t n = 0;
  std::memcpy(&n, static_cast<const unsigned char*>(count.host) + count.offset, 4);
  return n;
}

}  // namespace wgprim::detail
