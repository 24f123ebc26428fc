// wgprim bench-cpu (issue 19): on a machine without a GPU, what the native CPU backend gives against the other
// ways of computing the same thing on the same cores: the WGSL on the best WebGPU adapter (lavapipe there),
// libstdc++'s parallel algorithms (std::execution::par_unseq on oneTBB), and plain loops, one thread and all.
// Rows: reduce f32 sum (all three accuracy modes of the backend) and inclusive scan u32 sum. Wall time of each
// call, data already in place (device buffers for wgprim), median of --reps after --warmup runs.
// GB/s: reduce reads 4n bytes, a scan reads 4n and writes 4n.
#include "cmd_bench_cpu.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <execution>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <numeric>
#include <random>
#include <thread>

#include "wgprim/wgprim.hpp"

using json = nlohmann::json;
using namespace wgprim;

namespace {

struct bench_cpu_args {
  std::vector<int> log2 = {24, 26};
  int reps = 7, warmup = 2;
  bool json = false, no_webgpu = false;
  std::string output;
};

template <class F>
double median_ms(const bench_cpu_args& a, F&& f) {
  for (int i = 0; i < a.warmup; ++i) f();
  std::vector<double> t;
  for (int i = 0; i < a.reps; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// The loops the backend is measured against. The compiler keeps the strict loop's order (no -ffast-math), so
// one accumulator is latency-bound; 16 independent ones vectorise.
float loop_strict(const float* x, std::size_t n) {
  float s = 0;
  for (std::size_t i = 0; i < n; ++i) s += x[i];
  return s;
}
float loop_lanes(const float* x, std::size_t n) {
  float a[16] = {};
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16)
    for (int j = 0; j < 16; ++j) a[j] += x[i + j];
  for (; i < n; ++i) a[0] += x[i];
  float s = 0;
  for (float v : a) s += v;
  return s;
}
float loop_threads(const float* x, std::size_t n, unsigned threads) {
  std::vector<float> part(threads);
  std::vector<std::thread> pool;
  const std::size_t per = (n + threads - 1) / threads;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      const std::size_t first = std::min(n, t * per);
      part[t] = loop_lanes(x + first, std::min(n, first + per) - first);
    });
  for (auto& th : pool) th.join();
  float s = 0;
  for (float v : part) s += v;
  return s;
}

