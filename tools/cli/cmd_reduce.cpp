// `wgprim reduce`: reduce an array to one value, checked against the CPU twin (for f32 sums: the exact sum, and the
// naive running total beside it). --op argmin|argmax, --transform, the types beyond f32/i32/u32 and --segments/--keys
// hand over to reduce_arg.cpp, reduce_transform.cpp, reduce_scan_typed.cpp and segmented.cpp.
#include <fmt/core.h>
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>
#include <vector>
#include <memory>

#include "command.hpp"
#include "json_value.hpp"
#include "plot.hpp"
#include "reduce_scan.hpp"
#include "util.hpp"
#include "word_elements.hpp"

using json = nlohmann::json;
using namespace wgprim;

json reduce_and_check(context& ctx, const reduce_scan_cli& c, const io::array& a) {
  op o = op::parse(c.op, c.identity);
  monoid m(o, a.type);
  const std::size_t n = a.bits.size();
  run_stats st;
  run_options ro;
  ro.algorithm = c.algorithm;
  ro.check_operator = !c.no_check;
  ro.stats = &st;
  // Upload separately so its time is reported on its own (the seed's lesson: it costs more than the reduce).
  std::uint32_t gpu = m.identity_bits();
  const bool f32_sum = m.is_sum() && a.type == dtype::f32;
  const bool exact_mode = f32_sum && parse_accuracy(c.accuracy) == accuracy::exact;
  exact_sum_result gpu_exact;
  double upload_ms = 0, compile_ms = 0;
  buffer in;
  if (n) {
    upload_ms = upload(ctx, a, in);
    ro.tune = c.tune;
    ro.accuracy = parse_accuracy(c.accuracy);
    auto once = [&] {
      if (exact_mode) {  // the same GPU work as reduce_bits, keeping the accumulator to compare with the CPU's
        gpu_exact = exact_sum(ctx, in, n, ro);
        gpu = to_bits(gpu_exact.value);
      } else {
        gpu = reduce_bits(ctx, in, n, m, ro);
      }
    };
    const first_call warm = warm_up(once, st);
    std::vector<double> times;
    for (int r = 0; r < c.repeat; ++r) {
      once();
      times.push_back(st.gpu_ms);
    }
    std::sort(times.begin(), times.end());
    st.gpu_ms = times[times.size() / 2];
    compile_ms = warm.compile_ms + std::max(0.0, warm.gpu_ms - st.gpu_ms);
  } else {
    gpu = reduce_bits(ctx, ctx.create_buffer(4), 0, m, ro);
  }

  json j = {{"op", o.is_custom() ? o.expression() : o.name()}, {"type", dtype_name(a.type)}, {"n", n},
            {"algorithm", st.algorithm}, {"adapter", ctx.adapter().name}};
  put_value(j, "result", a.type, gpu);
  // The plain CPU loop, timed; for f32 sums it is also the naive running total.
  auto t0 = std::chrono::steady_clock::now();
  std::uint32_t cpu_bits;
  if (m.is_sum() && a.type == dtype::f32) {
    float acc = 0;
    for (std::uint32_t b : a.bits) acc += from_bits<float>(b);
    cpu_bits = to_bits(acc);
  } else if (m.is_sum()) {
    std::uint32_t acc = 0;
    for (std::uint32_t b : a.bits) acc += b;
    cpu_bits = acc;
  } else {
    cpu_bits = reference::reduce(a.bits.data(), n, m);
  }
  double cpu_ms = ms_since(t0);
  superaccumulator cpu_exact;  // the CPU twin of the exact sum (f32 sums)
  if (f32_sum) {
    const float* x = reinterpret_cast<const float*>(a.bits.data());
    cpu_exact.add(x, n);
    double exact = cpu_exact.to_double();
    j["exact"] = std::isfinite(exact) ? json(exact) : json(nullptr);
    j["exact_text"] = cpu_exact.to_decimal();
    put_value(j, "correctly_rounded", a.type, to_bits(cpu_exact.round_to_float()));
    put_value(j, "naive", a.type, cpu_bits);
    j["accuracy"] = c.accuracy;
    j["gpu_ulps"] = reference::ulp_error_f32(from_bits<float>(gpu), exact);
    j["naive_ulps"] = reference::ulp_error_f32(from_bits<float>(cpu_bits), exact);
  } else if (m.is_sum()) {
    // The exact sum fits in 64 bits (2^31 values below 2^32); the GPU's wraps modulo 2^32 as WGSL does.
    const long double exact_ld = reference::exact_sum_int(a.bits.data(), n, a.type == dtype::i32);
    const std::int64_t exact = static_cast<std::int64_t>(exact_ld);
    j["exact"] = exact;
    j["exact_text"] = std::to_string(exact);
    j["naive"] = nullptr;
    j["overflowed"] = a.type == dtype::i32 ? (exact < INT32_MIN || exact > INT32_MAX) : exact > UINT32_MAX;
  } else {
    put_value(j, "exact", a.type, cpu_bits);
    j["naive"] = nullptr;
  }
  // f32 compared as values (+0 == -0, NaN == NaN): the order of a reduce may change the sign of a zero.
  const bool same = a.type == dtype::f32 ? (from_bits<float>(gpu) == from_bits<float>(cpu_bits) ||
                                            (std::isnan(from_bits<float>(gpu)) && std::isnan(from_bits<float>(cpu_bits))))
                                         : gpu == cpu_bits;
  j["matches_cpu"] = exact_mode ? json(n == 0 || gpu_exact.accumulator == cpu_exact)
                   : f32_sum    ? json(nullptr)
                                : json(same);
  j["gpu_ms"] = st.gpu_ms;
  j["compile_ms"] = compile_ms;
  j["gpu_timer"] = st.gpu_timestamps ? "timestamps" : "wall";
  j["upload_ms"] = upload_ms;
  j["cpu_ms"] = cpu_ms;
  if (!c.plot.empty()) {
    if (n == 0) throw error(errc::invalid_argument, "nothing to plot: the array is empty");
    std::vector<std::string> lines = {"exact                 " + text_of(j, "exact"),
                                      "GPU (" + st.algorithm + ")" + std::string(st.algorithm.size() < 12 ? 12 - st.algorithm.size() : 1, ' ') + text_of(j, "result")};
    if (j.contains("naive_text") || !j["naive"].is_null()) lines.push_back("naive f32 running total  " + text_of(j, "naive"));
    plot::reduce_partials(ctx, in, n, o, a.type,
                          fmt::format("{} values, {} {}: pass 1 writes one partial per workgroup",
                                      with_commas(double(n), 0), dtype_name(a.type),
                                      o.is_custom() ? o.expression() : o.name()),
                          lines, c.plot);
    j["plot"] = c.plot;
  }
  return j;
}

