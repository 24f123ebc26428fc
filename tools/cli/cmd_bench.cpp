// wgprim bench: sweeps n = 2^min..2^max over every algorithm of reduce and scan, plus a copy kernel of the same
// bytes (the adapter's limit). GPU time from timestamp queries (wall time on CPU adapters), median of `reps`
// runs after `warmup` discarded runs. GB/s = bytes moved / time: reduce reads 4n bytes, scan and copy move 8n.
#include "cmd_run.hpp"
#include <fmt/core.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <chrono>
#include <set>
#include <random>

#include <CLI/CLI.hpp>

#include "bench.hpp"
#include "command.hpp"
#include "plot.hpp"
#include "util.hpp"
#include "wgprim/io.hpp"
#include "wgprim/wgprim.hpp"

using json = nlohmann::json;
using namespace wgprim;

namespace {

struct bench_args {
  std::string adapter, primitives = "all", algorithm, output;
  // -1 (min_log2, reps, warmup, batch) and 0 (max_log2): not given, chosen for the adapter. The quick default
  // (under a minute anywhere): 2^10..2^13, 3 reps, 2 warm-ups, K = 4 on CPU adapters; 2^16..2^26, 5 reps, 2 warm-ups,
  // K = 10 on GPUs. --full: 2^16..2^24 (CPU adapters) or 2^28 (GPUs), 20 reps, 3 warm-ups, K = 50.
  int min_log2 = -1, max_log2 = 0;
  int reps = -1, warmup = -1;
  int batch = -1;         // K: calls per timed round of call_ms, and per submission of batched_ms
  int warm_ms = 50;       // GPUs: each case runs in windows this long until its time settles (warm_until_steady)
  bool full = false;      // the long sweep (the defaults above)
  bool quiet = false;     // no progress on stderr
  bool verbose = false;   // a line per case on stderr
  bool json = false;
  bool accuracy = false;  // the accuracy table instead of the speed sweep
  std::string plot, cub, from;
};


// The WGSL algorithms' benchmark runs on WebGPU unless the native backend is named (--adapter cpu): the library's
// automatic choice would pick the native backend on a machine without a GPU. bench-cpu compares the two.
context_options bench_options(const std::string& adapter) {
  std::string low;
  for (char ch : adapter) low += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  context_options o{adapter};
  if (low != "cpu" && low != "native") o.backend = backend_choice::webgpu;
  return o;
}

bench_variants variants;  // --scan-tunes, --sort-tunes, --sort-bits

// Extra decoupled-scan rows from --scan-tunes "layout:items[:window[:spin[:sg]]],..." (layout direct |
// staged | raked, items 1..8, look-back window 1..256, spin limit, sg 1: the look-back walked by one subgroup, 0:
// by the workgroup), named decoupled/<layout>i<items>[w<window>][s<spin>][sg], so that one bench run compares
// tunings (as --sort-tunes).
std::vector<std::pair<std::string, tuning>> scan_tunes() {
  std::vector<std::pair<std::string, tuning>> v;
  const std::string& text = variants.scan_tunes;
  if (text.empty()) return v;
  for (std::size_t start = 0; start <= text.size();) {
    const std::size_t end = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, end - start);
    char layout[16] = {0};
    unsigned items = 0, window = 0, spin = 0, sg = 0;
    const int got = std::sscanf(item.c_str(), "%15[a-z]:%u:%u:%u:%u", layout, &items, &window, &spin, &sg);
    const std::string l = layout;
    const int staged = l == "direct" ? 0 : l == "staged" ? 1 : l == "raked" ? 2 : -1;
    if (got < 2 || staged < 0 || items < 1 || items > 8 || (got >= 3 && (window < 1 || window > 256)) ||
        (got >= 5 && sg > 1))
      throw error(errc::invalid_argument, "--scan-tunes: '" + item +
                                              "' is not layout:items[:window[:spin[:sg]]] (layout "
                                              "direct|staged|raked, items 1..8, window 1..256, sg 0|1: subgroup "
                                              "look-back)");
    tuning t;
    t.staged = staged;
    t.items = items;
    t.lookback_window = got >= 3 ? window : 0;
    t.spin_limit = got >= 4 ? spin : 0;
    t.lookback_subgroup = got >= 5 ? static_cast<int>(sg) : -1;
    v.push_back({"decoupled/" + l + "i" + std::to_string(items) + (got >= 3 ? "w" + std::to_string(window) : "") +
                     (got >= 4 ? "s" + std::to_string(spin) : "") + (got >= 5 && sg ? "sg" : ""),
                 t});
    start = end + 1;
  }
  return v;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

}  // namespace

