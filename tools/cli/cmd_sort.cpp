// `wgprim sort`: radix sort of an array's keys (and a values array), checked against the CPU twin
// (std::stable_sort with the same order); and the sort rows of `wgprim bench`.
#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <iostream>
#include <memory>
#include <optional>
#include <nlohmann/json.hpp>
#include <random>
#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "bench.hpp"
#include "wgprim/io.hpp"
#include "wgprim/wgprim.hpp"
#include "word_elements.hpp"

using json = nlohmann::json;
using namespace wgprim;

namespace {

struct sort_cli {
  std::string adapter, input, output, values, values_output, algorithm, type;
  bool descending = false, json = false;
  int repeat = 1;
  tuning tune;
};
sort_cli& opts() {
  static sort_cli o;
  return o;
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

CLI::App* add_sort_command(CLI::App& app) {
  sort_cli& o = opts();
  auto* s = app.add_subcommand("sort", "stable radix sort of keys (and values), checked against std::stable_sort");
  s->add_option("--adapter", o.adapter, "adapter name substring (default: WGPRIM_ADAPTER, else the best GPU)");
  s->add_flag("--json", o.json, "print one JSON object");
  s->add_option("--input", o.input, "keys: .npy, .bin (with --type), .csv or .txt; u32, i32 or f32")->required();
  // A .bin input's error asked for --type, which sort refused (issue 29 row 10): it takes it now.
  s->add_option("--type", o.type, "the keys' type: u32, i32 or f32 (needed for .bin; forces .csv/.txt)");
  s->add_option("--output", o.output, "sorted keys (.npy, .bin, .csv, .txt)");
  s->add_option("--values", o.values, "values (32-bit, same length) to sort with the keys");
  s->add_option("--values-output", o.values_output, "the values in key order");
  s->add_flag("--descending", o.descending, "largest first (still stable; f32 NaNs first)");
  s->add_option("--algorithm", o.algorithm, "onesweep | reduce-then-scan (default: the adapter's)");
  s->add_option("--repeat", o.repeat, "sort this many times and report the median GPU time (the first run compiles)")
      ->check(CLI::Range(1, 1000));
  s->add_option("--items", o.tune.items, "policy override: keys per invocation per tile");
  s->add_option("--spin-limit", o.tune.spin_limit, "policy override (onesweep): polls before fallback");
  s->add_option("--lookback-window", o.tune.lookback_window,
                "policy override (onesweep): predecessor states each digit reads at once");
  return s;
}

int run_sort_command() {
  const sort_cli& o = opts();
  std::optional<dtype> key_type;
  if (!o.type.empty()) key_type = parse_dtype(o.type);
  io::array keys = io::read_array(o.input, key_type);
  require_word_elements(keys, "sort: '" + detail::excerpt(o.input, 200) + "'",
                        " (64-bit keys: wgprim::sort in C++ or wgprim.sort in Python)");
  io::array vals;
  const bool pairs = !o.values.empty();
  if (pairs) {
    vals = io::read_array(o.values);
    require_word_elements(vals, "sort: --values '" + detail::excerpt(o.values, 200) + "'");
    if (vals.bits.size() != keys.bits.size())
      throw error(errc::invalid_argument, "--values has " + std::to_string(vals.bits.size()) + " elements, --input " +
                                              std::to_string(keys.bits.size()));
  } else if (!o.values_output.empty()) {
    throw error(errc::invalid_argument, "--values-output needs --values");
  }
  if (!o.output.empty()) io::check_writable(o.output);
  if (!o.values_output.empty()) io::check_writable(o.values_output);
  const order ord = o.descending ? order::descending : order::ascending;
  const std::size_t n = keys.bits.size();
  context ctx(context_options{o.adapter});

  auto t0 = std::chrono::steady_clock::now();
  buffer kin = ctx.create_buffer(std::max<std::size_t>(n, 1) * 4), kout = ctx.create_buffer(std::max<std::size_t>(n, 1) * 4);
  buffer vin, vout;
  if (n) ctx.write(kin, 0, keys.bits.data(), n * 4);
  if (pairs) {
    vin = ctx.create_buffer(std::max<std::size_t>(n, 1) * 4);
    vout = ctx.create_buffer(std::max<std::size_t>(n, 1) * 4);
    if (n) ctx.write(vin, 0, vals.bits.data(), n * 4);
  }
  ctx.finish();
  const double upload_ms = ms_since(t0);

  run_stats st;
  run_options ro;
  ro.algorithm = o.algorithm;
  ro.stats = &st;
  ro.tune = o.tune;
  std::vector<double> times;
  std::uint64_t fallbacks = 0;
  for (int r = 0; r < o.repeat; ++r) {
    sort_bits(ctx, kin, kout, n, keys.type, ord, pairs ? &vin : nullptr, pairs ? &vout : nullptr, ro);
    times.push_back(st.gpu_ms);
    fallbacks += st.lookback_fallbacks;
  }
  std::sort(times.begin(), times.end());
  st.gpu_ms = times[times.size() / 2];
  st.lookback_fallbacks = fallbacks;
  io::array got{keys.type, std::vector<std::uint32_t>(n)}, got_v{vals.type, std::vector<std::uint32_t>(pairs ? n : 0)};
  if (n) ctx.read(kout, 0, got.bits.data(), n * 4);
  if (pairs && n) ctx.read(vout, 0, got_v.bits.data(), n * 4);

  std::vector<std::uint32_t> want = keys.bits, want_v = vals.bits;
  auto t1 = std::chrono::steady_clock::now();
  cpu::stable_sort(want.data(), n, keys.type, o.descending, pairs ? want_v.data() : nullptr);
  const double cpu_ms = ms_since(t1);
  std::size_t mismatches = 0;
  for (std::size_t i = 0; i < n; ++i)
    mismatches += got.bits[i] != want[i] || (pairs && got_v.bits[i] != want_v[i]);

  if (!o.output.empty()) io::write_array(o.output, got);
  if (!o.values_output.empty()) io::write_array(o.values_output, got_v);
  json j = {{"op", pairs ? "sort_pairs" : "sort_keys"},
            {"type", dtype_name(keys.type)},
            {"n", n},
            {"order", o.descending ? "descending" : "ascending"},
            {"algorithm", st.algorithm},
            {"adapter", ctx.adapter().name},
            {"mismatches", mismatches},
            {"gpu_ms", st.gpu_ms},
            {"gpu_timer", st.gpu_timestamps ? "timestamps" : "wall"},
            {"upload_ms", upload_ms},
            {"cpu_ms", cpu_ms},
            {"lookback_fallbacks", st.lookback_fallbacks}};
  if (o.json) {
    std::cout << j.dump() << "\n";
  } else {
    fmt::print("{} {} of {} {} keys on {} ({})\n", st.algorithm, pairs ? "sort_pairs" : "sort",
               n, dtype_name(keys.type), ctx.adapter().name, o.descending ? "descending" : "ascending");
    fmt::print("  {} elements differ from std::stable_sort\n", mismatches);
    fmt::print("  {} time {:.3f} ms ({}), upload {:.3f} ms, std::stable_sort {:.3f} ms\n", j["adapter"].get<std::string>().rfind("native CPU", 0) == 0 ? "native" : "GPU", st.gpu_ms,
               j["gpu_timer"].get<std::string>(), upload_ms, cpu_ms);
  }
  if (mismatches) {
    std::cerr << "wgprim: error: " << mismatches << " sorted elements differ from the CPU twin\n";
    return 1;
  }
  return 0;
}

namespace {
/// Tuning variants of the onesweep rows from WGPRIM_SORT_TUNES ("items:window[:spin],..."), so that one bench run
/// can compare a few policies; each gives rows named onesweep/i<items>w<window>[s<spin>].
std::vector<std::pair<std::string, tuning>> sort_tunes() {
  std::vector<std::pair<std::string, tuning>> v;
  const char* env = std::getenv("WGPRIM_SORT_TUNES");
  if (!env) return v;
  std::string text = env;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, end - start);
    unsigned items = 0, window = 0, spin = 0;
    const int got = std::sscanf(item.c_str(), "%u:%u:%u", &items, &window, &spin);
    if (got < 2 || !items || !window)
      throw error(errc::invalid_argument, "WGPRIM_SORT_TUNES: '" + item + "' is not items:window[:spin]");
    tuning t;
    t.items = items;
    t.lookback_window = window;
    t.spin_limit = got == 3 ? spin : 0;
    v.push_back({"/i" + std::to_string(items) + "w" + std::to_string(window) + (got == 3 ? "s" + std::to_string(spin) : ""), t});
    start = end + 1;
  }
  return v;
}
}  // namespace