void print_reduce(const json& j) {
  fmt::print("reduce {} over {} {} values on {} (algorithm {})\n", j["op"].get<std::string>(),
             with_commas(j["n"].get<double>(), 0), j["type"].get<std::string>(), j["adapter"].get<std::string>(),
             j["algorithm"].get<std::string>());
  auto ulps = [&](const char* key) -> std::string {
    if (!j.contains(key)) return "";
    double u = j[key].get<double>();
    return std::isfinite(u) ? fmt::format("   ({:.1f} ulp)", u) : "";
  };
  fmt::print("  exact                {}\n", text_of(j, "exact"));
  if (j.contains("exact_text") && j["type"] == "f32" && text_of(j, "exact") != j["exact_text"].get<std::string>())
    fmt::print("  exact (decimal)      {}\n", j["exact_text"].get<std::string>());
  const bool native = j["adapter"].get<std::string>().rfind("native CPU", 0) == 0;
  fmt::print("  {}               {}{}{}\n", native ? "native" : "GPU   ", text_of(j, "result"), ulps("gpu_ulps"),
             j.contains("accuracy") ? fmt::format("   [accuracy {}]", j["accuracy"].get<std::string>()) : "");
  if (j.contains("naive_text") || !j["naive"].is_null())
    fmt::print("  naive f32 loop       {}{}\n", text_of(j, "naive"), ulps("naive_ulps"));
  if (!j["matches_cpu"].is_null())
    fmt::print("  CPU twin             {}\n", j["matches_cpu"].get<bool>() ? "matches" : "DIFFERS");
  if (j.value("overflowed", false))
    fmt::print("  the {} sum wrapped: the exact sum does not fit, the {}'s is it modulo 2^32\n",
               j["type"].get<std::string>(), native ? "native backend" : "GPU");
  fmt::print("  {} time {:.3f} ms ({}), upload {:.3f} ms, CPU loop {:.3f} ms, shader compilation {:.3f} ms (apart)\n",
             native ? "native" : "GPU", j["gpu_ms"].get<double>(), j["gpu_timer"].get<std::string>(),
             j["upload_ms"].get<double>(), j["cpu_ms"].get<double>(), j.value("compile_ms", 0.0));
}

namespace {

int run_reduce(const reduce_scan_cli& c) {
  parse_accuracy(c.accuracy);
  if (!c.plot.empty()) check_plot_path(c.plot);
  io::array a = load(c);
  if (is_arg_reduce_op(c.op) || !c.transform.empty())
    require_word_elements(a, c.transform.empty() ? "the input of " + c.op : "the input of --transform");
  if (is_arg_reduce_op(c.op) && !c.transform.empty())  // was ignored: the arg-max of a, not of the transform
    throw error(errc::invalid_argument, "--transform does not apply to " + c.op);
  if (is_arg_reduce_op(c.op))
    return run_arg_reduce({c.adapter, c.op, c.algorithm, c.json, c.tune, c.repeat, c.identity, c.accuracy, c.plot}, a);
  if (!c.transform.empty())
    return run_transform_reduce(
        {c.adapter, c.transform, c.op, c.identity, c.algorithm, c.accuracy, c.plot, c.json, c.tune, c.repeat}, a);
  if (wants_typed(a, c.accumulate))
    return run_reduce_typed(typed_of(c), a);
  monoid check(op::parse(c.op, c.identity), a.type);  // reject a bad operator before touching the GPU
  if (!c.no_check) check.check(/*need_commutative=*/true);
  context ctx = make_context(c);
  json j = reduce_and_check(ctx, c, a);
  if (c.json) std::cout << j.dump() << "\n";
  else print_reduce(j);
  warn_overflow(j);
  // Integer results and f32 min/max are exact in any order; an f32 custom expression is combined in another
  // order on the GPU than in the CPU loop, so a difference there is reported but is not an error.
  const bool exact_op = a.type != dtype::f32 || check.is_builtin();
  if (exact_op && j["matches_cpu"].is_boolean() && !j["matches_cpu"].get<bool>()) {
    std::cerr << "wgprim: error: the GPU result differs from the CPU twin\n";
    return 1;
  }
  return 0;
}

}  // namespace

command add_reduce_command(CLI::App& app) {
  auto c = std::make_shared<reduce_scan_cli>();
  auto* s = app.add_subcommand("reduce", "reduce an array to one value");
  add_context_options(s, *c);
  add_data_options(s, *c);
  s->add_option("--transform", c->transform, "apply an expression in a to every element first (e.g. 'a * a')");
  auto segmented = add_segmented_options(s, *c, /*is_scan=*/false);
  return {s, [c, segmented] {
            if (int rc = segmented(); rc >= 0) return rc;
            return run_reduce(*c);
          }};
}