int run(const bench_cpu_args& a) {
  if (a.reps < 1 || a.warmup < 0) throw error(errc::invalid_argument, "bad --reps or --warmup");
  for (int lg : a.log2)
    if (lg < 10 || lg > 30) throw error(errc::invalid_argument, "--log2 values must lie in 10..30");
  context_options native_opt;
  native_opt.backend = backend_choice::native;
  context native(native_opt);
  std::unique_ptr<context> webgpu;
  if (!a.no_webgpu) {
    try {
      context_options o;
      o.backend = backend_choice::webgpu;
      webgpu = std::make_unique<context>(o);
    } catch (const error& e) {
      fmt::print(stderr, "wgprim: note: no WebGPU rows ({})\n", e.what());
    }
  }
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  json rows = json::array();
  auto row = [&](const std::string& prim, const std::string& impl, std::size_t n, double ms, double bytes,
                 const std::string& result) {
    rows.push_back({{"primitive", prim}, {"implementation", impl}, {"n", n}, {"ms", ms},
                    {"gbps", bytes * static_cast<double>(n) / (ms * 1e-3) / 1e9}, {"result", result}});
    if (!a.json) fmt::print(stderr, "  {:<15} {:<44} 2^{:<3} {:>9.3f} ms\n", prim, impl, std::log2(n), ms);
  };
  for (int lg : a.log2) {
    const std::size_t n = std::size_t(1) << lg;
    std::vector<float> xf(n);
    std::vector<std::uint32_t> xu(n), yu(n);
    std::mt19937 rng(static_cast<unsigned>(lg));
    for (std::size_t i = 0; i < n; ++i) {
      xf[i] = 1.0f + static_cast<float>(rng() & 0xffff) / 65536.0f;
      xu[i] = rng() & 0xff;
    }
    // reduce f32 sum
    {
      device_vector<float> d(native, xf);
      for (accuracy acc : {accuracy::fast, accuracy::compensated, accuracy::reproducible}) {
        run_options ro;
        ro.accuracy = acc;
        float r = 0;
        double ms = median_ms(a, [&] { r = reduce(native, d, op::sum(), ro); });
        row("reduce f32 sum", native.adapter().name + " " + accuracy_name(acc), n, ms, 4, fmt::format("{}", r));
      }
      if (webgpu) {
        device_vector<float> g(*webgpu, xf);
        float r = 0;
        double ms = median_ms(a, [&] { r = reduce(*webgpu, g); });
        row("reduce f32 sum", "WGSL on " + webgpu->adapter().name, n, ms, 4, fmt::format("{}", r));
      }
      float r = 0;
      double ms = median_ms(a, [&] { r = std::reduce(std::execution::par_unseq, xf.begin(), xf.end(), 0.0f); });
      row("reduce f32 sum", "std::reduce(par_unseq) (libstdc++ on oneTBB)", n, ms, 4, fmt::format("{}", r));
      ms = median_ms(a, [&] { r = loop_strict(xf.data(), n); });
      row("reduce f32 sum", "loop, 1 thread, 1 accumulator", n, ms, 4, fmt::format("{}", r));
      ms = median_ms(a, [&] { r = loop_lanes(xf.data(), n); });
      row("reduce f32 sum", "loop, 1 thread, 16 accumulators", n, ms, 4, fmt::format("{}", r));
      ms = median_ms(a, [&] { r = loop_threads(xf.data(), n, hw); });
      row("reduce f32 sum", fmt::format("loop, {} std::threads, 16 accumulators", hw), n, ms, 4, fmt::format("{}", r));
    }
    // inclusive scan u32 sum
    {
      device_vector<std::uint32_t> d(native, xu), out(native, n);
      double ms = median_ms(a, [&] { inclusive_scan(native, d, out); });
      row("inclusive_scan u32 sum", native.adapter().name, n, ms, 8, std::to_string(out.to_host().back()));
      if (webgpu) {
        device_vector<std::uint32_t> g(*webgpu, xu), go(*webgpu, n);
        ms = median_ms(a, [&] {
          inclusive_scan(*webgpu, g, go);
          webgpu->finish();
        });
        row("inclusive_scan u32 sum", "WGSL on " + webgpu->adapter().name, n, ms, 8, std::to_string(go.to_host().back()));
      }
      ms = median_ms(a, [&] { std::inclusive_scan(xu.begin(), xu.end(), yu.begin()); });
      row("inclusive_scan u32 sum", "std::inclusive_scan (1 thread)", n, ms, 8, std::to_string(yu.back()));
      ms = median_ms(a, [&] { std::inclusive_scan(std::execution::par_unseq, xu.begin(), xu.end(), yu.begin()); });
      row("inclusive_scan u32 sum", "std::inclusive_scan(par_unseq) (libstdc++ on oneTBB)", n, ms, 8,
          std::to_string(yu.back()));
    }
  }
  json doc = {{"machine", fmt::format("{} hardware threads", hw)}, {"native", native.adapter().name},
              {"webgpu", webgpu ? webgpu->adapter().name : ""}, {"reps", a.reps}, {"warmup", a.warmup},
              {"results", rows}};
  if (!a.output.empty()) {
    std::ofstream f(a.output);
    if (!f) throw error(errc::io, "cannot write '" + a.output + "'");
    f << doc.dump(1) << "\n";
  }
  if (a.json) {
    std::cout << doc.dump() << "\n";
    return 0;
  }
  fmt::print("{:<23} {:<55} {:>11} {:>10} {:>8}\n", "primitive", "implementation", "n", "ms", "GB/s");
  for (const auto& r : rows)
    fmt::print("{:<23} {:<55} {:>11} {:>10.3f} {:>8.2f}\n", r["primitive"].get<std::string>(),
               r["implementation"].get<std::string>(), r["n"].get<std::size_t>(), r["ms"].get<double>(),
               r["gbps"].get<double>());
  return 0;
}

}  // namespace

subcommand register_bench_cpu(CLI::App& app) {
  auto args = std::make_shared<bench_cpu_args>();
  CLI::App* s = app.add_subcommand("bench-cpu", "native CPU backend vs WGSL on lavapipe vs std par_unseq vs loops");
  s->add_option("--log2", args->log2, "sizes n = 2^k (default 24 26)");
  s->add_option("--reps", args->reps, "timed runs per row (median reported)");
  s->add_option("--warmup", args->warmup, "discarded runs per row");
  s->add_flag("--no-webgpu", args->no_webgpu, "leave out the WGSL rows");
  s->add_flag("--json", args->json, "print one JSON object");
  s->add_option("--output", args->output, "also write the JSON to this file");
  return {s, [args] { return run(*args); }};
}
