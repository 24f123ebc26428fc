// reduce and scan over f64, i64, u64 (adapter features) and the packed storage types f16, u8, i8 (accumulated in
// f32, u32, i32): the same reports as the 32-bit paths (cmd_reduce.cpp, cmd_scan.cpp), with the CPU twin in the element's width.
#include "bench.hpp"
#include "reduce_scan.hpp"
#include "util.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <vector>
#include <nlohmann/json.hpp>

#include "wgprim/reference.hpp"

using json = nlohmann::json;
using namespace wgprim;

namespace {

void put_raw(json& j, const std::string& key, dtype t, std::uint64_t raw) {
  switch (t) {
    case dtype::i64: j[key] = static_cast<std::int64_t>(raw); return;
    case dtype::i32: j[key] = static_cast<std::int32_t>(raw); return;
    case dtype::i8: j[key] = static_cast<std::int8_t>(raw); return;
    case dtype::u64: case dtype::u32: case dtype::u8: j[key] = raw; return;
    default: break;
  }
  const std::string text = format_raw(t, raw);
  const double v = std::strtod(text.c_str(), nullptr);
  if (std::isfinite(v)) {
    j[key] = v;
  } else {
    j[key] = nullptr;
    j[key + "_text"] = text;
  }
}

json shape_of(const io::array& a) { return a.shape.empty() ? json::array({a.size()}) : json(a.shape); }

}  // namespace

bool wants_typed(const io::array& a, const std::string& accumulate) {
  return is_wide(a.type) || is_narrow(a.type) || accumulate == "wide";
}

namespace {
// --accumulate wide: i32/u32 elements as i64/u64 (sign- or zero-extended), so that their sum is taken in 64 bits
// and reported as i64/u64, as NumPy's sum of int32 is an int64. (The widening is on the host here; the GPU then
// needs shader-int64.)
io::array widened_for(const typed_cli& c, const io::array& a) {
  if (c.accumulate != "wide") return a;
  if (a.type != dtype::i32 && a.type != dtype::u32)
    throw error(errc::invalid_argument, std::string("--accumulate wide is for i32 and u32 data, not ") + dtype_name(a.type));
  const dtype t = a.type == dtype::i32 ? dtype::i64 : dtype::u64;
  io::array w = io::array::zeros(t, a.size());
  w.shape = a.shape;
  for (std::size_t i = 0; i < a.size(); ++i)
    w.set(i, a.type == dtype::i32 ? static_cast<std::uint64_t>(static_cast<std::int64_t>(static_cast<std::int32_t>(a.bits[i])))
                                  : a.bits[i]);
  return w;
}
}  // namespace

// Elements other than 32-bit run on WebGPU (lavapipe where there is no GPU): the native CPU backend's loops are
// 32-bit. "--adapter cpu" still asks for the native backend, which then says what it lacks.
context_options typed_options(const std::string& adapter) {
  context_options o{adapter};
  if (adapter != "cpu" && adapter != "native") o.backend = backend_choice::webgpu;
  return o;
}

// --adapter cpu with such elements: the library's error named a C++ option (issue 29 row 10); the command says
// what to type instead.
void refuse_native_for(std::string adapter, dtype t, const std::string& accumulate) {
  // The one environment variable the command reads itself, to name the adapter it came from (a public
  // context::default_adapter() would let the library's src/core/env.cpp answer instead).
  if (adapter.empty())
    if (const char* env = std::getenv("WGPRIM_ADAPTER")) adapter = env;
  if (adapter != "cpu" && adapter != "native") return;
  throw error(errc::unsupported, std::string("the native CPU backend (--adapter ") + adapter + ") takes f32, i32 and u32, not " +
                                     dtype_name(t) + (accumulate == "wide" ? " (--accumulate wide)" : "") +
                                     ": leave out --adapter (WebGPU runs them) or name a WebGPU adapter");
}

