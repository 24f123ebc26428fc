// Dispatch layer of arg-min / arg-max: checks the arguments (an empty range is an error, as in NumPy), picks the
// algorithm, makes the views bindable, records (record_arg_reduce), then submits and reads the three result words
// back, or leaves them in the caller's encoder.
#include "primitives/arg_reduce/arg_reduce.hpp"

#include <chrono>

#include "primitives/backend.hpp"
#include "primitives/view.hpp"

#include "wgprim/error.hpp"

namespace wgprim::detail {

namespace {
const char* op_name(arg_op o) { return o == arg_op::max ? "argmax" : "argmin"; }

void check_not_empty(const range_ref& in, arg_op o) {
  if (in.count == 0)
    throw error(errc::invalid_argument,
                std::string(op_name(o)) + " of an empty range: there is no extreme value (NumPy raises ValueError)");
}
}  // namespace

void record_arg_reduce(recorder& rec, const arg_reduce_args& a) {
  (a.alg ? *a.alg : pick_algorithm(rec.ctx(), "arg_reduce", a.opt->algorithm)).record(rec, &a);
}

arg_result<std::uint32_t> arg_reduce_bits(context& ctx, const range_ref& in, dtype t, arg_op o,
                                          const run_options& opt) {
  require_type(ctx, in.type, "arg_reduce");
  require_type(ctx, t, "arg_reduce");
  check_not_empty(in, o);
  return backend_of(ctx).arg_reduce(ctx, in, t, o, opt, nullptr);
}

arg_result<std::uint32_t> arg_reduce_webgpu(context& ctx, const range_ref& in, dtype t, arg_op o,
                                            const run_options& opt, const view_desc* view) {
  const algorithm_entry& alg = pick_algorithm(ctx, "arg_reduce", opt.algorithm);
  if (in.on_device && !view) check_view(ctx, in.view, op_name(o));
  arg_reduce_args a{in.view, t, o, nullptr, 0, 0, &opt};
  a.alg = &alg;
  double upload_ms = 0;
  buffer uploaded;
  if (!in.on_device) {
    a.in = upload_host(ctx, in, uploaded, &upload_ms);
  }
  const buffer& result = scratch(ctx, "arg_reduce.result", 16);
  a.result = result.native();
  a.result_bytes = 16;
  recorder rec(ctx, opt.timestamps || opt.stats);
  std::vector<buffer> temps;
  view_desc bound;
  if (view) {
    bound = bindable_view(rec, *view, temps);
    a.view = &bound;
    a.in.count = view->count;
  } else {
    a.in = bindable_input(rec, a.in, temps);
  }
  record_arg_reduce(rec, a);
  // the three result words come back in the same submission (one submit, one wait)
  std::uint32_t words[3];
  const recorder::readback rb{result.native(), 0, sizeof words, words};
  gpu_time time = rec.submit(&rb);
  fill_stats(opt, time, alg.name);
  if (opt.stats && !view) opt.stats->upload_ms = upload_ms;
  return {words[0], words[1] | (std::uint64_t(words[2]) << 32)};
}

arg_result<std::uint32_t> arg_reduce_view_bits(context& ctx, const view_desc& v, arg_op o, const run_options& opt) {
  check_view_desc(ctx, v, op_name(o));
  if (v.tr || v.kind == view_desc::source::buffer) {
    // Not fused: the arg-reduce's load has no transform hook (its accumulators hold the loaded type). The view's
    // values go to a temporary array first, which is then reduced as a range.
    const dtype t = v.value_type();
    range_ref in;
    in.on_device = true;
    in.count = v.count;
    in.type = t;
    check_not_empty(in, o);
    buffer values = ctx.create_buffer(v.count * 4);
    in.view = device_span<const std::uint32_t>(values, 0, v.count).view();
    range_ref out = in;
    run_stats spent;
    materialize_view(ctx, v, out, op_name(o), opt.stats || opt.timestamps ? &spent : nullptr);
    const arg_result<std::uint32_t> r = arg_reduce_bits(ctx, in, t, o, opt);
    add_stats(opt, spent);
    return r;
  }
  range_ref in;
  in.on_device = true;
  in.count = v.count;
  in.type = v.type;
  check_not_empty(in, o);
  return backend_of(ctx).arg_reduce(ctx, in, v.type, o, opt, &v);
}

void arg_reduce_record(context& ctx, WGPUCommandEncoder encoder, const range_ref& in, const range_ref& result,
                       dtype t, arg_op o, const run_options& opt) {
  require_type(ctx, in.type, "arg_reduce");
  require_type(ctx, t, "arg_reduce");
  backend_of(ctx).arg_reduce_into(ctx, encoder, in, result, t, o, opt);
}

void arg_reduce_into_webgpu(context& ctx, WGPUCommandEncoder encoder, const range_ref& in, const range_ref& result,
                            dtype t, arg_op o, const run_options& opt) {
  const algorithm_entry& alg = pick_algorithm(ctx, "arg_reduce", opt.algorithm);
  check_view(ctx, in.view, op_name(o));
  check_not_empty(in, o);
  if (result.count < arg_result_words)
    throw error(errc::invalid_argument, std::string(op_name(o)) + ": the result span needs " +
                                            std::to_string(arg_result_words) + " words (value, index low, high)");
  check_view(ctx, result.view, "arg reduce result");
  if (result.view.offset / 4 + arg_result_words > 0xffffffffull)
    throw error(errc::limit, "arg reduce: the result lies past the 16 GiB a kernel can index");
  arg_reduce_args a{in.view, t, o, result.view.buf, result.view.capacity, static_cast<std::uint32_t>(result.view.offset / 4),
                    &opt};
  a.alg = &alg;
  recorder rec(ctx, encoder);
  std::vector<buffer> temps;
  // The result is bound writable and whole: an input in the same buffer is read through a copy.
  a.in = bindable_input(rec, a.in, temps, &result.view);
  record_arg_reduce(rec, a);
  rec.end();
}

}  // namespace wgprim::detail
