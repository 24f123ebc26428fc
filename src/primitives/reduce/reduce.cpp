// Dispatch layer of reduce: checks the arguments, picks the algorithm from the registry, makes the views
// bindable, records the passes (record_reduce), submits and reads the result back.
#include "primitives/reduce/reduce.hpp"

#include "backends/cpu/backend.hpp"

#include <chrono>

#include "wgprim/error.hpp"
#include "wgprim/reduce.hpp"

namespace wgprim {

const char* accuracy_name(accuracy a) {
  switch (a) {
    case accuracy::fast: return "fast";
    case accuracy::compensated: return "compensated";
    case accuracy::reproducible: return "reproducible";
  }
  return "?";
}

accuracy parse_accuracy(const std::string& s) {
  if (s == "fast") return accuracy::fast;
  if (s == "compensated") return accuracy::compensated;
  if (s == "reproducible") return accuracy::reproducible;
  throw error(errc::invalid_argument, "unknown accuracy '" + s + "' (expected fast, compensated or reproducible)");
}

namespace detail {

bool reduce_args::pairs() const {
  return m->is_sum() && m->type() == dtype::f32 && opt->accuracy != accuracy::fast;
}

namespace {
// The name reported for what ran: accuracy modes other than fast choose their own algorithm.
std::string ran(const reduce_args& a, const algorithm_entry& alg) {
  if (!a.pairs()) return alg.name;
  return a.opt->accuracy == accuracy::reproducible ? "reproducible" : "fast-compensated";
}
}  // namespace

void record_reduce(recorder& rec, const reduce_args& a) {
  const algorithm_entry& alg = pick_algorithm(rec.ctx(), "reduce", a.opt->algorithm);
  if (a.pairs() && a.opt->accuracy == accuracy::reproducible) return record_reduce_reproducible(rec, a);
  if (a.pairs()) return record_reduce_fast(rec, a);
  const std::string name = alg.name;
  if (name == "seed") return record_reduce_seed(rec, a);
  if (name == "render") return record_reduce_render(rec, a);
  return record_reduce_fast(rec, a);
}

std::uint32_t reduce_bits(context& ctx, const range_ref& in, const monoid& m, const std::uint32_t* init,
                          const run_options& opt) {
  if (cpu_backend::native(ctx)) return cpu_backend::reduce(ctx, in, m, init, opt);
  using clock = std::chrono::steady_clock;
  const algorithm_entry& alg = pick_algorithm(ctx, "reduce", opt.algorithm);
  reduce_args a{in.view, &m, nullptr, 0, 0, &opt};
  const std::string name = ran(a, alg);
  if (in.on_device) check_view(ctx, in.view, "reduce input");
  auto finish = [&](std::uint32_t bits) { return init ? m.combine(*init, bits) : bits; };
  if (in.count == 0) {
    if (opt.stats) *opt.stats = run_stats{0, false, 0, 0, name, 0};
    return finish(m.identity_bits());
  }
  double upload_ms = 0;
  buffer uploaded;
  if (!in.on_device) {
    auto t0 = clock::now();
    uploaded = ctx.create_buffer(in.count * 4);
    ctx.write(uploaded, 0, in.host, in.count * 4);
    ctx.finish();
    upload_ms = std::chrono::duration<double, std::milli>(clock::now() - t0).count();
    a.in = view_of(uploaded, in.count);
  }
  const bool pairs = a.pairs();
  buffer result = ctx.create_buffer(pairs ? 8 : 4);
  a.result = result.native();
  a.result_bytes = result.size_bytes();
  recorder rec(ctx, opt.timestamps || opt.stats);
  std::vector<buffer> temps;
  a.in = bindable_input(rec, a.in, temps);
  record_reduce(rec, a);
  gpu_time t = rec.submit();
  std::uint32_t bits[2];
  // A pair's leading part is the correctly rounded value of hi + lo (combine ends with FastTwoSum).
  ctx.read(result, 0, bits, pairs ? 8 : 4);
  fill_stats(opt, t, name);
  if (opt.stats) opt.stats->upload_ms = upload_ms;
  return finish(bits[0]);
}

void reduce_record(context& ctx, WGPUCommandEncoder encoder, const range_ref& in, const range_ref& result,
                   const monoid& m, const run_options& opt) {
  if (cpu_backend::native(ctx))
    throw error(errc::unsupported, "reduce into a WGPUCommandEncoder needs a WebGPU context; this one runs the "
                                   "native CPU backend (call reduce without an encoder)");
  reduce_args a{in.view, &m, result.view.buf, result.view.capacity, 0, &opt};
  pick_algorithm(ctx, "reduce", opt.algorithm);
  check_view(ctx, in.view, "reduce input");
  if (result.count == 0) throw error(errc::invalid_argument, "reduce: the result span is empty");
  check_view(ctx, result.view, "reduce result");
  if (a.pairs()) throw error(errc::unsupported, "reduce into a caller's encoder supports accuracy::fast only");
  a.result_index = static_cast<std::uint32_t>(result.view.offset / 4);
  if (result.view.offset / 4 > 0xffffffffull)
    throw error(errc::limit, "reduce: the result lies past the 4 GiB a kernel can index");
  recorder rec(ctx, encoder);
  if (in.count == 0) {
    std::uint32_t id = m.identity_bits();
    wgpu_write(ctx, result.view.buf, result.view.offset, &id, 4);
  } else {
    std::vector<buffer> temps;
    a.in = bindable_input(rec, a.in, temps);
    record_reduce(rec, a);
  }
  rec.end();
}

}  // namespace detail
}  // namespace wgprim