namespace {
// A bench JSON file (ours or bench/cub's), every record checked before it is charted: a record with n == 0 sent
// the chart's axis loop to -inf (a hang, issue 29 row 7), and a missing or mistyped field threw nlohmann's raw
// text with exit 1 (row 9). Now: "FILE: field 'x' of results[i] ..." and errc::io (exit 3).
json read_json(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw error(errc::io, "cannot open '" + path + "'");
  json j;
  try {
    j = json::parse(f);
  } catch (const json::exception& e) {
    throw error(errc::io, path + ": not valid JSON: " + std::string(e.what()));
  }
  if (!j.is_object() || !j.contains("results")) throw error(errc::io, path + ": field 'results' is missing");
  if (!j["results"].is_array()) throw error(errc::io, path + ": field 'results' is not an array");
  for (std::size_t i = 0; i < j["results"].size(); ++i) {
    const json& r = j["results"][i];
    const std::string where = " of results[" + std::to_string(i) + "]";
    if (!r.is_object()) throw error(errc::io, path + ": results[" + std::to_string(i) + "] is not an object");
    for (const char* k : {"primitive", "type", "op", "algorithm"}) {
      if (!r.contains(k)) throw error(errc::io, path + ": field '" + k + "'" + where + " is missing");
      if (!r[k].is_string()) throw error(errc::io, path + ": field '" + k + "'" + where + " is not a string");
    }
    for (const char* k : {"n", "gbps"}) {
      if (!r.contains(k)) throw error(errc::io, path + ": field '" + k + "'" + where + " is missing");
      if (!r[k].is_number()) throw error(errc::io, path + ": field '" + k + "'" + where + " is not a number");
    }
    const double n = r["n"].get<double>(), gbps = r["gbps"].get<double>();
    if (!(n >= 1 && n <= 9.007199254740992e15) || n != std::floor(n))
      throw error(errc::io, path + ": field 'n'" + where + " must be a whole number from 1 to 2^53 (it is " +
                                r["n"].dump() + ")");
    if (!(gbps >= 0 && std::isfinite(gbps)))
      throw error(errc::io, path + ": field 'gbps'" + where + " must be a finite number >= 0 (it is " +
                                r["gbps"].dump() + ")");
  }
  return j;
}

int run_bench(const bench_args& a) {
  if (!a.plot.empty()) io::check_writable(a.plot, "bin");  // a PNG: checked as a file of any known type
  json cub_doc;
  if (!a.cub.empty()) cub_doc = read_json(a.cub);
  if (!a.from.empty()) {  // chart existing results, no GPU needed
    if (a.plot.empty()) throw error(errc::invalid_argument, "--from needs --plot");
    plot::bench_chart(read_json(a.from), a.cub.empty() ? nullptr : &cub_doc, a.plot);
    return 0;
  }
  context ctx(bench_options(a.adapter));
  const bool cpu = ctx.adapter().kind == adapter_kind::cpu;
  const bool native = ctx.backend() == backend_choice::native;
  // Sizes and repetitions: given, or chosen for the adapter (bench.hpp): the quick default finishes in under a
  // minute anywhere, --full is the long sweep.
  int max_log2 = a.max_log2 ? a.max_log2 : a.full ? (cpu ? 24 : 28) : (cpu ? 13 : 25);
  if (!a.max_log2 && !a.full)  // the quick default never asks for more than the adapter's largest buffer
    while (max_log2 > 10 && (std::size_t(1) << max_log2) * 4 > ctx.limits().max_buffer_size) --max_log2;
  const int min_log2 = a.min_log2 != -1 ? a.min_log2 : std::min(max_log2, a.full || !cpu ? 16 : 10);
  const int reps = a.reps != -1 ? a.reps : a.full ? 20 : cpu ? 3 : 5;
  const int warmup = a.warmup != -1 ? a.warmup : a.full ? 3 : 2;
  const int batch = a.batch != -1 ? a.batch : a.full ? 50 : cpu ? 4 : 10;
  if (min_log2 < 0 || max_log2 > 31 || min_log2 > max_log2)
    throw error(errc::invalid_argument, "bad size range 2^" + std::to_string(min_log2) + "..2^" + std::to_string(max_log2));
  if (reps < 1 || reps > 10000 || warmup < 0 || warmup > 1000 || batch < 1 || batch > 10000)
    throw error(errc::invalid_argument, "bad --reps, --warmup or --batch");
  std::size_t n_max = std::size_t(1) << max_log2;
  if (n_max * 4 > ctx.limits().max_buffer_size)
    throw error(errc::limit, fmt::format("2^{} elements exceed the adapter's max buffer of {} bytes", max_log2,
                                         ctx.limits().max_buffer_size));

  // --primitives names primitives exactly ("reduce" is not transform_reduce, segmented_reduce or reduce_by_key).
  std::set<std::string> asked;
  const bool all = a.primitives == "all";
  if (!all)
    for (std::size_t start = 0;;) {
      const std::size_t end = a.primitives.find(',', start);
      std::string item = a.primitives.substr(start, end == std::string::npos ? std::string::npos : end - start);
      while (!item.empty() && item.back() == ' ') item.pop_back();
      while (!item.empty() && item.front() == ' ') item.erase(item.begin());
      asked.insert(item);
      if (end == std::string::npos) break;
      start = end + 1;
    }
  std::vector<std::string> known;  // every primitive name a row builder asked about, in order
  bool dry = false;                // the first pass only collects the names, before any buffer is made
  auto wants = [&](const std::string& prim, const std::string& alg) {
    if (std::find(known.begin(), known.end(), prim) == known.end()) known.push_back(prim);
    if (dry) return false;
    bool p = all || asked.count(prim) > 0;
    bool g = a.algorithm.empty() || a.algorithm == alg || prim == "copy";
    return p && g;
  };
  buffer in, out, result;
  std::vector<bench_case> cases;
  auto build_cases = [&] {
    const std::vector<std::string> native_only = {"native"};
    for (const auto& alg : native ? native_only : reduce_algorithms()) {
      if (!wants("reduce", alg)) continue;
      struct v { const char* type; dtype t; op o; };
      for (const v& x : {v{"f32", dtype::f32, op::sum()}, v{"u32", dtype::u32, op::sum()}, v{"f32", dtype::f32, op::max()}}) {
        auto m = std::make_shared<monoid>(x.o, x.t);
        run_options plain;
        plain.algorithm = alg;
        const op o = x.o;
        const dtype t = x.t;
        bench_case c{"reduce", alg, x.type, x.o.name(), 4, nullptr, nullptr, nullptr};
        c.run = [&, m, plain](std::size_t n) {
          run_stats st;
          run_options ro = plain;
          ro.stats = &st;
          reduce_bits(ctx, in, n, *m, ro);
          return st.gpu_ms;
        };
        c.call = [&, m, plain](std::size_t n) { reduce_bits(ctx, in, n, *m, plain); };
        if (alg != "render")  // the render reduction writes through textures: recordable, but not a compute row
          c.record = [&, o, t, plain](WGPUCommandEncoder enc, std::size_t n) {
            with_type(t, [&](auto tag) {
              using T = decltype(tag);
              reduce(ctx, enc, device_span<const T>(in, 0, n), device_span<T>(result, 0, 1), o, plain);
            });
          };
        cases.push_back(std::move(c));
      }
    }
    for (const auto& alg : native ? native_only : scan_algorithms()) {
      const bool inc = wants("inclusive_scan", alg), exc = wants("exclusive_scan", alg);
      if (!inc && !exc) continue;
      struct v { const char* prim; const char* type; dtype t; scan_kind k; };
      for (const v& x : {v{"inclusive_scan", "u32", dtype::u32, scan_kind::inclusive},
                         v{"inclusive_scan", "f32", dtype::f32, scan_kind::inclusive},
                         v{"exclusive_scan", "u32", dtype::u32, scan_kind::exclusive}}) {
        if (!wants(x.prim, alg)) continue;
        auto m = std::make_shared<monoid>(op::sum(), x.t);
        const scan_kind k = x.k;
        const dtype t = x.t;
        run_options plain;
        plain.algorithm = alg;
        bench_case c{x.prim, alg, x.type, "sum", 8, nullptr, nullptr, nullptr};
        c.run = [&, m, k, plain](std::size_t n) {
          run_stats st;
          run_options ro = plain;
          ro.stats = &st;
          scan(ctx, in, out, n, *m, k, ro);
          return st.gpu_ms;
        };
        // Result on the host: the last element read back (CUB's call_ms copies the last element too).
        c.call = [&, m, k, plain](std::size_t n) {
          scan(ctx, in, out, n, *m, k, plain);
          std::uint32_t last;
          ctx.read(out, (n - 1) * 4, &last, 4);
        };
        // K calls recorded into one encoder (batched_ms), under the given options.
        const auto record_with = [&, k, t](const run_options& opts) {
          return [&, k, t, opts](WGPUCommandEncoder enc, std::size_t n) {
            with_type(t, [&](auto tag) {
              using T = decltype(tag);
              if (k == scan_kind::inclusive)
                inclusive_scan(ctx, enc, device_span<const T>(in, 0, n), device_span<T>(out, 0, n), op::sum(), opts);
              else
                exclusive_scan(ctx, enc, device_span<const T>(in, 0, n), device_span<T>(out, 0, n), op::sum(), opts);
            });
          };
        };
        c.record = record_with(plain);
        cases.push_back(std::move(c));
        if (alg == "decoupled")  // --scan-tunes rows: GPU time, call time and batched time under each tuning
          for (const auto& [name, tune] : scan_tunes()) {
            run_options tuned = plain;
            tuned.tune = tune;
            bench_case r{x.prim, name, x.type, "sum", 8, nullptr, nullptr, nullptr};
            r.run = [&, m, k, tuned](std::size_t n) {
              run_stats st;
              run_options ro = tuned;
              ro.stats = &st;
              scan(ctx, in, out, n, *m, k, ro);
              return st.gpu_ms;
            };
            r.call = [&, m, k, tuned](std::size_t n) {
              scan(ctx, in, out, n, *m, k, tuned);
              std::uint32_t last;
              ctx.read(out, (n - 1) * 4, &last, 4);
            };
            r.record = record_with(tuned);
            cases.push_back(std::move(r));
          }
      }
    }
    add_select_bench_cases(ctx, n_max, wants, cases);
    add_sort_bench_cases(ctx, n_max, wants, cases);
    add_chain_bench_cases(ctx, n_max, wants, cases);
    add_arg_reduce_bench_cases(ctx, in, wants, cases);
    add_transform_reduce_bench_cases(ctx, in, wants, cases);
    add_types_bench_cases(ctx, n_max, wants, cases);
    add_hist_bench_cases(ctx, n_max, cases, wants);
    if (wants("copy", "copy")) {
      bench_case c{"copy", "wgsl-copy", "u32", "-", 8, nullptr, nullptr, nullptr};
      c.run = [&](std::size_t n) {
        run_stats st;
        run_options ro;
        ro.stats = &st;
        copy(ctx, device_span<const std::uint32_t>(in, 0, n), device_span<std::uint32_t>(out, 0, n), ro);
        return st.gpu_ms;
      };
      c.call = [&](std::size_t n) {
        copy(ctx, device_span<const std::uint32_t>(in, 0, n), device_span<std::uint32_t>(out, 0, n));
        std::uint32_t last;
        ctx.read(out, (n - 1) * 4, &last, 4);
      };
      c.record = [&](WGPUCommandEncoder enc, std::size_t n) {
        copy(ctx, enc, device_span<const std::uint32_t>(in, 0, n), device_span<std::uint32_t>(out, 0, n));
      };
      cases.push_back(std::move(c));
    }

  };
  const bool tty = ::isatty(2) && !a.quiet;
  struct line_clear {  // an error thrown mid-sweep starts its line on a clean terminal line
    bool on;
    ~line_clear() { if (on) fmt::print(stderr, "\r\x1b[2K"); }
  } clear_line{tty};
  dry = true;
  build_cases();
  for (const std::string& item : asked)
    if (std::find(known.begin(), known.end(), item) == known.end()) {
      std::string names = "all";
      for (const std::string& k : known) names += ", " + k;
      throw error(errc::invalid_argument, "unknown primitive '" + item + "' for --primitives (valid: " + names + ")");
    }
  if (tty) fmt::print(stderr, "\r\x1b[2Kbench: preparing 2^{} elements on {}...", max_log2, ctx.adapter().name);
  // One input buffer (floats in [1, 2): also fine as u32 data) and one output buffer, bound by prefix.
  in = ctx.create_buffer(n_max * 4);
  out = ctx.create_buffer(n_max * 4);
  {
    std::vector<std::uint32_t> host(std::min<std::size_t>(n_max, std::size_t(1) << 24));
    std::mt19937 rng(1);
    for (auto& x : host) x = 0x3f800000u | (rng() & 0x7fffffu);
    for (std::size_t off = 0; off < n_max; off += host.size())
      ctx.write(in, off * 4, host.data(), std::min(host.size(), n_max - off) * 4);
    ctx.finish();
  }
  result = ctx.create_buffer(256);
  dry = false;
  build_cases();
  if (tty) fmt::print(stderr, "\r\x1b[2K");
  if (!a.algorithm.empty() &&
      std::none_of(cases.begin(), cases.end(), [&](const bench_case& c) { return c.algorithm == a.algorithm; }))
    throw error(errc::invalid_argument, "unknown algorithm '" + a.algorithm + "' for --algorithm");

  const std::size_t total = cases.size() * static_cast<std::size_t>(max_log2 - min_log2 + 1);
  std::size_t done = 0;
  json results = json::array();
  std::set<const bench_case*> warmed;
  for (int lg = min_log2; lg <= max_log2; ++lg) {
    std::size_t n = std::size_t(1) << lg;
    for (auto& c : cases) {
      if (n < c.min_n) {
        ++done;
        continue;
      }
      // Progress on a terminal: one line, rewritten in place (--verbose: a line per case instead; --quiet: none).
      if (tty && !a.verbose) {
        int w = 20, filled = static_cast<int>(w * done / std::max<std::size_t>(1, total));
        fmt::print(stderr, "\r\x1b[2K[{}{}] case {}/{} {} {} {} {} n=2^{}", std::string(filled, '#'),
                   std::string(w - filled, ' '), done + 1, total, c.primitive, c.algorithm, c.type, c.op, lg);
        std::fflush(stderr);
      }
      // compile_ms: what the first call of a row costs beyond the next one (pipeline creation, a driver's
      // compilation on first use); the warm-up keeps it out of every timed figure.
      double compile_ms = 0;
      int warmups = warmup;
      using wall = std::chrono::steady_clock;
      if (warmups >= 2 && !warmed.count(&c)) {  // these two runs are warm-up runs too
        warmups -= 2;
        warmed.insert(&c);
        auto w0 = wall::now();
        c.run(n);
        auto w1 = wall::now();
        c.run(n);
        auto w2 = wall::now();
        compile_ms = std::max(0.0, std::chrono::duration<double, std::milli>((w1 - w0) - (w2 - w1)).count());
      }
      for (int i = 0; i < warmups; ++i) c.run(n);
      // A GPU left idle (the host generating a large input, a new process) drops its clocks, and a few warm-up runs
      // of a short kernel do not raise them again: on the H200 the first case of a process ran up to 6x slower in
      // its timed runs than the same kernel later (session 12), and 50 ms of runs were not always enough (session
      // 13). So a GPU runs the case until its time per run settles.
      // The warm-up submits calls in batches where the case records them: a short kernel run one call per wait
      // leaves the GPU idle between calls, and its clocks low.
      // `calls` calls recorded into one submission and waited for; returns the host time of recording one.
      auto batched_round = [&](int calls) {
        WGPUCommandEncoder enc = ctx.begin_commands();
        const auto r0 = wall::now();
        for (int i = 0; i < calls; ++i) c.record(enc, n);
        const double record_one = std::chrono::duration<double, std::milli>(wall::now() - r0).count() / calls;
        ctx.submit(enc);
        ctx.finish();
        return record_one;
      };
      if (!cpu && !native) {
        if (c.record) warm_until_steady([&] { batched_round(10); }, a.warm_ms);
        else warm_until_steady([&] { c.run(n); }, a.warm_ms);
      }
      std::vector<double> t;
      for (int i = 0; i < reps; ++i) t.push_back(c.run(n));
      double ms = median(t);
      double gbps = c.bytes_per_element * static_cast<double>(n) / (ms * 1e-3) / 1e9;
      json rec = {{"primitive", c.primitive}, {"algorithm", c.algorithm}, {"type", c.type}, {"op", c.op},
                  {"n", n}, {"gpu_ms", ms}, {"gbps", gbps}, {"compile_ms", compile_ms}};
      // Wall clock as the caller waits: K calls per round (a), K calls recorded into one submission (b); the
      // median of `reps` rounds after `warmup` discarded calls.
      // The same K at every n (and as bench/cub's --k): a smaller K at large n would spread the submit and wait
      // over fewer calls than the anchor's and make the batched figure worse than it is.
      const int k = batch;
      using clock = std::chrono::steady_clock;
      if (c.call) {
        for (int i = 0; i < warmup; ++i) {
          if (c.prepare) c.prepare(n);
          c.call(n);
        }
        std::vector<double> w;
        for (int r = 0; r < reps; ++r) {
          double ms = 0;
          if (c.prepare) {  // each call timed alone, after its untimed preparation
            for (int i = 0; i < k; ++i) {
              c.prepare(n);
              auto t0 = clock::now();
              c.call(n);
              ms += std::chrono::duration<double, std::milli>(clock::now() - t0).count();
            }
          } else {
            auto t0 = clock::now();
            for (int i = 0; i < k; ++i) c.call(n);
            ms = std::chrono::duration<double, std::milli>(clock::now() - t0).count();
          }
          w.push_back(ms / k);
        }
        rec["call_ms"] = median(w);
      }
      if (c.record && !native) {  // the native backend records no command encoders: no batched figure
        // record_ms: the CPU time of recording alone (what each call costs the host before any GPU work).
        double record_ms = 0;
        auto round = [&] { record_ms = batched_round(k); };
        if (warmup) round();
        std::vector<double> w, rw;
        for (int r = 0; r < std::max(3, reps / 4); ++r) {
          auto t0 = clock::now();
          round();
          w.push_back(std::chrono::duration<double, std::milli>(clock::now() - t0).count() / k);
          rw.push_back(record_ms);
        }
        rec["batched_ms"] = median(w);
        rec["record_ms"] = median(rw);
        rec["batch"] = k;
      }
      if (a.verbose && !a.quiet)
        fmt::print(stderr, "case {}/{} {} {} {} {} n=2^{}: {:.4f} ms, {:.2f} GB/s\n", done + 1, total, c.primitive,
                   c.algorithm, c.type, c.op, lg, ms, gbps);
      if (!cpu && !native) note_gpu_busy();  // the timed runs kept the GPU busy until now
      results.push_back(rec);
      ++done;
    }
  }
  if (tty) fmt::print(stderr, "\r\x1b[2K");
  clear_line.on = false;
  json doc = {{"adapter", ctx.adapter().name}, {"backend", ctx.adapter().backend},
              {"timer", ctx.timestamps_trustworthy() ? "timestamps" : "wall"}, {"reps", reps},
              {"warmup", warmup}, {"batch", batch}, {"full", a.full}, {"results", results}};
  if (!a.output.empty()) {
    io::write_file(a.output, doc.dump(1) + "\n");
  }
  if (!a.plot.empty()) plot::bench_chart(doc, a.cub.empty() ? nullptr : &cub_doc, a.plot);
  if (a.json) {
    std::cout << doc.dump() << "\n";
    return 0;
  }
  fmt::print("{} ({}), {} time by {}; median of {} after {} warm-up runs{}\n", ctx.adapter().name,
             ctx.adapter().backend, native ? "CPU" : "GPU", doc["timer"].get<std::string>(), reps, warmup,
             a.full ? "" : " (quick sweep; --full for the long one)");
  fmt::print("{:<15} {:<10} {:<4} {:<4} {:>11} {:>10} {:>9} {:>10} {:>10}\n", "primitive", "algorithm", "type", "op",
             "n", "gpu ms", "GB/s", "call ms", "batch ms");
  auto opt_ms = [](const json& r, const char* key) {
    return r.contains(key) ? fmt::format("{:.4f}", r[key].get<double>()) : std::string("-");
  };
  for (const auto& r : results)
    fmt::print("{:<15} {:<10} {:<4} {:<4} {:>11} {:>10.4f} {:>9.1f} {:>10} {:>10}\n", r["primitive"].get<std::string>(),
               r["algorithm"].get<std::string>(), r["type"].get<std::string>(), r["op"].get<std::string>(),
               r["n"].get<std::size_t>(), r["gpu_ms"].get<double>(), r["gbps"].get<double>(), opt_ms(r, "call_ms"),
               opt_ms(r, "batched_ms"));
  return 0;
}

// wgprim bench --accuracy: for f32 sums, the error in ulps against the exact sum and the GPU time of every
// accuracy mode, over the seed's prices, uniform and ill-conditioned (mixed) data, and one large n.
int run_bench_accuracy(const bench_args& a) {
  context ctx(bench_options(a.adapter));
  const bool cpu = ctx.adapter().kind == adapter_kind::cpu;
  const int lg = a.max_log2 ? a.max_log2 : (cpu ? 22 : 28);
  const int reps = a.reps != -1 ? a.reps : 20, warmup = a.warmup != -1 ? a.warmup : 3;
  if (reps < 1 || reps > 10000 || warmup < 0 || warmup > 1000)
    throw error(errc::invalid_argument, "bad --reps or --warmup");
  const std::size_t small = std::size_t(1) << std::min(lg, 22);
  struct data_set { std::string name, spec; };
  std::vector<data_set> sets = {{"prices", "prices:" + std::to_string(small) + ":1"},
                                {"uniform", "uniform:" + std::to_string(small) + ":2"},
                                {"mixed (cond ~1e6)", "mixed:" + std::to_string(small) + ":3"},
                                {"cancelling pairs", "cancelling:" + std::to_string(small) + ":6"},
                                {"prices, large n", "prices:" + std::to_string(std::size_t(1) << lg) + ":4"},
                                {"mixed, large n", "mixed:" + std::to_string(std::size_t(1) << lg) + ":5"}};
  const monoid sum(op::sum(), dtype::f32);
  json results = json::array();
  for (const auto& ds : sets) {
    io::array arr = io::generate(ds.spec);
    const std::size_t n = arr.bits.size();
    const float* x = reinterpret_cast<const float*>(arr.bits.data());
    const double exact = reference::exact_sum_f32(x, n);
    float naive = 0;
    for (std::size_t i = 0; i < n; ++i) naive += x[i];
    buffer in = ctx.create_buffer(n * 4);
    ctx.write(in, 0, arr.bits.data(), n * 4);
    double fast_ms = 0;
    for (accuracy acc : {accuracy::fast, accuracy::compensated, accuracy::reproducible}) {
      run_stats st;
      run_options ro;
      ro.stats = &st;
      ro.accuracy = acc;
      std::uint32_t bits = 0;
      for (int i = 0; i < warmup; ++i) reduce_bits(ctx, in, n, sum, ro);
      // The host's exact and naive sums above leave a GPU idle for seconds at large n, and its clocks low: run
      // until the time per run settles (as the main bench does), or the first mode pays the ramp (session 17,
      // H200, 2^28: fast 0.58 and reproducible 2.84 ms here against 0.28 and 0.58 by `wgprim reduce --repeat`).
      if (!cpu) warm_until_steady([&] { reduce_bits(ctx, in, n, sum, ro); }, a.warm_ms);
      std::vector<double> t;
      for (int i = 0; i < reps; ++i) {
        bits = reduce_bits(ctx, in, n, sum, ro);
        t.push_back(st.gpu_ms);
      }
      double ms = median(t);
      if (acc == accuracy::fast) fast_ms = ms;
      results.push_back({{"data", ds.name}, {"n", n}, {"accuracy", accuracy_name(acc)},
                         {"result", from_bits<float>(bits)}, {"exact", exact},
                         {"ulps", reference::ulp_error_f32(from_bits<float>(bits), exact)},
                         {"naive_ulps", reference::ulp_error_f32(naive, exact)}, {"gpu_ms", ms},
                         {"gbps", 4.0 * static_cast<double>(n) / (ms * 1e-3) / 1e9},
                         {"speed_vs_fast", fast_ms / ms}});
    }
  }
  json doc = {{"adapter", ctx.adapter().name}, {"timer", ctx.timestamps_trustworthy() ? "timestamps" : "wall"},
              {"reps", reps}, {"accuracy_results", results}};
  if (!a.output.empty()) {
    io::write_file(a.output, doc.dump(1) + "\n");
  }
  if (a.json) {
    std::cout << doc.dump() << "\n";
    return 0;
  }
  fmt::print("f32 sum accuracy on {} (GPU time by {}, median of {})\n", ctx.adapter().name,
             doc["timer"].get<std::string>(), reps);
  fmt::print("{:<18} {:>10} {:<13} {:>10} {:>11} {:>10} {:>8} {:>8}\n", "data", "n", "accuracy", "ulps",
             "naive ulps", "ms", "GB/s", "vs fast");
  for (const auto& r : results)
    fmt::print("{:<18} {:>10} {:<13} {:>10.2f} {:>11.1f} {:>10.4f} {:>8.1f} {:>8.2f}\n", r["data"].get<std::string>(),
               r["n"].get<std::size_t>(), r["accuracy"].get<std::string>(), r["ulps"].get<double>(),
               r["naive_ulps"].get<double>(), r["gpu_ms"].get<double>(), r["gbps"].get<double>(),
               r["speed_vs_fast"].get<double>());
  return 0;
}

}  // namespace