int run_reduce_typed(const typed_cli& c, const io::array& input) {
  const io::array a = widened_for(c, input);
  refuse_native_for(c.adapter, a.type, c.accumulate);
  const op o = op::parse(c.op, c.identity);
  const monoid m(o, a.type);  // a packed type gives its accumulation type's monoid
  if (!c.no_check) m.check(/*need_commutative=*/true);
  context ctx(typed_options(c.adapter));
  const std::size_t n = a.size();
  run_stats st;
  run_options ro;
  ro.algorithm = c.algorithm;
  ro.check_operator = !c.no_check;
  ro.stats = &st;
  ro.tune = c.tune;
  ro.accuracy = parse_accuracy(c.accuracy);
  auto t0 = std::chrono::steady_clock::now();
  buffer in = ctx.create_buffer(std::max<std::uint64_t>(4, a.bits.size() * 4));
  if (!a.bits.empty()) ctx.write(in, 0, a.bits.data(), a.bits.size() * 4);
  ctx.finish();
  const double upload_ms = ms_since(t0);
  std::uint64_t gpu = 0;
  std::vector<double> times;
  for (int r = 0; r < std::max(1, c.repeat); ++r) {
    gpu = reduce_raw(ctx, in, n, m, a.type, ro);
    times.push_back(st.gpu_ms);
  }
  std::sort(times.begin(), times.end());
  t0 = std::chrono::steady_clock::now();
  const std::uint64_t cpu = reference::reduce_raw(a.bits.data(), a.type, n, m);
  const double cpu_ms = ms_since(t0);
  const dtype acc = m.type();
  json j = {{"op", o.is_custom() ? o.expression() : o.name()}, {"type", dtype_name(a.type)}, {"n", n},
            {"shape", shape_of(a)}, {"accumulated_in", dtype_name(acc)}, {"algorithm", st.algorithm},
            {"adapter", ctx.adapter().name}};
  put_raw(j, "result", acc, gpu);
  put_raw(j, "cpu", acc, cpu);
  if (m.is_sum() && is_float(acc)) {
    // A float sum's order differs between the GPU and the loop: compared against the bound of README "Element
    // types": |GPU - sum| <= (n/1024 + 64) u sum|x| (u = 2^-53 for f64, 2^-24 for f32 accumulation of f16).
    std::vector<double> x(n);
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint64_t w = reference::widen_raw(a.type, a.get(i));
      x[i] = acc == dtype::f64 ? from_raw<double>(w) : static_cast<double>(from_bits<float>(static_cast<std::uint32_t>(w)));
    }
    double abs_sum = 0;
    const double ref = reference::compensated_sum_f64(x.data(), n, &abs_sum);
    const double got = acc == dtype::f64 ? from_raw<double>(gpu) : static_cast<double>(from_bits<float>(static_cast<std::uint32_t>(gpu)));
    const double u = acc == dtype::f64 ? 0x1.0p-53 : 0x1.0p-24;
    const double bound = (static_cast<double>(n) / 1024 + 64) * u * abs_sum;
    j["reference"] = std::isfinite(ref) ? json(ref) : json(nullptr);
    j["error_bound"] = bound;
    j["matches_cpu"] = std::isfinite(got) && std::isfinite(ref) ? json(std::fabs(got - ref) <= bound) : json(std::isnan(got) == std::isnan(ref));
  } else if (is_float(acc)) {
    const double g = acc == dtype::f64 ? from_raw<double>(gpu) : from_bits<float>(static_cast<std::uint32_t>(gpu));
    const double w = acc == dtype::f64 ? from_raw<double>(cpu) : from_bits<float>(static_cast<std::uint32_t>(cpu));
    j["matches_cpu"] = g == w || (std::isnan(g) && std::isnan(w));
  } else {
    j["matches_cpu"] = gpu == cpu;
  }
  if (m.is_sum() && !is_float(acc)) {
    // Integer sums wrap modulo 2^width, as in WGSL; the exact sum tells whether this one did.
    __int128 exact = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint64_t w = reference::widen_raw(a.type, a.get(i));
      exact += acc == dtype::i64 ? static_cast<__int128>(static_cast<std::int64_t>(w))
             : acc == dtype::i32 ? static_cast<__int128>(static_cast<std::int32_t>(w)) : static_cast<__int128>(w);
    }
    const unsigned bits = dtype_bytes(acc) * 8;
    const bool sg = is_signed(acc);
    const __int128 lo = sg ? -(static_cast<__int128>(1) << (bits - 1)) : 0;
    const __int128 hi = sg ? (static_cast<__int128>(1) << (bits - 1)) - 1 : (static_cast<__int128>(1) << bits) - 1;
    j["overflowed"] = exact < lo || exact > hi;
    std::string text;
    unsigned __int128 mag = exact < 0 ? static_cast<unsigned __int128>(-exact) : static_cast<unsigned __int128>(exact);
    do { text.insert(text.begin(), static_cast<char>('0' + static_cast<int>(mag % 10))); mag /= 10; } while (mag);
    j["exact_text"] = (exact < 0 ? "-" : "") + text;
  }
  j["gpu_ms"] = times[times.size() / 2];
  j["gpu_timer"] = st.gpu_timestamps ? "timestamps" : "wall";
  j["upload_ms"] = upload_ms;
  j["cpu_ms"] = cpu_ms;
  auto text = [&](const char* key) {
    return j.contains(std::string(key) + "_text") ? j[std::string(key) + "_text"].get<std::string>() : j[key].dump();
  };
  if (c.json) {
    std::cout << j.dump() << "\n";
  } else {
    fmt::print("reduce {} over {} {} values on {} (algorithm {}, accumulated in {})\n", j["op"].get<std::string>(), n,
               dtype_name(a.type), ctx.adapter().name, st.algorithm, dtype_name(acc));
    fmt::print("  GPU                  {}\n", text("result"));
    fmt::print("  CPU loop             {}\n", text("cpu"));
    if (j.contains("reference")) fmt::print("  compensated sum      {} (bound {:.3g})\n", text("reference"), j["error_bound"].get<double>());
    if (j.contains("exact_text")) fmt::print("  exact                {}\n", j["exact_text"].get<std::string>());
    fmt::print("  CPU twin             {}\n", j["matches_cpu"].get<bool>() ? "matches" : "DIFFERS");
    fmt::print("  {} time {:.3f} ms ({}), upload {:.3f} ms, CPU loop {:.3f} ms\n", j["adapter"].get<std::string>().rfind("native CPU", 0) == 0 ? "native" : "GPU", j["gpu_ms"].get<double>(),
               j["gpu_timer"].get<std::string>(), upload_ms, cpu_ms);
  }
  if (j.value("overflowed", false))
    std::cerr << "wgprim: warning: the " << dtype_name(acc) << " sum wrapped (exact " << j["exact_text"].get<std::string>()
              << ")\n";
  if (!j["matches_cpu"].get<bool>()) {
    std::cerr << "wgprim: error: the GPU result differs from the CPU twin\n";
    return 1;
  }
  return 0;
}

