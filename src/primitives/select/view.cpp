// select_if / partition / unique over a view (include/wgprim/view.hpp): the view is computed in the decoupled
// select's load (record_select with select_args::view); the native backend's row (primitives/backends.cpp)
// computes its values into a buffer of its own first and runs the ordinary select on it.
#include <optional>

#include "primitives/select/select.hpp"
#include "primitives/view.hpp"

#include "primitives/backend.hpp"
#include "wgprim/error.hpp"

namespace wgprim::detail {

std::uint64_t select_view_run(context& ctx, const view_desc& v, const range_ref& out, select_mode mode,
                              bool partition, const predicate* pred, const run_options& opt) {
  const char* what = partition ? "partition" : mode == select_mode::unique ? "unique" : "select_if";
  check_view_desc(ctx, v, what);
  const dtype t = v.value_type();
  require_type(ctx, t, "select");
  if (mode == select_mode::flags) throw error(errc::unsupported, "select_flagged does not take a view");
  if (!out.on_device) throw error(errc::invalid_argument, std::string(what) + ": a view's output is a device range");
  if (out.count < v.count)
    throw error(errc::invalid_argument, std::string(what) + ": the output holds " + std::to_string(out.count) +
                                            " elements, fewer than the view's " + std::to_string(v.count));
  check_view(ctx, out.view, what);
  if (view_reads(v, out.view))
    throw error(errc::invalid_argument, std::string(what) + ": the view reads the output's buffer");
  if (v.kind == view_desc::source::buffer && !v.tr) {
    // A plain buffer (a transform view's form with no expression): the ordinary select of that range.
    range_ref in;
    in.on_device = true;
    in.view = v.base;
    in.count = v.count;
    in.type = t;
    return select_run(ctx, nullptr, in, nullptr, out, nullptr, mode, partition, t, pred, opt);
  }
  return backend_of(ctx).select_view(ctx, v, out, mode, partition, t, pred, opt);
}

std::uint64_t select_view_webgpu(context& ctx, const view_desc& v, const range_ref& out, select_mode mode,
                                 bool partition, dtype t, const predicate* pred, const run_options& opt) {
  const char* what = partition ? "partition" : mode == select_mode::unique ? "unique" : "select_if";
  std::optional<bound_predicate> bound_pred;
  if (mode == select_mode::predicate) {
    if (!pred) throw error(errc::invalid_argument, std::string(what) + ": no predicate");
    bound_pred.emplace(*pred, t);
  }
  const algorithm_entry& alg = pick_algorithm(ctx, "select", opt.algorithm);  // once: what runs and is reported
  const std::string name = alg.name;
  buffer own_count = ctx.create_buffer(4);
  recorder rec(ctx, opt.timestamps || opt.stats);
  std::vector<buffer> temps;
  bindable_output o = bindable_output_of(rec, out.view);
  const view_desc bound = bindable_view(rec, v, temps);
  device_view in;
  in.count = v.count;
  select_args a{in, device_view{}, o.view, view_of(own_count, 1), mode, partition, t,
                bound_pred ? &*bound_pred : nullptr, &opt, nullptr};
  a.view = &bound;
  a.alg = &alg;
  std::uint32_t kept = 0;
  if (v.count) {
    record_select(rec, a);
    o.finish(rec);
  } else {
    rec.clear(own_count, 0, 4);
  }
  const gpu_time time = rec.submit();
  fill_stats(opt, time, name);
  ctx.read(own_count, 0, &kept, 4);
  return kept;
}

void materialize_view(context& ctx, const view_desc& v, const range_ref& out, const char* what, run_stats* spent) {
  // The select with a predicate that keeps every value: one pass that computes the view in its load and writes
  // every value in order (the primitives that do not fuse views yet read them from here).
  static const predicate every = predicate::expr("true");
  if (v.count > 0xffffffffull)
    throw error(errc::limit, std::string(what) + ": a view of " + std::to_string(v.count) +
                                 " values (at most 2^32 - 1 are computed into an array)");
  run_options o;
  o.stats = spent;
  const std::uint64_t kept = select_view_run(ctx, v, out, select_mode::predicate, false, &every, o);
  if (kept != v.count)
    throw error(errc::gpu, std::string(what) + ": computing the view wrote " + std::to_string(kept) + " of its " +
                               std::to_string(v.count) + " values");
}

void add_stats(const run_options& opt, const run_stats& before) {
  if (!opt.stats) return;
  opt.stats->gpu_ms += before.gpu_ms;
  opt.stats->compile_ms += before.compile_ms;
  opt.stats->lookback_fallbacks += before.lookback_fallbacks;
}

}  // namespace wgprim::detail
