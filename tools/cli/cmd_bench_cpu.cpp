// wgprim bench-cpu (issue 19): on a machine without a GPU, what the native CPU backend gives against the other
// ways of computing the same thing on the same cores: the WGSL on the best WebGPU adapter (lavapipe there),
// libstdc++'s parallel algorithms (std::execution::par_unseq on oneTBB), and plain loops, one thread and all.
// Rows: reduce f32 sum (all three accuracy modes of the backend), inclusive scan u32 sum, and every other
// primitive (primitive_rows: the native backend, the WGSL, the std:: parallel algorithm where there is one, and a
// plain one-thread loop). Wall time of each call, data already in place (device buffers for wgprim), median of
// --reps after --warmup runs. GB/s: the bytes each primitive must read and write once, over the time.
#include <fmt/core.h>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <execution>
#include <fstream>
#include <functional>
#include <memory>
#include <iostream>
#include <nlohmann/json.hpp>
#include <numeric>
#include <random>
#include <thread>

#include "command.hpp"
#include "wgprim/io.hpp"
#include "wgprim/wgprim.hpp"

using json = nlohmann::json;
using namespace wgprim;

namespace {

struct bench_cpu_args {
  std::vector<int> log2 = {24, 26};
  int reps = 7, warmup = 2;
  bool json = false, no_webgpu = false, all = true;
  int webgpu_max_log2 = 30, webgpu_reps = 7;
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

// Keeps a result alive, so that the compiler cannot drop the loop that computed it.
volatile float sink_f;
void sink(float v) { sink_f = v; }

using row_fn = std::function<void(const std::string& prim, const std::string& impl, std::size_t n, double ms,
                                   double bytes, const std::string& result)>;

// Every primitive beyond reduce / scan: `setup(ctx)` puts the data on that context and returns the call to time.
void primitive_rows(const bench_cpu_args& a, context& native, context* webgpu, std::size_t n, const row_fn& row) {
  std::mt19937 rng(static_cast<unsigned>(n));
  std::vector<float> xf(n);
  std::vector<std::uint32_t> xu(n), keys(n), seg_off, out(n), out2(n);
  for (std::size_t i = 0; i < n; ++i) {
    xf[i] = std::uniform_real_distribution<float>(-1.0f, 1.0f)(rng);
    xu[i] = rng();
  }
  // keys in runs of 1..16 (reduce_by_key, run-length encoding, unique); segments of ~1,000 elements
  for (std::size_t i = 0; i < n;) {
    const std::uint32_t k = rng(), len = 1 + rng() % 16;
    for (std::uint32_t j = 0; j < len && i < n; ++j) keys[i++] = k;
  }
  for (std::size_t o = 0; o < n; o += 500 + rng() % 1000) seg_off.push_back(static_cast<std::uint32_t>(o));
  seg_off.push_back(static_cast<std::uint32_t>(n));
  const std::size_t segs = seg_off.size() - 1;
  using call = std::function<void()>;
  auto four = [&](const std::string& prim, double bytes, const std::function<call(context&)>& setup,
                  const std::string& par_name, const call& par, const call& loop) {
    {
      call f = setup(native);
      row(prim, native.adapter().name, n, median_ms(a, f), bytes, "");
    }
    if (webgpu && n <= (std::size_t(1) << a.webgpu_max_log2)) {
      try {
        call g = setup(*webgpu);
        bench_cpu_args once = a;  // lavapipe takes seconds per call: --webgpu-reps runs
        once.reps = a.webgpu_reps;
        once.warmup = std::min(a.warmup, 1);
        row(prim, "WGSL on " + webgpu->adapter().name, n, median_ms(once, [&] {
              g();
              webgpu->finish();
            }),
            bytes, "");
      } catch (const error& e) {  // e.g. a sort past one storage binding: the row says why, the others go on
        fmt::print(stderr, "wgprim: note: no WGSL row for {} at n = {}: {}\n", prim, n, e.what());
      }
    }
    if (par) row(prim, par_name + "(par_unseq) (libstdc++ on oneTBB)", n, median_ms(a, par), bytes, "");
    if (loop) row(prim, "loop, 1 thread", n, median_ms(a, loop), bytes, "");
  };
  const predicate big = predicate::expr("a > 2147483648u");
  four("arg_max f32", 4, [&](context& c) -> call {
         auto d = std::make_shared<device_vector<float>>(c, xf);
         return [&c, d] { argmax(c, *d); };
       }, "std::max_element", [&] { sink(*std::max_element(std::execution::par_unseq, xf.begin(), xf.end())); },
       [&] { sink(*std::max_element(xf.begin(), xf.end())); });
  four("transform_reduce f32 a*a sum", 4, [&](context& c) -> call {
         auto d = std::make_shared<device_vector<float>>(c, xf);
         return [&c, d] { (void)transform_reduce(c, *d, transform::expr("a * a")); };
       }, "std::transform_reduce",
       [&] { sink(std::transform_reduce(std::execution::par_unseq, xf.begin(), xf.end(), 0.0f, std::plus<>(), [](float v) { return v * v; })); },
       [&] { sink(std::transform_reduce(xf.begin(), xf.end(), 0.0f, std::plus<>(), [](float v) { return v * v; })); });
  four("exact_sum f32", 4, [&](context& c) -> call {
         auto d = std::make_shared<device_vector<float>>(c, xf);
         return [&c, d] { (void)exact_sum(c, *d); };
       }, "", nullptr, [&] {
         superaccumulator s;
         s.add(xf.data(), n);
         sink(s.round_to_float());
       });
  four("select_if u32", 8, [&](context& c) -> call {
         auto d = std::make_shared<device_vector<std::uint32_t>>(c, xu);
         auto o = std::make_shared<device_vector<std::uint32_t>>(c, n);
         return [&c, d, o, &big] { select_if(c, *d, *o, big); };
       }, "std::copy_if",
       [&] { std::copy_if(std::execution::par_unseq, xu.begin(), xu.end(), out.begin(), [](std::uint32_t v) { return v > 2147483648u; }); },
       [&] { std::copy_if(xu.begin(), xu.end(), out.begin(), [](std::uint32_t v) { return v > 2147483648u; }); });
  four("partition_if u32", 8, [&](context& c) -> call {
         auto d = std::make_shared<device_vector<std::uint32_t>>(c, xu);
         auto o = std::make_shared<device_vector<std::uint32_t>>(c, n);
         return [&c, d, o, &big] { partition(c, *d, *o, big); };
       }, "std::partition_copy",
       [&] { std::partition_copy(std::execution::par_unseq, xu.begin(), xu.end(), out.begin(), out2.begin(), [](std::uint32_t v) { return v > 2147483648u; }); },
       [&] { std::partition_copy(xu.begin(), xu.end(), out.begin(), out2.begin(), [](std::uint32_t v) { return v > 2147483648u; }); });
  four("unique u32", 8, [&](context& c) -> call {
         auto d = std::make_shared<device_vector<std::uint32_t>>(c, keys);
         auto o = std::make_shared<device_vector<std::uint32_t>>(c, n);
         return [&c, d, o] { unique(c, *d, *o); };
       }, "std::unique_copy", [&] { std::unique_copy(std::execution::par_unseq, keys.begin(), keys.end(), out.begin()); },
       [&] { std::unique_copy(keys.begin(), keys.end(), out.begin()); });
  four("histogram_even f32 256", 4, [&](context& c) -> call {
         auto d = std::make_shared<device_vector<float>>(c, xf);
         auto o = std::make_shared<device_vector<std::uint32_t>>(c, 256);
         return [&c, d, o] { histogram_even(c, *d, *o, 256, -1.0, 1.0); };
       }, "", nullptr, [&] {
         std::uint32_t h[256] = {};
         for (float v : xf)
           if (v >= -1.0f && v <= 1.0f) ++h[std::min(255, static_cast<int>((v + 1.0f) * 128.0f))];
         out[0] = h[0];
       });
  four("segmented_reduce u32 sum", 4, [&](context& c) -> call {
         auto d = std::make_shared<device_vector<std::uint32_t>>(c, xu);
         auto off = std::make_shared<device_vector<std::uint32_t>>(c, seg_off);
         auto o = std::make_shared<device_vector<std::uint32_t>>(c, segs);
         return [&c, d, off, o] { segmented_reduce(c, *d, *off, *o); };
       }, "", nullptr, [&] {
         for (std::size_t s = 0; s < segs; ++s) out[s] = std::reduce(xu.begin() + seg_off[s], xu.begin() + seg_off[s + 1], 0u);
       });
  four("reduce_by_key u32 sum", 12, [&](context& c) -> call {
         auto k = std::make_shared<device_vector<std::uint32_t>>(c, keys);
         auto v = std::make_shared<device_vector<std::uint32_t>>(c, xu);
         auto uk = std::make_shared<device_vector<std::uint32_t>>(c, n);
         auto sm = std::make_shared<device_vector<std::uint32_t>>(c, n);
         return [&c, k, v, uk, sm] { reduce_by_key(c, *k, *v, *uk, *sm); };
       }, "", nullptr, [&] {
         std::size_t r = 0;
         for (std::size_t i = 0; i < n; ++i) {
           if (i == 0 || keys[i] != keys[i - 1]) {
             out[r] = keys[i];
             out2[r++] = xu[i];
           } else {
             out2[r - 1] += xu[i];
           }
         }
       });
  four("run_length_encode u32", 8, [&](context& c) -> call {
         auto k = std::make_shared<device_vector<std::uint32_t>>(c, keys);
         auto uk = std::make_shared<device_vector<std::uint32_t>>(c, n);
         auto cn = std::make_shared<device_vector<std::uint32_t>>(c, n);
         return [&c, k, uk, cn] { run_length_encode(c, *k, *uk, *cn); };
       }, "", nullptr, [&] {
         std::size_t r = 0;
         for (std::size_t i = 0; i < n; ++i) {
           if (i == 0 || keys[i] != keys[i - 1]) {
             out[r] = keys[i];
             out2[r++] = 1;
           } else {
             ++out2[r - 1];
           }
         }
       });
  four("sort_keys u32", 8, [&](context& c) -> call {
         auto d = std::make_shared<device_vector<std::uint32_t>>(c, xu);
         auto o = std::make_shared<device_vector<std::uint32_t>>(c, n);
         return [&c, d, o] { sort(c, *d, *o); };
       }, "std::sort", [&] {
         std::copy(xu.begin(), xu.end(), out.begin());
         std::sort(std::execution::par_unseq, out.begin(), out.end());
       }, [&] {
         std::copy(xu.begin(), xu.end(), out.begin());
         std::sort(out.begin(), out.end());
       });
  std::vector<std::pair<std::uint32_t, std::uint32_t>> kv(n);
  four("sort_pairs u32", 16, [&](context& c) -> call {
         auto k = std::make_shared<device_vector<std::uint32_t>>(c, xu);
         auto v = std::make_shared<device_vector<std::uint32_t>>(c, keys);
         auto ko = std::make_shared<device_vector<std::uint32_t>>(c, n);
         auto vo = std::make_shared<device_vector<std::uint32_t>>(c, n);
         return [&c, k, v, ko, vo] { sort_pairs(c, *k, *v, *ko, *vo); };
       }, "std::stable_sort", [&] {
         for (std::size_t i = 0; i < n; ++i) kv[i] = {xu[i], keys[i]};
         std::stable_sort(std::execution::par_unseq, kv.begin(), kv.end(), [](auto& x, auto& y) { return x.first < y.first; });
       }, [&] {
         for (std::size_t i = 0; i < n; ++i) kv[i] = {xu[i], keys[i]};
         std::stable_sort(kv.begin(), kv.end(), [](auto& x, auto& y) { return x.first < y.first; });
       });
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
    if (a.all) primitive_rows(a, native, webgpu.get(), n, row);
  }
  json doc = {{"machine", fmt::format("{} hardware threads", hw)}, {"native", native.adapter().name},
              {"webgpu", webgpu ? webgpu->adapter().name : ""}, {"reps", a.reps}, {"warmup", a.warmup},
              {"results", rows}};
  if (!a.output.empty()) {
    io::write_file(a.output, doc.dump(1) + "\n");
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

command add_bench_cpu_command(CLI::App& app) {
  auto args = std::make_shared<bench_cpu_args>();
  CLI::App* s = app.add_subcommand("bench-cpu", "native CPU backend vs WGSL on lavapipe vs std par_unseq vs loops");
  s->add_option("--log2", args->log2, "sizes n = 2^k (default 24 26)");
  s->add_option("--reps", args->reps, "timed runs per row (median reported)");
  s->add_option("--warmup", args->warmup, "discarded runs per row");
  s->add_flag("--no-webgpu", args->no_webgpu, "leave out the WGSL rows");
  s->add_flag("!--reduce-scan-only", args->all, "only the reduce and scan rows");
  s->add_option("--webgpu-max-log2", args->webgpu_max_log2, "the other primitives' WGSL rows only up to n = 2^k");
  s->add_option("--webgpu-reps", args->webgpu_reps, "timed runs of the other primitives' WGSL rows");
  s->add_flag("--json", args->json, "print one JSON object");
  s->add_option("--output", args->output, "also write the JSON to this file");
  return {s, [args] { return run(*args); }};
}
