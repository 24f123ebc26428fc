// Dispatch layer of scan: checks the arguments, picks the algorithm from the registry, makes the views bindable
// (aligned, in-place scans read from a copy), records the passes (record_scan), submits, and moves host data.
#include "primitives/scan/scan.hpp"

#include "primitives/backend.hpp"

#include <chrono>
#include <memory>

#include "primitives/copy/widen.hpp"
#include "primitives/view.hpp"
#include "wgprim/error.hpp"

namespace wgprim::detail {

bool scan_args::pairs() const {
  return m->is_sum() && m->type() == dtype::f32 && opt->accuracy == accuracy::compensated;
}

bool scan_args::exact() const {
  return m->is_sum() && m->type() == dtype::f32 && opt->accuracy == accuracy::reproducible;
}

std::uint64_t scan_fallback_slots(const context& ctx, std::uint64_t n) {
  // The decoupled scan's chunks are whole tiles of at most 8 x 1,024 elements.
  const std::uint64_t chunk = elements_per_binding(ctx, 8, 8192);  // 64-bit elements: the most chunks
  return (n + chunk - 1) / chunk + 1;
}

const algorithm_entry& resolve_scan(const context& ctx, const scan_args& a) {
  // Reproducible (exact) f32 sums: the exact prefix sums, correctly rounded (scan/exact.cpp), whatever the
  // algorithm asked; compensated f32 sums: the seed's shape with double-word accumulation (the registry's
  // accuracy paths).
  const accuracy acc = a.exact() ? accuracy::reproducible : a.pairs() ? accuracy::compensated : accuracy::fast;
  return resolve_algorithm(ctx, "scan", a.opt->algorithm, a.in.count, acc);
}

void record_scan(recorder& rec, const scan_args& a) {
  const algorithm_entry& alg = a.alg ? *a.alg : resolve_scan(rec.ctx(), a);
  // A view is read through the decoupled scan's load (the seed's and the accuracy paths' kernels read buffers).
  if (a.view && alg.id != algorithm_id::scan_decoupled)
    throw error(errc::unsupported, "a view input runs on the decoupled scan with accuracy::fast");
  alg.record(rec, &a);
}

namespace {
void scan_impl(context& ctx, WGPUCommandEncoder encoder, const range_ref& in, const range_ref& out, const monoid& m,
               scan_kind kind, const std::uint64_t* init, const run_options& opt, const superaccumulator* carry,
               const view_desc* view, const bound_transform* tr);
}  // namespace

void scan_run_exact_carry(context& ctx, const range_ref& in, const range_ref& out, scan_kind kind,
                          const superaccumulator& carry, const run_options& opt) {
  if (opt.accuracy != accuracy::reproducible)
    throw error(errc::invalid_argument, "internal: an accumulator carry is for accuracy::reproducible scans");
  const monoid m(op::sum(), dtype::f32);
  scan_impl(ctx, nullptr, in, out, m, kind, nullptr, opt, &carry, nullptr, nullptr);
}

namespace {
// scan_run, exact scans from a carried accumulator (carry: dist::scan), and scans of a view (view: checked by the
// caller; in.count / in.type are the view's, on the device).
void scan_impl(context& ctx, WGPUCommandEncoder encoder, const range_ref& in, const range_ref& out, const monoid& m,
               scan_kind kind, const std::uint64_t* init, const run_options& opt, const superaccumulator* carry,
               const view_desc* view, const bound_transform* tr) {
  require_type(ctx, is_narrow(in.type) ? in.type : m.type(), "scan", /*narrow_ok=*/true, /*wide_ok=*/true);
  if ((!is_narrow(in.type) && dtype_bytes(in.type) != dtype_bytes(m.type())) ||
      dtype_bytes(out.type) != dtype_bytes(m.type()))
    throw error(errc::invalid_argument, std::string("scan: ") + dtype_name(m.type()) + " operator over " +
                                            dtype_name(in.type) + " elements into " + dtype_name(out.type) +
                                            " (the widths differ)");
  if (is_narrow(in.type) && accumulation_type(in.type) != m.type())
    throw error(errc::invalid_argument, std::string("scan: ") + dtype_name(in.type) + " elements accumulate in " +
                                            dtype_name(accumulation_type(in.type)) + ", not " + dtype_name(m.type()));
  if (m.type() == dtype::f64 && opt.accuracy != accuracy::fast)
    throw error(errc::unsupported, std::string("accuracy::") + accuracy_name(opt.accuracy) +
                                       " is for f32 sums; f64 scans are accumulated in f64 (accuracy::fast)");
  backend_of(ctx).scan(ctx, encoder, in, out, m, kind, init, opt, carry, view, tr);
}
}  // namespace

void scan_webgpu(context& ctx, WGPUCommandEncoder encoder, const range_ref& in, const range_ref& out, const monoid& m,
                 scan_kind kind, const std::uint64_t* init, const run_options& opt, const superaccumulator* carry,
                 const view_desc* view, const bound_transform* tr) {
  const std::uint32_t ob = dtype_bytes(m.type());
  using clock = std::chrono::steady_clock;
  if (in.on_device != out.on_device)
    throw error(errc::invalid_argument, "scan: input and output must both be on the device or both on the host");
  if (in.count != out.count)
    throw error(errc::invalid_argument, "scan: the output holds " + std::to_string(out.count) +
                                            " elements, the input " + std::to_string(in.count));
  if (opt.check_operator) m.check(/*need_commutative=*/false);
  scan_args a{in.view, out.view, &m, kind, init, &opt, nullptr};
  a.exact_init = carry;
  const algorithm_entry& alg = resolve_scan(ctx, a);  // once: what runs and what the statistics name
  a.alg = &alg;
  const std::string name = alg.name;
  if (view && !out.on_device) throw error(errc::invalid_argument, "scan: a view's scan writes a device range");
  if (in.on_device) {
    if (!view) check_view(ctx, in.view, "scan input");
    check_view(ctx, out.view, "scan output");
  }
  if (in.count == 0) {
    if (opt.stats) *opt.stats = run_stats{0, false, 0, 0, name, 0};
    return;
  }
  double upload_ms = 0;
  buffer up, down;
  if (!in.on_device) {
    a.in = upload_host(ctx, in, up, &upload_ms);
    down = ctx.create_buffer(in.count * ob);
    a.out = view_of(down, in.count, ob);
  }
  const bool own = encoder == nullptr;
  recorder rec = own ? recorder(ctx, opt.timestamps || opt.stats) : recorder(ctx, encoder);
  std::vector<buffer> temps;
  bindable_output o = bindable_output_of(rec, a.out);
  a.out = o.view;
  view_desc bound;
  if (view) {
    bound = bindable_view(rec, *view, temps);
    a.view = &bound;
    a.transform = tr;
    a.in.count = view->count;
  } else {
    a.in = bindable_input(rec, a.in, temps, &a.out);
  }
  if (is_narrow(in.type) && !view) {
    // Packed storage types are widened into a temporary of their accumulation type first (one extra pass).
    temps.push_back(ctx.create_buffer(in.count * ob));
    const device_view wide = view_of(temps.back(), in.count, ob);
    record_widen(rec, a.in, in.type, wide);
    a.in = wide;
  }
  buffer fallbacks;
  if (own && opt.stats && alg.counts_fallbacks && !view) {
    fallbacks = ctx.create_buffer(scan_fallback_slots(ctx, in.count) * 4);
    a.fallbacks = &fallbacks;
  }
  record_scan(rec, a);
  o.finish(rec);
  if (!own) {
    rec.end();
    return;
  }
  gpu_time t = rec.submit();
  fill_stats(opt, t, name);
  if (opt.stats) opt.stats->upload_ms = upload_ms;
  fill_fallbacks(ctx, opt, fallbacks);
  if (!in.on_device) {
    auto t1 = clock::now();
    ctx.read(down, 0, out.host_out, in.count * ob);
    if (opt.stats) opt.stats->download_ms = std::chrono::duration<double, std::milli>(clock::now() - t1).count();
  }
}

void scan_run(context& ctx, WGPUCommandEncoder encoder, const range_ref& in, const range_ref& out, const monoid& m,
              scan_kind kind, const std::uint64_t* init, const run_options& opt) {
  scan_impl(ctx, encoder, in, out, m, kind, init, opt, nullptr, nullptr, nullptr);
}

void scan_view_run(context& ctx, const view_desc& v, const range_ref& out, const monoid& m, scan_kind kind,
                   const std::uint64_t* init, const run_options& opt) {
  check_view_desc(ctx, v, "scan");
  std::unique_ptr<bound_transform> tr;
  if (v.tr) {
    tr = std::make_unique<bound_transform>(*v.tr, v.type);
    check_transform_type(*tr, m.type());
  } else if (v.type != m.type()) {
    throw error(errc::invalid_argument, std::string("scan: ") + dtype_name(m.type()) + " operator over a view of " +
                                            dtype_name(v.type));
  }
  range_ref in;
  in.on_device = true;
  in.count = v.count;
  in.type = m.type();  // the checks compare the monoid's type with the values the view yields
  in.view = v.base;
  scan_impl(ctx, nullptr, in, out, m, kind, init, opt, nullptr, &v, tr.get());
}

}  // namespace wgprim::detail
