// wgprim reduce --transform EXPR [--op OP]: reduces EXPR(a) over the array, the transform fused into the reduce's
// load. The result type is the transform's (the expression front end infers it: `select(0u, 1u, a > 10)` is u32
// over any input, so it counts). JSON: op, transform, type (the input's), result_type, n, algorithm, adapter,
// result, matches_cpu (null for f32 sums, which are compared with the exact sum: exact, gpu_ulps), gpu_ms,
// gpu_timer, upload_ms, cpu_ms.
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

int run_transform_reduce(const transform_reduce_cli& a, const io::array& data) {
  if (!a.plot.empty()) throw error(errc::invalid_argument, "--plot is not available with --transform");
  if (!a.accuracy.empty() && a.accuracy != "fast")
    throw error(errc::unsupported, "--transform supports --accuracy fast only");
  const transform tr = transform::expr(a.transform);
  const bound_transform b(tr, data.type);  // rejects a bad expression before touching the GPU
  const dtype rt = b.result_type();
  const op o = op::parse(a.op, a.identity);
  const monoid m(o, rt);
  const std::size_t n = data.bits.size();
  context ctx(context_options{a.adapter});
  run_stats st;
  run_options ro;
  ro.algorithm = a.algorithm;
  ro.stats = &st;
  ro.tune = a.tune;
  auto t0 = std::chrono::steady_clock::now();
  buffer in = ctx.create_buffer(std::max<std::size_t>(n, 1) * 4);
  if (n) ctx.write(in, 0, data.bits.data(), n * 4);
  ctx.finish();
  const double upload_ms = ms_since(t0);
  std::uint32_t gpu = 0;
  std::vector<double> times;
  for (int r = 0; r < a.repeat; ++r) {
    gpu = transform_reduce_bits(ctx, in, n, data.type, tr, o, ro);
    times.push_back(st.gpu_ms);
  }
  std::sort(times.begin(), times.end());
  t0 = std::chrono::steady_clock::now();
  const std::uint32_t cpu_bits = reference::transform_reduce(data.bits.data(), n, b, m);
  const double cpu_ms = ms_since(t0);
  json j = {{"op", o.is_custom() ? o.expression() : o.name()},
            {"transform", a.transform},
            {"type", dtype_name(data.type)},
            {"result_type", dtype_name(rt)},
            {"n", n},
            {"algorithm", st.algorithm},
            {"adapter", ctx.adapter().name}};
  put_value(j, "result", rt, gpu);
  put_value(j, "cpu_result", rt, cpu_bits);
  bool matches = true;
  if (m.is_sum() && rt == dtype::f32) {
    // The GPU adds in a tree, the loop in order: compare both with the exact sum of the transformed values.
    std::vector<float> y(n);
    for (std::size_t i = 0; i < n; ++i) y[i] = from_bits<float>(b.apply(data.bits[i]));
    const double exact = reference::exact_sum_f32(y.data(), n);
    j["exact"] = std::isfinite(exact) ? json(exact) : json(nullptr);
    if (!std::isfinite(exact)) j["exact_text"] = fmt::format("{}", exact);
    j["gpu_ulps"] = reference::ulp_error_f32(from_bits<float>(gpu), exact);
    j["cpu_ulps"] = reference::ulp_error_f32(from_bits<float>(cpu_bits), exact);
    j["matches_cpu"] = nullptr;
  } else {
    matches = gpu == cpu_bits;
    j["matches_cpu"] = matches;
  }
  j["gpu_ms"] = times.empty() ? 0.0 : times[times.size() / 2];
  j["gpu_timer"] = st.gpu_timestamps ? "timestamps" : "wall";
  j["upload_ms"] = upload_ms;
  j["cpu_ms"] = cpu_ms;
  if (a.json) {
    std::cout << j.dump() << "\n";
  } else {
    fmt::print("reduce {} of {} over {} {} values ({} results) on {} (algorithm {})\n", j["op"].get<std::string>(),
               a.transform, n, dtype_name(data.type), dtype_name(rt), ctx.adapter().name, st.algorithm);
    fmt::print("  GPU                  {}\n", format_bits(rt, gpu));
    if (j.contains("exact"))
      fmt::print("  exact                {} (GPU {:.1f} ulp, in-order CPU loop {:.1f} ulp)\n",
                 j.contains("exact_text") ? j["exact_text"].get<std::string>() : j["exact"].dump(),
                 j["gpu_ulps"].get<double>(), j["cpu_ulps"].get<double>());
    else
      fmt::print("  CPU twin             {}\n", matches ? "matches" : "DIFFERS: " + format_bits(rt, cpu_bits));
    fmt::print("  {} time {:.3f} ms ({}), upload {:.3f} ms, CPU loop {:.3f} ms\n", j["adapter"].get<std::string>().rfind("native CPU", 0) == 0 ? "native" : "GPU", j["gpu_ms"].get<double>(),
               j["gpu_timer"].get<std::string>(), upload_ms, cpu_ms);
  }
  if (!matches) {
    std::cerr << "wgprim: error: the transform-reduce differs from the CPU twin\n";
    return 1;
  }
  return 0;
}

void add_transform_reduce_bench_cases(context& ctx, const buffer& in, const bench_wants& wants,
                                      std::vector<bench_case>& cases) {
  auto square = std::make_shared<transform>(transform::expr("a * a"));
  auto result = std::make_shared<buffer>(ctx.create_buffer(16));
  for (const char* alg : {"single", "fast"}) {
    if (!wants("transform_reduce", alg)) continue;
    run_options plain;
    plain.algorithm = alg;
    bench_case c{"transform_reduce", alg, "f32", "sum(a*a)", 4, nullptr, nullptr, nullptr};
    c.run = [&ctx, &in, square, plain](std::size_t n) {
      run_stats st;
      run_options ro = plain;
      ro.stats = &st;
      transform_reduce_bits(ctx, in, n, dtype::f32, *square, op::sum(), ro);
      return st.gpu_ms;
    };
    c.call = [&ctx, &in, square, plain](std::size_t n) {
      transform_reduce_bits(ctx, in, n, dtype::f32, *square, op::sum(), plain);
    };
    c.record = [&ctx, &in, square, result, plain](WGPUCommandEncoder enc, std::size_t n) {
      transform_reduce(ctx, enc, device_span<const float>(in, 0, n), *square, device_span<float>(*result, 0, 1),
                       op::sum(), plain);
    };
    cases.push_back(std::move(c));
  }
}
