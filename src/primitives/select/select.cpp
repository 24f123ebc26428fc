// Dispatch layer of select / partition / unique: checks the arguments, picks the algorithm from the registry,
// makes the views bindable (aligned; an input aliasing the output is read from a copy), records the passes
// (record_select), submits, reads the count back where the caller asked for it, and moves host data.
#include "primitives/select/select.hpp"

#include <chrono>
#include <cstring>
#include <optional>

#include "primitives/backend.hpp"

#include "wgprim/error.hpp"

namespace wgprim::detail {

std::uint64_t select_fallback_slots(const context& ctx, std::uint64_t n) {
  // One counter per (chunk, output window) dispatch; chunks are whole tiles of at most 8 x 1,024 elements.
  const std::uint64_t chunk = elements_per_binding(ctx, 4, 8192);
  const std::uint64_t c = (n + chunk - 1) / chunk + 1;
  return c * c;
}

void record_select(recorder& rec, const select_args& a) {
  (a.alg ? *a.alg : pick_algorithm(rec.ctx(), "select", a.opt->algorithm)).record(rec, &a);
}

namespace {
const char* op_name(select_mode mode, bool partition) {
  if (partition) return "partition";
  return mode == select_mode::unique ? "unique" : mode == select_mode::flags ? "select_flagged" : "select_if";
}
}  // namespace

namespace {
std::uint64_t select_impl(context& ctx, WGPUCommandEncoder encoder, const range_ref& in, const device_view* in_count,
                          const range_ref* flags, const range_ref& out, const range_ref* count, select_mode mode,
                          bool partition, dtype type, const predicate* pred, const run_options& opt) {
  require_type(ctx, in.type, "select");
  require_type(ctx, type, "select");
  const std::string what = op_name(mode, partition);
  auto fail = [&](const std::string& why) { return error(errc::invalid_argument, what + ": " + why); };
  if (in.on_device != out.on_device || (flags && flags->on_device != in.on_device))
    throw fail("input, flags and output must all be on the device or all on the host");
  if (out.count < in.count)
    throw fail("the output holds " + std::to_string(out.count) + " elements, fewer than the input's " +
               std::to_string(in.count));
  if (flags && flags->count != in.count)
    throw fail("the flags hold " + std::to_string(flags->count) + " elements, the input " + std::to_string(in.count));
  if (count && (!count->on_device || count->count < 1)) throw fail("the count must be a device range of one u32");
  if (encoder && !count) throw fail("recording into an encoder needs a device range for the count");
  if (in.count > 0xffffffffull) throw error(errc::limit, what + ": at most 2^32 - 1 elements");
  std::optional<bound_predicate> bound;
  if (mode == select_mode::predicate) {
    if (!pred) throw fail("no predicate");
    bound.emplace(*pred, type);  // checks the expression before any GPU work
  }
  if (in_count && (!in.on_device || !count)) throw fail("a counted input needs device ranges and a device count");
  if (in_count) check_view(ctx, *in_count, (what + " input count").c_str());
  return backend_of(ctx).select(ctx, encoder, in, in_count, flags, out, count, mode, partition, type,
                                bound ? &*bound : nullptr, opt);
}
}  // namespace

std::uint64_t select_webgpu(context& ctx, WGPUCommandEncoder encoder, const range_ref& in, const device_view* in_count,
                            const range_ref* flags, const range_ref& out, const range_ref* count, select_mode mode,
                            bool partition, dtype type, const bound_predicate* pred, const run_options& opt) {
  using clock = std::chrono::steady_clock;
  const std::string what = op_name(mode, partition);
  auto fail = [&](const std::string& why) { return error(errc::invalid_argument, what + ": " + why); };
  const algorithm_entry& alg = pick_algorithm(ctx, "select", opt.algorithm);  // once: what runs and is reported
  const std::string name = alg.name;
  if (in.on_device) {
    check_view(ctx, in.view, (what + " input").c_str());
    check_view(ctx, out.view, (what + " output").c_str());
    if (flags) check_view(ctx, flags->view, (what + " flags").c_str());
  }
  device_view count_view;
  if (count) {
    count_view = count->view;
    count_view.count = 1;
    check_view(ctx, count_view, (what + " count").c_str());
    const device_view& o = out.view;
    if (count_view.buf == o.buf && count_view.offset < o.offset + o.bytes() && o.offset < count_view.offset + 4)
      throw fail("the count lies inside the output range");
  }

  select_args a{in.view, flags ? flags->view : device_view{}, out.view, count_view, mode, partition, type,
                pred, &opt, nullptr};
  a.alg = &alg;
  if (in_count) {
    a.in_count = *in_count;
    a.in_count.count = 1;
  }
  double upload_ms = 0;
  buffer up, up_flags, down;
  const std::uint64_t n = in.count;
  if (!in.on_device) {
    auto t0 = clock::now();
    up = ctx.create_buffer(std::max<std::uint64_t>(n, 1) * 4);
    if (n) ctx.write(up, 0, in.host, n * 4);
    a.in = view_of(up, n);
    if (flags) {
      up_flags = ctx.create_buffer(std::max<std::uint64_t>(n, 1) * 4);
      if (n) ctx.write(up_flags, 0, flags->host, n * 4);
      a.flags = view_of(up_flags, n);
    }
    ctx.finish();
    upload_ms = std::chrono::duration<double, std::milli>(clock::now() - t0).count();
    down = ctx.create_buffer(std::max<std::uint64_t>(n, 1) * 4);
    a.out = view_of(down, n);
  }
  if (!count) a.count = view_of(scratch(ctx, "select.count", 4), 1);
  const bool own = encoder == nullptr;
  recorder rec = own ? recorder(ctx, opt.timestamps || opt.stats) : recorder(ctx, encoder);
  std::vector<buffer> temps;
  bindable_output o = bindable_output_of(rec, a.out);
  a.out = o.view;
  a.in = bindable_input(rec, a.in, temps, &a.out);
  if (flags) a.flags = bindable_input(rec, a.flags, temps, &a.out);
  buffer fallbacks;
  if (own && opt.stats && n) {
    fallbacks = ctx.create_buffer(select_fallback_slots(ctx, n) * 4);
    a.fallbacks = &fallbacks;
  }
  record_select(rec, a);
  o.finish(rec);
  if (!own) {
    rec.end();
    return 0;
  }
  // The kept count comes back in the same submission (one submit, one wait), unless the caller keeps it on the device.
  std::uint32_t kept = 0;
  const recorder::readback rb{a.count.buf, a.count.offset, 4, &kept};
  gpu_time t = rec.submit(count ? nullptr : &rb);
  fill_stats(opt, t, name);
  if (opt.stats) opt.stats->upload_ms = upload_ms;
  fill_fallbacks(ctx, opt, fallbacks);
  if (count) return 0;  // the count stays on the device, where the caller asked for it
  if (!in.on_device) {
    auto t1 = clock::now();
    const std::uint64_t m = partition ? n : kept;
    if (m) ctx.read(down, 0, out.host_out, m * 4);
    if (opt.stats) opt.stats->download_ms = std::chrono::duration<double, std::milli>(clock::now() - t1).count();
  }
  return kept;
}

std::uint64_t select_run(context& ctx, WGPUCommandEncoder encoder, const range_ref& in, const range_ref* flags,
                         const range_ref& out, const range_ref* count, select_mode mode, bool partition, dtype type,
                         const predicate* pred, const run_options& opt) {
  return select_impl(ctx, encoder, in, nullptr, flags, out, count, mode, partition, type, pred, opt);
}

std::uint64_t select_run_counted(context& ctx, WGPUCommandEncoder encoder, const range_ref& in,
                                 const device_view& in_count, const range_ref* flags, const range_ref& out,
                                 const range_ref* count, select_mode mode, bool partition, dtype type,
                                 const predicate* pred, const run_options& opt) {
  return select_impl(ctx, encoder, in, &in_count, flags, out, count, mode, partition, type, pred, opt);
}

}  // namespace wgprim::detail
