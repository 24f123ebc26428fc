// wgprim reduce --op argmin|argmax: the extreme value and its first index (NumPy's argmin/argmax), checked against
// the CPU twin. JSON: op, type, n, algorithm, adapter, result (the value), index, matches_cpu, cpu_result,
// cpu_index, gpu_ms, gpu_timer, upload_ms, cpu_ms.
#include "bench.hpp"
#include "reduce_scan.hpp"
#include "util.hpp"
#include "json_value.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <iostream>
#include <nlohmann/json.hpp>

using json = nlohmann::json;
using namespace wgprim;

bool is_arg_reduce_op(const std::string& op) { return op == "argmin" || op == "argmax"; }

int run_arg_reduce(const arg_reduce_cli& a, const io::array& data) {
  if (!a.identity.empty())
    throw error(errc::invalid_argument, "--identity is only for custom expressions; '" + a.op + "' has its own");
  if (!a.plot.empty()) throw error(errc::invalid_argument, "--plot is not available for " + a.op);
  if (!a.accuracy.empty() && a.accuracy != "fast")
    throw error(errc::invalid_argument, "--accuracy is for f32 sums; " + a.op + " is exact");
  const arg_op o = a.op == "argmax" ? arg_op::max : arg_op::min;
  const std::size_t n = data.bits.size();
  if (n == 0)
    throw error(errc::invalid_argument, a.op + " of an empty array: there is no extreme value (NumPy raises ValueError)");
  context ctx(context_options{a.adapter});
  run_stats st;
  run_options ro;
  ro.algorithm = a.algorithm;
  ro.stats = &st;
  ro.tune = a.tune;
  auto t0 = std::chrono::steady_clock::now();
  buffer in = ctx.create_buffer(n * 4);
  ctx.write(in, 0, data.bits.data(), n * 4);
  ctx.finish();
  const double upload_ms = ms_since(t0);
  arg_result<std::uint32_t> gpu{};
  std::vector<double> times;
  for (int r = 0; r < a.repeat; ++r) {
    gpu = arg_reduce_bits(ctx, in, n, data.type, o, ro);
    times.push_back(st.gpu_ms);
  }
  std::sort(times.begin(), times.end());
  t0 = std::chrono::steady_clock::now();
  const arg_result<std::uint32_t> cpu_r = reference::arg_reduce(data.bits.data(), n, data.type, o);
  const double cpu_ms = ms_since(t0);
  const bool matches = gpu.index == cpu_r.index && gpu.value == cpu_r.value;
  json j = {{"op", a.op},
            {"type", dtype_name(data.type)},
            {"n", n},
            {"algorithm", st.algorithm},
            {"adapter", ctx.adapter().name},
            {"index", gpu.index},
            {"matches_cpu", matches},
            {"cpu_index", cpu_r.index},
            {"gpu_ms", times[times.size() / 2]},
            {"gpu_timer", st.gpu_timestamps ? "timestamps" : "wall"},
            {"upload_ms", upload_ms},
            {"cpu_ms", cpu_ms}};
  put_value(j, "result", data.type, gpu.value);
  put_value(j, "cpu_result", data.type, cpu_r.value);
  if (a.json) {
    std::cout << j.dump() << "\n";
  } else {
    fmt::print("{} over {} {} values on {} (algorithm {})\n", a.op, n, dtype_name(data.type), ctx.adapter().name,
               st.algorithm);
    fmt::print("  GPU                  {} at index {}\n", format_bits(data.type, gpu.value), gpu.index);
    fmt::print("  CPU twin             {}\n", matches ? "matches" : "DIFFERS: " + format_bits(data.type, cpu_r.value) +
                                                                  " at index " + std::to_string(cpu_r.index));
    fmt::print("  {} time {:.3f} ms ({}), upload {:.3f} ms, CPU loop {:.3f} ms\n", j["adapter"].get<std::string>().rfind("native CPU", 0) == 0 ? "native" : "GPU", j["gpu_ms"].get<double>(),
               j["gpu_timer"].get<std::string>(), upload_ms, cpu_ms);
  }
  if (!matches) {
    std::cerr << "wgprim: error: " << a.op << " differs from the CPU twin\n";
    return 1;
  }
  return 0;
}

void add_arg_reduce_bench_cases(context& ctx, const buffer& in, const bench_wants& wants,
                                std::vector<bench_case>& cases) {
  for (const auto& alg : algorithms("arg_reduce")) {
    if (!wants("arg_max", alg)) continue;
    cases.push_back({"arg_max", alg, "f32", "argmax", 4, [&ctx, &in, alg](std::size_t n) {
                       run_stats st;
                       run_options ro;
                       ro.algorithm = alg;
                       ro.stats = &st;
                       arg_reduce_bits(ctx, in, n, dtype::f32, arg_op::max, ro);
                       return st.gpu_ms;
                     }});
    run_options plain;
    plain.algorithm = alg;
    cases.back().call = [&ctx, &in, plain](std::size_t n) { arg_reduce_bits(ctx, in, n, dtype::f32, arg_op::max, plain); };
    auto result = std::make_shared<buffer>(ctx.create_buffer(16));
    cases.back().record = [&ctx, &in, plain, result](WGPUCommandEncoder enc, std::size_t n) {
      argmax(ctx, enc, device_span<const float>(in, 0, n), device_span<std::uint32_t>(*result, 0, 4), plain);
    };
  }
}
