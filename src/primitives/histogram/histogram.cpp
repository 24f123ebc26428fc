// Dispatch layer of the histogram: checks the arguments, turns NumPy's bin edges into the kernel's (exact key
// comparisons, see shaders/histogram/atomic.wgsl), moves host data, records the counting into a cleared
// temporary and copies the counts out.
#include "primitives/copy/widen.hpp"
#include "primitives/histogram/histogram.hpp"

#include <chrono>
#include <cmath>
#include <limits>

#include "core/host_checks.hpp"
#include "primitives/backend.hpp"
#include "primitives/view.hpp"

#include "wgprim/reference.hpp"
#include "wgprim/error.hpp"

namespace wgprim::detail {

namespace {

constexpr std::uint64_t max_bins = std::uint64_t(1) << 24;

}  // namespace

void histogram_run(context& ctx, WGPUCommandEncoder encoder, const range_ref& in, dtype t, const range_ref& counts,
                   const histogram_bins& b, const run_options& opt) {
  require_type(ctx, in.type, "histogram");
  require_type(ctx, t, "histogram");
  const std::uint64_t bins = b.bins;
  if (b.levels && b.levels->count < 2)
    throw error(errc::invalid_argument, "histogram: give at least 2 levels (the edges of one bin)");
  if (bins < 1 || bins > max_bins)
    throw error(errc::invalid_argument, "histogram: bins must be 1.." + std::to_string(max_bins) + ", got " +
                                            std::to_string(bins));
  if (counts.count != bins)
    throw error(errc::invalid_argument, "histogram: the counts hold " + std::to_string(counts.count) +
                                            " elements for " + std::to_string(bins) + " bins");
  if (in.on_device != counts.on_device || (b.levels && b.levels->on_device != in.on_device))
    throw error(errc::invalid_argument, "histogram: input, counts and levels must all be on the device or all on the host");
  if (in.on_device) {
    if (!b.view) check_view(ctx, in.view, "histogram input");
    check_view(ctx, counts.view, "histogram counts");
    if (b.levels) check_view(ctx, b.levels->view, "histogram levels");
  }

  kernel_edges ke;
  if (!b.levels) {
    ke = even_edges(t, bins, b.lo, b.hi);
  } else {
    ke.reach = static_cast<std::uint32_t>(bins);
    // Host levels are checked here, device levels by the backend (the WebGPU one reads them back).
    if (!in.on_device) check_levels(t, static_cast<const std::uint32_t*>(b.levels->host), b.levels->count);
  }
  backend_of(ctx).histogram(ctx, encoder, in, t, counts, b, ke, opt);
}

void histogram_webgpu(context& ctx, WGPUCommandEncoder encoder, const range_ref& in, dtype t, const range_ref& counts,
                      const histogram_bins& b, const kernel_edges& ke, const run_options& opt) {
  using clock = std::chrono::steady_clock;
  const std::uint64_t bins = b.bins;
  if (b.levels) {
    if (in.on_device && !encoder) {
      // The levels are few: read them back to check them (a caller's encoder gets no check: see histogram.hpp).
      std::vector<std::uint32_t> lv(b.levels->count);
      buffer tmp = ctx.create_buffer(lv.size() * 4);
      {
        recorder r(ctx);
        r.copy_raw(b.levels->view.buf, b.levels->view.offset, tmp.native(), 0, lv.size() * 4);
        r.submit();
      }
      ctx.read(tmp, 0, lv.data(), lv.size() * 4);
      check_levels(t, lv.data(), lv.size());
    }
  }

  const algorithm_entry& alg = pick_algorithm(ctx, "histogram", opt.algorithm);
  double upload_ms = 0;
  buffer up, up_levels;
  histogram_args a{in.view, t, {}, ke.reach, ke.use_estimate, ke.lo, ke.scale, ke.margin, {}, bins, &opt};
  if (!in.on_device) {
    auto t0 = clock::now();
    up = ctx.create_buffer(std::max<std::uint64_t>(in.count, 1) * 4);
    if (in.count) ctx.write(up, 0, in.host, in.count * 4);
    a.in = view_of(up, in.count);
    if (b.levels) {
      up_levels = ctx.create_buffer(b.levels->count * 4);
      ctx.write(up_levels, 0, b.levels->host, b.levels->count * 4);
    }
    ctx.finish();
    upload_ms = std::chrono::duration<double, std::milli>(clock::now() - t0).count();
  }
  const bool own = encoder == nullptr;
  recorder rec = own ? recorder(ctx, opt.timestamps || opt.stats) : recorder(ctx, encoder);
  std::vector<buffer> temps;
  buffer edges;
  if (!b.levels && ke.bits.size() * 4 <= 65536) {
    // Even edges are a function of (type, bins, lo, hi): kept by the context, not allocated and written per call.
    a.edges = view_of(constant_buffer(ctx, ke.bits.data(), ke.bits.size() * 4), ke.bits.size());
  } else if (!b.levels) {
    edges = ctx.create_buffer(ke.bits.size() * 4);
    wgpu_write(ctx, edges.native(), 0, ke.bits.data(), ke.bits.size() * 4);
    a.edges = view_of(edges, ke.bits.size());
  } else {
    a.edges = b.levels->on_device ? bindable_input(rec, b.levels->view, temps) : view_of(up_levels, b.levels->count);
  }
  view_desc bound;
  if (b.view) {
    bound = bindable_view(rec, *b.view, temps);
    a.view = &bound;
    a.in = device_view{};
    a.in.count = in.count;
  }
  if (in.count && !b.view) a.in = bindable_input(rec, a.in, temps);
  // Device counts at a bindable offset, in none of the buffers the pass reads: zeroed and counted where they are (no
  // dispatch copying them there after). Otherwise the counts' workspace kept by the context (no allocation or
  // zero-fill by wgpu per call), copied to device counts after.
  const std::uint64_t align = std::max<std::uint32_t>(ctx.limits().min_storage_buffer_offset_alignment, 4);
  const bool direct = counts.on_device && !b.view && counts.view.offset % align == 0 &&
                      counts.view.buf != a.in.buf && counts.view.buf != a.edges.buf;
  const buffer& cnt = scratch(ctx, "histogram.counts", bins * 4);
  device_view where = counts.view;
  where.count = bins;
  a.counts = direct ? where : view_of(cnt, bins);
  record_zero(rec, a.counts.buf, a.counts.offset, bins * 4);  // a dispatch: the compute pass stays open
  if (in.count) record_histogram(rec, a);
  if (counts.on_device && !direct)
    record_copy_words(rec, cnt.native(), 0, counts.view.buf, counts.view.offset, bins * 4);
  if (!own) {
    rec.end();
    return;
  }
  // Host counts of up to 1 MiB come back in the same submission (one submit, one wait); more through a read.
  const bool with_run = !counts.on_device && bins * 4 <= (1u << 20);
  const recorder::readback rb{cnt.native(), 0, bins * 4, with_run ? counts.host_out : nullptr};
  fill_stats(opt, rec.submit(with_run ? &rb : nullptr), alg.name);
  if (opt.stats) opt.stats->upload_ms = upload_ms;
  if (!counts.on_device && !with_run) {
    auto t1 = clock::now();
    ctx.read(cnt, 0, counts.host_out, bins * 4);
    if (opt.stats) opt.stats->download_ms = std::chrono::duration<double, std::milli>(clock::now() - t1).count();
  }
}

void histogram_view_run(context& ctx, const view_desc& v, const range_ref& counts, histogram_bins b,
                        const run_options& opt) {
  check_view_desc(ctx, v, "histogram");
  if (!counts.on_device || (b.levels && !b.levels->on_device))
    throw error(errc::invalid_argument, "histogram: a view's counts (and levels) are device ranges");
  range_ref in;
  in.on_device = true;
  in.count = v.count;
  in.type = v.value_type();
  if (v.kind == view_desc::source::buffer && !v.tr) {
    in.view = v.base;  // a plain buffer (a transform view's form with no expression): the ordinary range
  } else {
    b.view = &v;
  }
  histogram_run(ctx, nullptr, in, in.type, counts, b, opt);
}

}  // namespace wgprim::detail