const bench_variants& bench_variants_asked() { return variants; }

command add_bench_command(CLI::App& app) {
  auto ba = std::make_shared<bench_args>();
  auto* bench = app.add_subcommand("bench", "GB/s of every algorithm over n = 2^min..2^max, and a copy kernel");
  bench->add_option("--adapter", ba->adapter, "adapter name substring");
  bench->add_flag("--json", ba->json, "print one JSON object with a results array");
  bench->add_option("--min-log2", ba->min_log2, "smallest n = 2^k (default 10 on CPU adapters, 16 on GPUs; 16 with --full)")
      ->default_str("auto");
  bench->add_option("--max-log2", ba->max_log2,
                    "largest n = 2^k (default 13 on CPU adapters, 25 on GPUs; with --full 24 and 28)")
      ->default_str("auto");
  bench->add_option("--reps", ba->reps, "timed runs per point, median reported (default 3 on CPU adapters, 5 on GPUs; "
                                        "20 with --full)")
      ->default_str("auto");
  bench->add_option("--warm-ms", ba->warm_ms, "GPUs: before timing a case, run it in windows of this many ms until its time settles (default 50)")
      ->check(CLI::Range(0, 60000));
  bench->add_option("--warmup", ba->warmup, "discarded runs per point (default 2; 3 with --full)")
      ->default_str("auto");
  bench->add_option("--batch", ba->batch, "K: calls per wall-clock round (call_ms) and per submission (batched_ms) "
                                          "(default 4 on CPU adapters, 10 on GPUs; 50 with --full)")
      ->default_str("auto");
  bench->add_flag("--full", ba->full, "the long sweep (minutes to hours): the defaults given with --full above");
  auto* quiet = bench->add_flag("--quiet", ba->quiet, "no progress on stderr");
  bench->add_flag("--verbose", ba->verbose, "a line per case on stderr (the progress line on a terminal otherwise)")
      ->excludes(quiet);
  bench->add_option("--primitives", ba->primitives,
                    "all, or a comma-separated list of exact names: reduce, inclusive_scan, exclusive_scan, select_if, "
                    "select_flagged, partition_if, unique, sort_keys, sort_pairs, arg_max, transform_reduce, "
                    "histogram_even, segmented_reduce, segmented_scan, segmented_sort_keys, reduce_by_key, "
                    "run_length_encode, chain, copy");
  bench->add_option("--algorithm", ba->algorithm, "only this algorithm (the copy kernel always runs)");
  bench->add_option("--output", ba->output, "also write the JSON to this file");
  bench->add_flag("--accuracy", ba->accuracy, "f32 sum accuracy table: ulps and speed of every accuracy mode");
  bench->add_option("--plot", ba->plot, "draw GB/s against n as a PNG chart");
  bench->add_option("--cub", ba->cub, "with --plot: a bench/cub JSON file whose curve to add");
  bench->add_option("--from", ba->from, "with --plot: chart this wgprim bench JSON file instead of running");
  bench->add_option("--scan-tunes", variants.scan_tunes,
                    "extra decoupled-scan rows, one per layout:items[:window[:spin[:sg]]] (layout direct|staged|raked)");
  bench->add_option("--sort-tunes", variants.sort_tunes, "extra onesweep sort rows, one per items:window[:spin]");
  bench->add_option("--sort-bits", variants.sort_bits, "extra u32 sort rows, one per bit range LO:HI");
  return {bench, [ba] {
            // Primitive and algorithm names are checked against the cases the sweep builds (run_bench).
            if (!ba->plot.empty()) check_plot_path(ba->plot);
            return ba->accuracy ? run_bench_accuracy(*ba) : run_bench(*ba);
          }};
}