void add_sort_bench_cases(context& ctx, std::size_t n_max, const bench_wants& wants, std::vector<bench_case>& cases) {
  // Random keys over the whole range (every digit pass runs); the sort reads them and writes into `out`, so every
  // run sorts the same unsorted data. call_ms: the sort and a read of the last key (as CUB's call_ms);
  // batched_ms: K sorts recorded into one encoder.
  struct buffers { buffer keys_u32, keys_f32, vals, out, out_vals; };
  auto b = std::make_shared<buffers>();
  auto make = [&](bool f32) {
    buffer x = ctx.create_buffer(n_max * 4);
    std::vector<std::uint32_t> host(std::min<std::size_t>(n_max, std::size_t(1) << 24));
    std::mt19937 rng(f32 ? 2 : 1);
    for (std::size_t off = 0; off < n_max; off += host.size()) {
      for (auto& v : host) {
        v = rng();
        if (f32 && (v & 0x7f800000u) == 0x7f800000u) v &= 0xbfffffffu;  // no NaN / inf
      }
      ctx.write(x, off * 4, host.data(), std::min(host.size(), n_max - off) * 4);
    }
    return x;
  };
  std::vector<std::pair<std::string, run_options>> variants;
  for (const auto& alg : algorithms("sort")) {
    run_options ro;
    ro.algorithm = alg;
    variants.push_back({alg, ro});
    if (alg == "onesweep")
      for (const auto& [suffix, t] : sort_tunes()) {
        ro.tune = t;
        variants.push_back({alg + suffix, ro});
      }
  }
  bool any = false;
  for (const auto& v : variants) any |= wants("sort_keys", v.second.algorithm) || wants("sort_pairs", v.second.algorithm);
  if (!any) return;
  b->keys_u32 = make(false);
  b->keys_f32 = make(true);
  b->vals = make(false);
  b->out = ctx.create_buffer(n_max * 4);
  b->out_vals = ctx.create_buffer(n_max * 4);
  ctx.finish();
  for (const auto& [name, plain] : variants) {
    for (const bool pairs : {false, true}) {
      const char* prim = pairs ? "sort_pairs" : "sort_keys";
      if (!wants(prim, plain.algorithm)) continue;
      for (const dtype t : {dtype::u32, dtype::i32, dtype::f32}) {
        bench_case c{prim, name, dtype_name(t), "-", pairs ? 16.0 : 8.0, nullptr, nullptr, nullptr};
        const buffer* in = t == dtype::f32 ? &b->keys_f32 : &b->keys_u32;
        const run_options ro0 = plain;
        c.run = [&ctx, b, in, t, pairs, ro0](std::size_t n) {
          run_stats st;
          run_options ro = ro0;
          ro.stats = &st;
          sort_bits(ctx, *in, b->out, n, t, order::ascending, pairs ? &b->vals : nullptr, pairs ? &b->out_vals : nullptr,
                    ro);
          return st.gpu_ms;
        };
        c.call = [&ctx, b, in, t, pairs, ro0](std::size_t n) {
          sort_bits(ctx, *in, b->out, n, t, order::ascending, pairs ? &b->vals : nullptr, pairs ? &b->out_vals : nullptr,
                    ro0);
          std::uint32_t last;
          ctx.read(b->out, (n - 1) * 4, &last, 4);
        };
        c.record = [&ctx, b, in, t, pairs, ro0](WGPUCommandEncoder enc, std::size_t n) {
          auto go = [&](auto tag) {
            using T = decltype(tag);
            const device_span<const T> k(*in, 0, n);
            const device_span<T> ko(b->out, 0, n);
            if (pairs)
              sort_pairs(ctx, enc, k, device_span<const std::uint32_t>(b->vals, 0, n),
                         ko, device_span<std::uint32_t>(b->out_vals, 0, n), order::ascending, ro0);
            else
              sort(ctx, enc, k, ko, order::ascending, ro0);
          };
          if (t == dtype::u32) go(std::uint32_t{});
          else if (t == dtype::i32) go(std::int32_t{});
          else go(float{});
        };
        cases.push_back(std::move(c));
      }
    }
  }
}