int run_scan_typed(const typed_cli& c, const io::array& input) {
  const io::array a = widened_for(c, input);
  refuse_native_for(c.adapter, a.type, c.accumulate);
  const op o = op::parse(c.op, c.identity);
  const monoid m(o, a.type);
  if (!c.no_check) m.check(/*need_commutative=*/false);
  if (!c.output.empty()) io::check_writable(c.output, c.output_format);
  context ctx(typed_options(c.adapter));
  const std::size_t n = a.size();
  const dtype acc = m.type();
  const unsigned ob = dtype_bytes(acc);
  run_stats st;
  run_options ro;
  ro.algorithm = c.algorithm;
  ro.check_operator = !c.no_check;
  ro.stats = &st;
  ro.tune = c.tune;
  ro.accuracy = parse_accuracy(c.accuracy);
  const scan_kind kind = c.exclusive ? scan_kind::exclusive : scan_kind::inclusive;
  auto t0 = std::chrono::steady_clock::now();
  buffer in = ctx.create_buffer(std::max<std::uint64_t>(4, a.bits.size() * 4));
  if (!a.bits.empty()) ctx.write(in, 0, a.bits.data(), a.bits.size() * 4);
  ctx.finish();
  const double upload_ms = ms_since(t0);
  buffer out = ctx.create_buffer(std::max<std::uint64_t>(8, n * ob));
  std::vector<double> times;
  std::uint64_t fallbacks = 0;  // over the runs: predecessor tiles a waiting workgroup reduced itself
  for (int r = 0; r < std::max(1, c.repeat); ++r) {
    scan_raw(ctx, in, out, n, m, a.type, kind, ro);
    times.push_back(st.gpu_ms);
    fallbacks += st.lookback_fallbacks;
  }
  std::sort(times.begin(), times.end());
  io::array got = io::array::zeros(acc, n);
  got.shape = a.shape;  // a scan keeps its input's shape
  if (n) ctx.read(out, 0, got.bits.data(), got.bits.size() * 4);
  io::array want = io::array::zeros(acc, n);
  t0 = std::chrono::steady_clock::now();
  reference::scan_raw(a.bits.data(), a.type, n, want.bits.data(), m, c.exclusive);
  const double cpu_ms = ms_since(t0);
  // Exact for integers and min/max; float sums in another grouping are compared within the reduce's bound on
  // every prefix, scaled by the prefix's sum of magnitudes.
  const bool float_sum = m.is_sum() && is_float(acc);
  auto value = [&](std::uint64_t raw) {
    return acc == dtype::f64 ? from_raw<double>(raw) : static_cast<double>(from_bits<float>(static_cast<std::uint32_t>(raw)));
  };
  const double u = acc == dtype::f64 ? 0x1.0p-53 : 0x1.0p-24;
  std::size_t mismatches = 0;
  double abs_prefix = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t g = got.get(i), w = want.get(i);
    if (float_sum) {
      const std::uint64_t x = reference::widen_raw(a.type, a.get(i));
      abs_prefix += std::fabs(value(x));
      const double bound = (static_cast<double>(i) / 1024 + 64) * u * abs_prefix;
      if (!(std::fabs(value(g) - value(w)) <= bound) && !(std::isnan(value(g)) && std::isnan(value(w)))) ++mismatches;
    } else if (is_float(acc)) {
      if (!(value(g) == value(w) || (std::isnan(value(g)) && std::isnan(value(w))))) ++mismatches;
    } else if (g != w) {
      ++mismatches;
    }
  }
  if (!c.output.empty()) io::write_array(c.output, got, c.output_format);
  json j = {{"op", o.is_custom() ? o.expression() : o.name()}, {"type", dtype_name(a.type)}, {"n", n},
            {"shape", shape_of(a)}, {"accumulated_in", dtype_name(acc)}, {"algorithm", st.algorithm},
            {"adapter", ctx.adapter().name}, {"kind", c.exclusive ? "exclusive" : "inclusive"},
            {"mismatches", mismatches}, {"compared_with", float_sum ? "CPU loop within the f64/f32 bound" : "CPU loop"}};
  if (n) put_raw(j, "last", acc, got.get(n - 1));
  else j["last"] = nullptr;
  j["gpu_ms"] = times[times.size() / 2];
  j["gpu_timer"] = st.gpu_timestamps ? "timestamps" : "wall";
  j["upload_ms"] = upload_ms;
  j["cpu_ms"] = cpu_ms;
  j["runs"] = std::max(1, c.repeat);
  j["lookback_fallbacks"] = fallbacks;
  const bool data_on_stdout = c.output == "-";
  if (c.json) {
    (data_on_stdout ? std::cerr : std::cout) << j.dump() << "\n";
  } else {
    fmt::print(data_on_stdout ? stderr : stdout, "{} scan {} over {} {} values on {} (algorithm {}, accumulated in {})\n",
               c.exclusive ? "exclusive" : "inclusive", j["op"].get<std::string>(), n, dtype_name(a.type),
               ctx.adapter().name, st.algorithm, dtype_name(acc));
    fmt::print(data_on_stdout ? stderr : stdout, "  mismatches vs the CPU loop: {}\n  {} time {:.3f} ms ({}), upload {:.3f} ms, CPU loop {:.3f} ms\n",
               mismatches, j["adapter"].get<std::string>().rfind("native CPU", 0) == 0 ? "native" : "GPU", j["gpu_ms"].get<double>(), j["gpu_timer"].get<std::string>(), upload_ms, cpu_ms);
    if (fallbacks)
      fmt::print(data_on_stdout ? stderr : stdout,
                 "  look-back fallbacks: {} predecessor tiles reduced by a waiting workgroup in {} runs\n", fallbacks,
                 std::max(1, c.repeat));
  }
  if (mismatches) {
    std::cerr << "wgprim: error: " << mismatches << " scanned values differ from the CPU twin\n";
    return 1;
  }
  return 0;
}

