// The two backend tables (backend.hpp). The WebGPU row points at the dispatch code of each primitive; the native
// row checks what the native backend cannot take (a caller's command encoder, an algorithm name the registry does
// not know, 64-bit sort keys), turns what src/native does not know into what it does (a view into its values on
// the host, a counted input into the prefix its count names, device offsets and levels into host pointers) and
// calls src/native. The few operations that are the same for every primitive (the chain's encoder and copies, the
// refusal of a type) are written here for both rows.
#include "primitives/backend.hpp"

#include <algorithm>
#include <cstring>

#include "core/host_checks.hpp"
#include "native/backend.hpp"
#include "primitives/counted.hpp"
#include "primitives/view.hpp"
#include "wgprim/error.hpp"
#include "wgprim/reduce.hpp"

namespace wgprim::detail {

namespace {
WGPUCommandEncoder begin_chain_webgpu(context& ctx) { return ctx.begin_commands(); }

WGPUCommandEncoder begin_early_chain_webgpu(context& ctx, const device_view* input) {
  if (input && !owns_buffer(ctx, input->buf)) return nullptr;
  return ctx.begin_commands();
}

finished_commands finish_chain_webgpu(context& ctx, WGPUCommandEncoder enc, const device_view* input) {
  return finish_commands(ctx, enc, input ? input->buf : nullptr);
}

void copy_bytes_webgpu(context& ctx, WGPUCommandEncoder encoder, const device_view& from, const device_view& to,
                       std::uint64_t bytes) {
  WGPUCommandEncoder enc = encoder ? encoder : ctx.begin_commands();
  {
    recorder rec(ctx, enc);
    rec.copy_raw(from.buf, from.offset, to.buf, to.offset, bytes);
    rec.end();
  }
  if (!encoder) ctx.submit(enc);
}

std::string type_refusal_webgpu(const context& ctx, dtype t, const char* primitive) {
  return std::string(primitive) + " over " + dtype_name(t) + " needs the adapter feature " +
         (t == dtype::f64 ? "shader-f64" : "shader-int64") + ", which '" + ctx.adapter().name +
         "' lacks (wgprim::context::supports)";
}
}  // namespace

const backend_ops webgpu_backend = {
    "webgpu",
    reduce_webgpu,
    exact_sum_webgpu,
    reduce_into_webgpu,
    scan_webgpu,
    copy_webgpu,
    arg_reduce_webgpu,
    arg_reduce_into_webgpu,
    select_webgpu,
    select_view_webgpu,
    sort_webgpu,
    sort_passes_webgpu,
    segmented_sort_webgpu,
    comparator_sort_webgpu,
    segmented_scan_webgpu,
    segmented_reduce_webgpu,
    reduce_by_key_webgpu,
    histogram_webgpu,
    begin_chain_webgpu,
    begin_early_chain_webgpu,
    finish_chain_webgpu,
    submit_finished,
    drop_finished,
    copy_bytes_webgpu,
    counted_sort_webgpu,
    counted_reduce_webgpu,
    sort_phases_webgpu,
    type_refusal_webgpu,
};

namespace {
namespace cb = cpu_backend;

[[noreturn]] void no_encoder_call(const char* what, const char* how) {
  throw error(errc::unsupported, std::string(what) + " into a WGPUCommandEncoder needs a WebGPU context; this one "
                                 "runs the native CPU backend (call " + how + " without an encoder)");
}

namespace {
// A view's values computed on the host (not fused) with its transform applied, in a buffer of this context: what
// the scan, select and histogram loops read for a view.
buffer held_view_values(context& ctx, const view_desc& v) {
  std::vector<std::uint32_t> values = view_values_on_host(ctx, v);
  if (v.tr) {
    std::vector<std::uint32_t> x(values.size());
    bound_transform(*v.tr, v.type).apply_many(values.data(), values.size(), x.data());
    values.swap(x);
  }
  buffer held = ctx.create_buffer(std::max<std::size_t>(values.size(), 1) * 4);
  if (!values.empty()) ctx.write(held, 0, values.data(), values.size() * 4);
  return held;
}
}  // namespace

// 32-bit elements only on this backend (require_type): an init value fits one word.
std::uint64_t reduce_native(context& ctx, const range_ref& in, const monoid& m, const std::uint64_t* init,
                            const run_options& opt, const bound_transform* tr, const view_desc* view) {
  check_algorithm_name("reduce", opt.algorithm);
  const std::uint32_t init32 = init ? static_cast<std::uint32_t>(*init) : 0;
  if (view) {  // the view's values first (not fused), then the reduce loops (with the view's transform)
    const std::vector<std::uint32_t> values = view_values_on_host(ctx, *view);
    range_ref host;
    host.host = values.data();
    host.count = values.size();
    host.type = view->type;
    return cb::reduce(ctx, host, m, init ? &init32 : nullptr, opt, tr);
  }
  return cb::reduce(ctx, in, m, init ? &init32 : nullptr, opt, tr);
}

superaccumulator exact_sum_native(context& ctx, const range_ref& in, const run_options& opt) {
  check_algorithm_name("reduce", opt.algorithm);
  return cb::exact_sum(ctx, in, opt);
}

// No encoder: the device-result call, run at once here (the result's bytes are host memory on this backend).
void reduce_into_native(context& ctx, WGPUCommandEncoder encoder, const range_ref& in, const range_ref& result,
                        const monoid& m, const run_options& opt, const bound_transform* tr) {
  if (encoder) no_encoder_call("reduce", "reduce");
  if (result.count == 0) throw error(errc::invalid_argument, "reduce: the result span is empty");
  if (!result.view.host) throw error(errc::invalid_argument, "reduce: the result is not a range of this context");
  const std::uint64_t raw = reduce_native(ctx, in, m, nullptr, opt, tr, nullptr);
  std::memcpy(static_cast<char*>(result.view.host) + result.view.offset, &raw, dtype_bytes(m.type()));
}

void scan_native(context& ctx, WGPUCommandEncoder encoder, const range_ref& in, const range_ref& out, const monoid& m,
                 scan_kind kind, const std::uint64_t* init, const run_options& opt, const superaccumulator* carry,
                 const view_desc* view, const bound_transform* /*tr: the view's, applied by held_view_values*/) {
  if (encoder) no_encoder_call("scan", "the scan");
  check_algorithm_name("scan", opt.algorithm);
  if (carry) return cb::scan_exact_carry(ctx, in, out, kind, *carry, opt);
  const std::uint32_t init32 = init ? static_cast<std::uint32_t>(*init) : 0;
  if (view) {
    // The view's values first (not fused), its transform applied on the host, then the scan loops.
    const buffer held = held_view_values(ctx, *view);
    range_ref host = in;
    host.view = view_of(held, view->count);
    host.type = m.type();
    return cb::scan(ctx, host, out, m, kind, init ? &init32 : nullptr, opt);
  }
  cb::scan(ctx, in, out, m, kind, init ? &init32 : nullptr, opt);
}

void copy_native(context& ctx, WGPUCommandEncoder encoder, const range_ref& in, const range_ref& out,
                 const run_options& opt) {
  if (encoder) no_encoder_call("copy", "copy");
  cb::copy(ctx, in, out, opt);
}

arg_result<std::uint32_t> arg_reduce_native(context& ctx, const range_ref& in, dtype t, arg_op o,
                                            const run_options& opt, const view_desc* view) {
  check_algorithm_name("arg_reduce", opt.algorithm);
  if (view) {  // the view's values first (not fused)
    const std::vector<std::uint32_t> values = view_values_on_host(ctx, *view);
    range_ref host = in;
    host.on_device = false;
    host.host = values.data();
    return cb::arg_reduce(ctx, host, t, o, opt);
  }
  return cb::arg_reduce(ctx, in, t, o, opt);
}

void arg_reduce_into_native(context&, WGPUCommandEncoder, const range_ref&, const range_ref&, dtype, arg_op o,
                            const run_options&) {
  cb::no_encoder(o == arg_op::max ? "argmax" : "argmin");
}

std::uint64_t select_native(context& ctx, WGPUCommandEncoder encoder, const range_ref& in, const device_view* in_count,
                            const range_ref* flags, const range_ref& out, const range_ref* count, select_mode mode,
                            bool partition, dtype type, const bound_predicate* pred, const run_options& opt) {
  if (encoder)
    cb::no_encoder(partition ? "partition"
                   : mode == select_mode::unique ? "unique"
                   : mode == select_mode::flags  ? "select_flagged"
                                                 : "select_if");
  check_algorithm_name("select", opt.algorithm);
  if (in_count) {
    // This backend runs eagerly: the count is read here, and the call runs on that prefix.
    std::uint32_t n = 0;
    std::memcpy(&n, static_cast<const unsigned char*>(in_count->host) + in_count->offset, 4);
    range_ref prefix = in;
    prefix.count = prefix.view.count = std::min<std::uint64_t>(n, in.count);
    range_ref f;
    if (flags) {
      f = *flags;
      f.count = f.view.count = prefix.count;
    }
    return cb::select(ctx, prefix, flags ? &f : nullptr, out, count, mode, partition, type, pred, opt);
  }
  return cb::select(ctx, in, flags, out, count, mode, partition, type, pred, opt);
}

std::uint64_t select_view_native(context& ctx, const view_desc& v, const range_ref& out, select_mode mode,
                                 bool partition, dtype t, const predicate* pred, const run_options& opt) {
  // The view's values first (not fused), its transform applied on the host, then the ordinary select over them.
  const buffer held = held_view_values(ctx, v);
  range_ref in;
  in.on_device = true;
  in.view = view_of(held, v.count);
  in.count = v.count;
  in.type = t;
  return select_run(ctx, nullptr, in, nullptr, out, nullptr, mode, partition, t, pred, opt);
}

// The native sort takes 32-bit keys, named by their dtype.
void sort_native(context& ctx, WGPUCommandEncoder encoder, const range_ref& keys_in, const range_ref& keys_out,
                 const range_ref* vals_in, const range_ref* vals_out, std::uint32_t key_words, sort_key_kind kind,
                 order ord, unsigned begin_bit, unsigned end_bit, const run_options& opt) {
  if (encoder) cb::no_encoder("sort");
  if (key_words != 1) throw error(errc::unsupported, "sort: the native CPU backend sorts 32-bit keys only");
  check_algorithm_name("sort", opt.algorithm);
  const dtype key_type = kind == sort_key_kind::floating     ? dtype::f32
                         : kind == sort_key_kind::signed_int ? dtype::i32
                                                             : dtype::u32;
  cb::sort(ctx, keys_in, keys_out, vals_in, vals_out, key_type, ord, begin_bit, end_bit, opt);
}

std::vector<unsigned> sort_passes_native(context& ctx) { return cb::sort_passes_run(ctx); }

void segmented_sort_native(context& ctx, const range_ref& keys, const range_ref* vals, const range_ref& offsets,
                           dtype key_type, order ord, unsigned begin_bit, unsigned end_bit, const run_options& opt) {
  check_algorithm_name("segmented_sort", opt.algorithm);
  // The offsets: the caller's host memory or a host buffer of this context, checked in one pass.
  const std::uint32_t* off = offsets.count == 0 ? nullptr
                             : offsets.on_device ? cb::host_in(ctx, offsets, "segmented sort offsets")
                                                 : static_cast<const std::uint32_t*>(offsets.host);
  check_offsets_host(off, offsets.count, keys.count, "segmented sort");
  cb::segmented_sort(ctx, keys, vals, off, offsets.count - 1, key_type, ord, begin_bit, end_bit, opt);
}

void comparator_sort_native(context& ctx, const range_ref& keys, const range_ref* vals, dtype,
                            const expr_program& less, const run_options& opt) {
  check_algorithm_name("comparator_sort", opt.algorithm);
  cb::sort_less(ctx, keys, vals, less, opt);
}

void segmented_scan_native(context& ctx, WGPUCommandEncoder encoder, const range_ref& in, const range_ref& offsets,
                           const range_ref& out, const monoid& m, scan_kind kind, const run_options& opt) {
  if (encoder) cb::no_encoder("segmented scan");
  check_algorithm_name("segmented_scan", opt.algorithm);
  cb::segmented_scan(ctx, in, offsets, out, m, kind, opt);
}

void segmented_reduce_native(context& ctx, WGPUCommandEncoder encoder, const range_ref& in, const range_ref& offsets,
                             const range_ref& out, const monoid& m, const run_options& opt) {
  if (encoder) cb::no_encoder("segmented reduce");
  check_algorithm_name("segmented_reduce", opt.algorithm);
  cb::segmented_reduce(ctx, in, offsets, out, m, opt);
}

std::uint64_t reduce_by_key_native(context& ctx, WGPUCommandEncoder encoder, const range_ref& keys, dtype key_type,
                                   const range_ref* values, const range_ref& unique_keys, const range_ref& sums,
                                   const monoid& m, const range_ref* runs_out, const run_options& opt) {
  const char* what = values ? "reduce_by_key" : "run_length_encode";
  if (encoder) cb::no_encoder(what);
  check_algorithm_name(what, opt.algorithm);
  return cb::reduce_by_key(ctx, keys, key_type, values, unique_keys, sums, m, runs_out, opt);
}

void histogram_native(context& ctx, WGPUCommandEncoder encoder, const range_ref& in, dtype t, const range_ref& counts,
                      const histogram_bins& b, const kernel_edges& ke, const run_options& opt) {
  if (encoder) cb::no_encoder("histogram");
  if (b.view) {
    // The view's values first (not fused), its transform applied on the host, then the ordinary histogram.
    const buffer held = held_view_values(ctx, *b.view);
    range_ref from = in;
    from.view = view_of(held, b.view->count);
    histogram_bins plain = b;
    plain.view = nullptr;
    return histogram_native(ctx, nullptr, from, t, counts, plain, ke, opt);
  }
  const std::uint32_t* levels = nullptr;
  if (b.levels) {
    levels = b.levels->on_device ? cb::host_in(ctx, *b.levels, "histogram levels")
                                 : static_cast<const std::uint32_t*>(b.levels->host);
    if (b.levels->on_device) check_levels(t, levels, b.levels->count);
  }
  check_algorithm_name("histogram", opt.algorithm);
  cb::histogram(ctx, in, t, counts, {levels ? levels : ke.bits.data(), ke.reach, ke.use_estimate, ke.lo, ke.scale},
                opt);
}

// This backend runs every call at once: a chain's calls get no encoder, counted calls read their count here.
WGPUCommandEncoder begin_chain_native(context&) { return nullptr; }
WGPUCommandEncoder begin_early_chain_native(context&, const device_view*) { return nullptr; }
finished_commands finish_chain_native(context&, WGPUCommandEncoder, const device_view*) {
  throw error(errc::gpu, "internal: the native backend records no chains");
}
void submit_chain_native(context&, finished_commands&) {
  throw error(errc::gpu, "internal: the native backend records no chains");
}
void drop_chain_native(finished_commands&) noexcept {}  // never holds one (begin_early_chain gives no encoder)

void copy_bytes_native(context&, WGPUCommandEncoder, const device_view& from, const device_view& to,
                       std::uint64_t bytes) {
  if (bytes)
    std::memcpy(static_cast<unsigned char*>(to.host) + to.offset,
                static_cast<const unsigned char*>(from.host) + from.offset, bytes);
}

// The prefix of a range that the count names.
range_ref prefix_of(const range_ref& r, const device_view& count) {
  range_ref p = r;
  p.count = p.view.count = std::min<std::uint64_t>(host_count(count), r.count);
  return p;
}

void sort_counted_native(context& ctx, WGPUCommandEncoder encoder, const range_ref& keys, const device_view& count,
                         const sort_order& o, std::uint32_t, const run_options& opt) {
  if (encoder) cb::no_encoder("sort");
  const range_ref p = prefix_of(keys, count);
  sort_run(ctx, nullptr, p, p, nullptr, nullptr, keys.type, o, opt);
}

std::uint64_t reduce_counted_native(context& ctx, WGPUCommandEncoder encoder, const range_ref& in,
                                    const device_view& count, const range_ref*, const monoid& m,
                                    const run_options& opt) {
  if (encoder) cb::no_encoder("reduce");
  return reduce_raw(ctx, prefix_of(in, count), m, nullptr, opt);
}

// One phase: the native sort's wall time.
std::vector<sort_phase> sort_phases_native(context& ctx, const buffer& keys_in, buffer& keys_out, std::size_t n,
                                           dtype key_type, sort_order so, const buffer* values_in,
                                           buffer* values_out, const run_options& opt) {
  run_stats st;
  run_options o = opt;
  o.stats = &st;
  sort_bits(ctx, keys_in, keys_out, n, key_type, so, values_in, values_out, o);
  return {{"native sort (all passes)", st.gpu_ms, false, false}};
}

std::string type_refusal_native(const context&, dtype t, const char* primitive) {
  return std::string(primitive) + " over " + dtype_name(t) +
         " needs a WebGPU context: the native CPU backend takes f32, i32 and u32 "
         "(context_options::backend = backend_choice::webgpu)";
}
}  // namespace

const backend_ops native_backend = {
    "native",
    reduce_native,
    exact_sum_native,
    reduce_into_native,
    scan_native,
    copy_native,
    arg_reduce_native,
    arg_reduce_into_native,
    select_native,
    select_view_native,
    sort_native,
    sort_passes_native,
    segmented_sort_native,
    comparator_sort_native,
    segmented_scan_native,
    segmented_reduce_native,
    reduce_by_key_native,
    histogram_native,
    begin_chain_native,
    begin_early_chain_native,
    finish_chain_native,
    submit_chain_native,
    drop_chain_native,
    copy_bytes_native,
    sort_counted_native,
    reduce_counted_native,
    sort_phases_native,
    type_refusal_native,
};

}  // namespace wgprim::detail