void add_types_bench_cases(context& ctx, std::size_t n_max, const bench_wants& wants, std::vector<bench_case>& cases) {
  // f64 and i64 reduce and scan rows (CUB's double / int64 rows in bench/cub), on buffers of their own.
  if (n_max * 8 > ctx.limits().max_buffer_size) return;
  struct v { const char* prim; const char* type; dtype t; bool scan; };
  std::shared_ptr<buffer> in, out, result;
  for (const v& x : {v{"reduce", "f64", dtype::f64, false}, v{"reduce", "i64", dtype::i64, false},
                     v{"inclusive_scan", "f64", dtype::f64, true}, v{"inclusive_scan", "i64", dtype::i64, true}}) {
    if (!ctx.supports(x.t)) continue;
    for (const auto& alg : x.scan ? scan_algorithms() : reduce_algorithms()) {
      if (alg == "render" || !wants(x.prim, alg)) continue;
      if (!in) {
        in = std::make_shared<buffer>(ctx.create_buffer(n_max * 8));
        out = std::make_shared<buffer>(ctx.create_buffer(n_max * 8));
        result = std::make_shared<buffer>(ctx.create_buffer(8));
        std::vector<double> host(std::min<std::size_t>(n_max, std::size_t(1) << 22));
        for (std::size_t i = 0; i < host.size(); ++i) host[i] = 1.0 + static_cast<double>(i % 1000) / 1000;
        for (std::size_t off = 0; off < n_max; off += host.size())
          ctx.write(*in, off * 8, host.data(), std::min(host.size(), n_max - off) * 8);
        ctx.finish();
      }
      auto m = std::make_shared<monoid>(op::sum(), x.t);
      run_options plain;
      plain.algorithm = alg;
      const dtype t = x.t;
      bench_case c{x.prim, alg, x.type, "sum", x.scan ? 16.0 : 8.0, nullptr, nullptr, nullptr};
      // K calls recorded into one encoder (batched_ms), as the 32-bit rows.
      if (x.scan) {
        c.record = [&ctx, in, out, plain, t](WGPUCommandEncoder enc, std::size_t n) {
          with_wide_type(t, [&](auto tag) {
            using T = decltype(tag);
            inclusive_scan(ctx, enc, device_span<const T>(*in, 0, n), device_span<T>(*out, 0, n), op::sum(), plain);
          });
        };
        c.run = [&ctx, in, out, m, plain, t](std::size_t n) {
          run_stats st;
          run_options ro = plain;
          ro.stats = &st;
          scan_raw(ctx, *in, *out, n, *m, t, scan_kind::inclusive, ro);
          return st.gpu_ms;
        };
        c.call = [&ctx, in, out, m, plain, t](std::size_t n) {
          scan_raw(ctx, *in, *out, n, *m, t, scan_kind::inclusive, plain);
          std::uint64_t last = 0;
          ctx.read(*out, (n - 1) * 8, &last, 8);
        };
      } else {
        c.run = [&ctx, in, m, plain, t](std::size_t n) {
          run_stats st;
          run_options ro = plain;
          ro.stats = &st;
          reduce_raw(ctx, *in, n, *m, t, ro);
          return st.gpu_ms;
        };
        c.call = [&ctx, in, m, plain, t](std::size_t n) { reduce_raw(ctx, *in, n, *m, t, plain); };
        c.record = [&ctx, in, result, plain, t](WGPUCommandEncoder enc, std::size_t n) {
          with_wide_type(t, [&](auto tag) {
            using T = decltype(tag);
            reduce(ctx, enc, device_span<const T>(*in, 0, n), device_span<T>(*result, 0, 1), op::sum(), plain);
          });
        };
      }
      cases.push_back(std::move(c));
    }
  }
}
