// `wgprim sort`: radix sort of an array's keys (and a values array), checked against the CPU twin
// (std::stable_sort with the same order); and the sort rows of `wgprim bench`.
#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <iostream>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <nlohmann/json.hpp>
#include <random>
#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "bench.hpp"
#include "command.hpp"
#include "wgprim/io.hpp"
#include "wgprim/wgprim.hpp"
#include "word_elements.hpp"

using json = nlohmann::json;
using namespace wgprim;

namespace {

struct sort_cli {
  std::string adapter, input, generate, type, output, values, values_output, algorithm, bits, segments, less;
  bool descending = false, json = false, phases = false, no_check = false;
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

/// "LO:HI" -> bits [LO, HI) of the ordered key (the library checks the range against the key's width).
void parse_bits(const std::string& text, unsigned& lo, unsigned& hi) {
  const std::size_t colon = text.find(':');
  auto num = [&](const std::string& t) {
    if (t.empty() || t.size() > 3 || t.find_first_not_of("0123456789") != std::string::npos)
      throw error(errc::invalid_argument, "--bits '" + detail::excerpt(text, 40) + "' is not LO:HI (e.g. 0:16)");
    return static_cast<unsigned>(std::stoul(t));
  };
  if (colon == std::string::npos)
    throw error(errc::invalid_argument, "--bits '" + detail::excerpt(text, 40) + "' is not LO:HI (e.g. 0:16)");
  lo = num(text.substr(0, colon));
  hi = num(text.substr(colon + 1));
  if (hi == 0) throw error(errc::invalid_argument, "--bits " + text + ": HI must be above LO");
}

/// A --segments file: n_segments + 1 non-negative integers of any integer type (NumPy's default int64 included),
/// each below 2^32; the library checks their order.
std::vector<std::uint32_t> load_offsets(const std::string& path) {
  const io::array a = io::read_array(path);
  const bool wide = a.type == dtype::i64 || a.type == dtype::u64;
  if (!wide && a.type != dtype::i32 && a.type != dtype::u32)
    throw error(errc::invalid_argument, std::string("--segments holds ") + dtype_name(a.type) +
                                            " elements; it takes integers (i32, u32, i64 or u64)");
  std::vector<std::uint32_t> v(wide ? a.bits.size() / 2 : a.bits.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::uint64_t x = wide ? std::uint64_t(a.bits[2 * i]) | (std::uint64_t(a.bits[2 * i + 1]) << 32) : a.bits[i];
    const bool negative = a.type == dtype::i64 ? static_cast<std::int64_t>(x) < 0
                          : a.type == dtype::i32 ? static_cast<std::int32_t>(a.bits[i]) < 0 : false;
    if (negative || x > 0xffffffffull)
      throw error(errc::invalid_argument, "--segments: offsets[" + std::to_string(i) + "] is not in [0, 2^32)");
    v[i] = static_cast<std::uint32_t>(x);
  }
  if (v.empty()) throw error(errc::invalid_argument, "--segments: the file is empty (give n_segments + 1 offsets)");
  return v;
}
int run_sort_command();

}  // namespace

command add_sort_command(CLI::App& app) {
  sort_cli& o = opts();
  auto* s = app.add_subcommand("sort", "stable radix sort of keys (and values), checked against std::stable_sort");
  s->add_option("--adapter", o.adapter, "adapter name substring (default: WGPRIM_ADAPTER, else the best GPU)");
  s->add_flag("--json", o.json, "print one JSON object");
  s->add_option("--input", o.input, "keys: .npy, .bin (with --type), .csv or .txt; u32, i32 or f32");
  s->add_option("--generate", o.generate, "generated keys KIND:N[:SEED] instead of --input (uniform: the full range)");
  // A .bin input's error asked for --type, which sort refused (issue 29 row 10): it takes it now.
  s->add_option("--type", o.type,
                "the keys' type: u32, i32 or f32 (needed for .bin; forces .csv/.txt; with --generate: the generated "
                "type, default the kind's own)");
  s->add_option("--bits", o.bits,
                "LO:HI: compare only bits [LO, HI) of the ordered key (cub's begin_bit / end_bit; stable)");
  s->add_flag("--phases", o.phases,
              "also time each phase alone (histogram + plan, every digit pass, finish; with --less the blocks, every "
              "merge level's split and merge; with --segments the binning, tile starts, short, mid and long "
              "segments): GPU timestamps where the adapter has them, medians of --repeat runs");
  s->add_flag("--no-check", o.no_check, "skip the comparison with std::stable_sort (large n)");
  s->add_option("--output", o.output, "sorted keys (.npy, .bin, .csv, .txt)");
  s->add_option("--values", o.values, "values (32-bit, same length) to sort with the keys");
  s->add_option("--values-output", o.values_output, "the values in key order");
  s->add_flag("--descending", o.descending, "largest first (still stable; f32 NaNs first)");
  s->add_option("--algorithm", o.algorithm, "onesweep | reduce-then-scan (default: the adapter's)");
  s->add_option("--less", o.less,
                "comparator: a bool expression in a and b, true when a goes first (e.g. 'abs(a) < abs(b)'): a stable "
                "merge sort in that order (checked to be a strict weak order)");
  s->add_option("--segments", o.segments,
                "CSR offsets file (n_segments + 1 integers): sort every segment on its own, in place (cub's "
                "DeviceSegmentedSort; stable)");
  s->add_option("--repeat", o.repeat, "sort this many times and report the median GPU time (the first run compiles)")
      ->check(CLI::Range(1, 1000));
  s->add_option("--items", o.tune.items, "policy override: keys per invocation per tile");
  s->add_option("--spin-limit", o.tune.spin_limit, "policy override (onesweep): polls before fallback");
  s->add_option("--lookback-window", o.tune.lookback_window,
                "policy override (onesweep): predecessor states each digit reads at once");
  return {s, run_sort_command};
}

namespace {

int run_sort_command() {
  const sort_cli& o = opts();
  if (o.input.empty() == o.generate.empty())
    throw error(errc::invalid_argument, "give one of --input FILE or --generate KIND:N[:SEED]");
  std::optional<dtype> key_type;
  if (!o.type.empty()) key_type = parse_dtype(o.type);
  io::array keys = o.input.empty() ? io::generate(o.generate, key_type) : io::read_array(o.input, key_type);
  const std::string source = o.input.empty() ? o.generate : o.input;
  require_word_elements(keys, "sort: '" + detail::excerpt(source, 200) + "'",
                        " (64-bit keys: wgprim::sort in C++ or wgprim.sort in Python)");
  unsigned bit_lo = 0, bit_hi = 0;
  if (!o.bits.empty()) parse_bits(o.bits, bit_lo, bit_hi);
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
  const sort_order ord(o.descending ? order::descending : order::ascending, bit_lo, bit_hi);
  const std::size_t n = keys.bits.size();
  const bool segmented = !o.segments.empty();
  const std::vector<std::uint32_t> off = segmented ? load_offsets(o.segments) : std::vector<std::uint32_t>{};
  const bool by_less = !o.less.empty();
  if (by_less && (segmented || o.descending || !o.bits.empty()))
    throw error(errc::invalid_argument, "--less gives the order: it takes no --segments, --descending or --bits");
  std::optional<comparator> less;
  if (by_less) {
    less = comparator::expr(o.less);
    check_comparator(*less, keys.type, keys.bits.data(), n);  // on these keys too (the device copy adds none)
  }
  context ctx(context_options{o.adapter});
  buffer off_buf;
  if (segmented) {
    off_buf = ctx.create_buffer(off.size() * 4);
    ctx.write(off_buf, 0, off.data(), off.size() * 4);
  }

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
    if (segmented || by_less) {  // in place in kout / vout, from the input each time
      if (n) ctx.write(kout, 0, keys.bits.data(), n * 4);
      if (pairs && n) ctx.write(vout, 0, vals.bits.data(), n * 4);
      if (by_less) sort_less_bits(ctx, kout, n, keys.type, *less, pairs ? &vout : nullptr, ro);
      else segmented_sort_bits(ctx, kout, n, off_buf, off.size() - 1, keys.type, ord, pairs ? &vout : nullptr, ro);
    } else {
      sort_bits(ctx, kin, kout, n, keys.type, ord, pairs ? &vin : nullptr, pairs ? &vout : nullptr, ro);
    }
    times.push_back(st.gpu_ms);
    fallbacks += st.lookback_fallbacks;
  }
  std::sort(times.begin(), times.end());
  st.gpu_ms = times[times.size() / 2];
  st.lookback_fallbacks = fallbacks;
  // Each phase alone, --repeat times (the runs above compiled every kernel): the median of each.
  std::vector<sort_phase> phases;
  if (o.phases) {
    std::vector<std::vector<sort_phase>> runs;
    for (int r = 0; r < o.repeat; ++r) {
      if (by_less || segmented) {  // in place, from the input each time
        if (n) ctx.write(kout, 0, keys.bits.data(), n * 4);
        if (pairs && n) ctx.write(vout, 0, vals.bits.data(), n * 4);
        runs.push_back(by_less ? comparator_sort_phases(ctx, kout, n, keys.type, *less, pairs ? &vout : nullptr, ro)
                               : segmented_sort_phases(ctx, kout, n, off_buf, off.size() - 1, keys.type, ord,
                                                       pairs ? &vout : nullptr, ro));
      } else {
        runs.push_back(
            sort_phases(ctx, kin, kout, n, keys.type, ord, pairs ? &vin : nullptr, pairs ? &vout : nullptr, ro));
      }
    }
    phases = runs.front();
    for (std::size_t i = 0; i < phases.size(); ++i) {
      std::vector<double> t;
      for (const auto& run : runs) t.push_back(run[i].gpu_ms);
      std::sort(t.begin(), t.end());
      phases[i].gpu_ms = t[t.size() / 2];
    }
  }
  io::array got{keys.type, std::vector<std::uint32_t>(n)}, got_v{vals.type, std::vector<std::uint32_t>(pairs ? n : 0)};
  if (n) ctx.read(kout, 0, got.bits.data(), n * 4);
  if (pairs && n) ctx.read(vout, 0, got_v.bits.data(), n * 4);

  std::vector<std::uint32_t> want = keys.bits, want_v = vals.bits;
  auto t1 = std::chrono::steady_clock::now();
  std::size_t mismatches = 0;
  double cpu_ms = 0;
  if (!o.no_check) {
    if (by_less)
      reference::stable_sort_less(want.data(), n, keys.type, o.less, pairs ? want_v.data() : nullptr);
    else if (segmented)
      reference::segmented_stable_sort(want.data(), off.data(), off.size() - 1, keys.type, o.descending, bit_lo, bit_hi,
                                 pairs ? want_v.data() : nullptr);
    else
      reference::stable_sort_bits(want.data(), n, keys.type, o.descending, bit_lo, bit_hi, pairs ? want_v.data() : nullptr);
    cpu_ms = ms_since(t1);
    for (std::size_t i = 0; i < n; ++i)
      mismatches += got.bits[i] != want[i] || (pairs && got_v.bits[i] != want_v[i]);
  }

  if (!o.output.empty()) io::write_array(o.output, got);
  if (!o.values_output.empty()) io::write_array(o.values_output, got_v);
  json j = {{"op", std::string(segmented ? "segmented_" : "") + (pairs ? "sort_pairs" : "sort_keys")},
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
            {"lookback_fallbacks", st.lookback_fallbacks},
            {"bits", fmt::format("{}:{}", ord.begin_bit, ord.end_bit ? ord.end_bit : 32)},
            {"checked", !o.no_check}};
  if (segmented) j["segments"] = off.size() - 1;
  if (by_less) j["less"] = o.less;
  if (o.phases) {
    json ph = json::array();
    for (const auto& p : phases)
      ph.push_back({{"phase", p.name}, {"gpu_ms", p.gpu_ms}, {"gpu_timer", p.gpu_timestamps ? "timestamps" : "wall"},
                    {"skipped", p.skipped}});
    j["phases"] = ph;
  }
  std::FILE* rf = report_file(o.values_output == "-" ? o.values_output : o.output);  // stderr when the data goes to stdout
  if (o.json) {
    fmt::print(rf, "{}\n", j.dump());
  } else {
    fmt::print(rf, "{} {} of {} {} keys on {} ({})\n", st.algorithm,
               std::string(segmented && st.algorithm != "segmented" ? "segmented " : "") + (pairs ? "sort_pairs" : "sort"),
               n, dtype_name(keys.type), ctx.adapter().name, o.descending ? "descending" : "ascending");
    if (!o.bits.empty()) fmt::print(rf, "  bits {} of the ordered key\n", j["bits"].get<std::string>());
    if (o.no_check) fmt::print(rf, "  not checked against std::stable_sort (--no-check)\n");
    else fmt::print(rf, "  {} elements differ from std::stable_sort\n", mismatches);
    fmt::print(rf, "  {} time {:.3f} ms ({}), upload {:.3f} ms, std::stable_sort {:.3f} ms\n",
               j["adapter"].get<std::string>().rfind("native CPU", 0) == 0 ? "native" : "GPU", st.gpu_ms,
               j["gpu_timer"].get<std::string>(), upload_ms, cpu_ms);
    if (o.phases) {
      double sum = 0;
      for (const auto& p : phases) sum += p.gpu_ms;
      fmt::print(rf, "  phases, each submitted alone (median of {}):\n", o.repeat);
      for (const auto& p : phases)
        fmt::print(rf, "    {:<34} {:9.3f} ms  {}\n", p.name, p.gpu_ms, p.gpu_timestamps ? "timestamps" : "wall");
      fmt::print(rf, "    {:<34} {:9.3f} ms  (one submission: {:.3f} ms)\n", "sum", sum, st.gpu_ms);
    }
  }
  if (mismatches) {
    std::cerr << "wgprim: error: " << mismatches << " sorted elements differ from the CPU twin\n";
    return 1;
  }
  return 0;
}

/// Tuning variants of the onesweep rows from bench --sort-tunes ("items:window[:spin],..."), so that one bench run
/// can compare a few policies; each gives rows named onesweep/i<items>w<window>[s<spin>].
std::vector<std::pair<std::string, tuning>> sort_tunes() {
  std::vector<std::pair<std::string, tuning>> v;
  const std::string& text = bench_variants_asked().sort_tunes;
  if (text.empty()) return v;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, end - start);
    unsigned items = 0, window = 0, spin = 0;
    const int got = std::sscanf(item.c_str(), "%u:%u:%u", &items, &window, &spin);
    if (got < 2 || !items || !window)
      throw error(errc::invalid_argument, "--sort-tunes: '" + item + "' is not items:window[:spin]");
    tuning t;
    t.items = items;
    t.lookback_window = window;
    t.spin_limit = got == 3 ? spin : 0;
    v.push_back({"/i" + std::to_string(items) + "w" + std::to_string(window) + (got == 3 ? "s" + std::to_string(spin) : ""), t});
    start = end + 1;
  }
  return v;
}
/// Bit ranges of the sort rows from bench --sort-bits ("LO:HI,..."): u32 rows named <algorithm>/bits<LO>:<HI>
/// (cub's begin_bit / end_bit; issue 25 quotes CUB's 16-bit anchors: bench/cub has no such row yet).
std::vector<std::pair<std::string, sort_order>> sort_bit_variants() {
  std::vector<std::pair<std::string, sort_order>> v;
  const std::string& text = bench_variants_asked().sort_bits;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, end - start);
    unsigned lo = 0, hi = 0;
    parse_bits(item, lo, hi);
    v.push_back({"/bits" + item, sort_order(order::ascending, lo, hi)});
    start = end + 1;
  }
  return v;
}
}  // namespace

namespace {
/// Rows of the segmented sort (u32 keys in segments of 16 and of 1,000: CUB's DeviceSegmentedSort rows) and of the
/// comparator sort ("a > b": CUB's DeviceMergeSort row). Both sort in place, so each run first copies the unsorted
/// keys into the sorted buffer (a separate submission: run's GPU time is the sort's alone; a call's wall time is the
/// sort and a read of the last key, after an untimed copy: bench_case::prepare).
void add_sort_extra_cases(context& ctx, std::size_t n_max, const bench_wants& wants, std::vector<bench_case>& cases) {
  auto unsorted = std::make_shared<buffer>();
  auto keys = [&ctx, n_max, unsorted]() -> const buffer& {  // random u32 keys, made at the first run
    if (!*unsorted) {
      *unsorted = ctx.create_buffer(n_max * 4);
      std::vector<std::uint32_t> host(std::min<std::size_t>(n_max, std::size_t(1) << 24));
      std::mt19937 rng(3);
      for (std::size_t off = 0; off < n_max; off += host.size()) {
        for (auto& v : host) v = rng();
        ctx.write(*unsorted, off * 4, host.data(), std::min(host.size(), n_max - off) * 4);
      }
    }
    return *unsorted;
  };
  auto work = std::make_shared<buffer>();
  auto offs = std::make_shared<std::map<std::size_t, buffer>>();
  auto prepare = [&ctx, n_max, work, keys](std::size_t n) -> buffer& {
    if (!*work) *work = ctx.create_buffer(n_max * 4);
    copy(ctx, device_span<const std::uint32_t>(keys(), 0, n), device_span<std::uint32_t>(*work, 0, n));
    return *work;
  };
  auto offsets_for = [&ctx, n_max, offs](std::size_t len) -> const buffer& {
    auto it = offs->find(len);
    if (it != offs->end()) return it->second;
    std::vector<std::uint32_t> h;
    for (std::size_t i = 0; i <= n_max / len; ++i) h.push_back(static_cast<std::uint32_t>(i * len));
    buffer b = ctx.create_buffer(h.size() * 4);
    ctx.write(b, 0, h.data(), h.size() * 4);
    return offs->emplace(len, std::move(b)).first->second;
  };
  // One in-place row (see above): `sort` sorts the n keys of *work with the given options.
  auto add_in_place = [&cases, &ctx, prepare, work](bench_case c,
                                                     std::function<void(std::size_t, const run_options&)> sort) {
    c.run = [prepare, sort](std::size_t n) {
      run_stats st;
      run_options ro;
      ro.stats = &st;
      prepare(n);
      sort(n, ro);
      return st.gpu_ms;
    };
    c.prepare = [prepare, &ctx](std::size_t n) {
      prepare(n);
      ctx.finish();
    };
    c.call = [&ctx, work, sort](std::size_t n) {
      sort(n, {});
      std::uint32_t last;
      ctx.read(*work, (n - 1) * 4, &last, 4);
    };
    cases.push_back(std::move(c));
  };
  for (const std::size_t len : {std::size_t(16), std::size_t(1000)}) {
    if (!wants("segmented_sort_keys", "segmented")) break;
    add_in_place({"segmented_sort_keys", "segmented", "u32", "segments of " + std::to_string(len), 8.0, nullptr,
                  nullptr, nullptr, nullptr, len},
                 [&ctx, work, offsets_for, len](std::size_t n, const run_options& ro) {
                   segmented_sort_bits(ctx, *work, n, offsets_for(len), n / len, dtype::u32, {}, nullptr, ro);
                 });
  }
  if (wants("sort_keys", "merge"))  // descending, as CUB's anchor (DeviceMergeSort with a > b)
    add_in_place({"sort_keys", "merge", "u32", "less: a > b", 8.0, nullptr, nullptr, nullptr},
                 [&ctx, work](std::size_t n, const run_options& ro) {
                   sort_less_bits(ctx, *work, n, dtype::u32, comparator::expr("a > b"), nullptr, ro);
                 });
}
}  // namespace

void add_sort_bench_cases(context& ctx, std::size_t n_max, const bench_wants& wants, std::vector<bench_case>& cases) {
  // Random keys over the whole range (every digit pass runs); the sort reads them and writes into `out`, so every
  // run sorts the same unsorted data. call_ms: the sort and a read of the last key (as CUB's call_ms);
  // batched_ms: K sorts recorded into one encoder.
  struct buffers {
    buffer keys_u32, keys_f32, vals, out, out_vals, keys_i64, out_i64;
    bool have_i64 = false;
  };
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
  struct variant {
    std::string name;
    run_options ro;
    sort_order so;
    bool all_types = true;  // bit-range rows: u32 only
  };
  std::vector<variant> variants;
  const auto bit_variants = sort_bit_variants();
  for (const auto& alg : algorithms("sort")) {
    run_options ro;
    ro.algorithm = alg;
    variants.push_back({alg, ro, {}, true});
    for (const auto& [suffix, so] : bit_variants) variants.push_back({alg + suffix, ro, so, false});
    if (alg == "onesweep")
      for (const auto& [suffix, t] : sort_tunes()) {
        ro.tune = t;
        variants.push_back({alg + suffix, ro, {}, true});
      }
  }
  bool any = false;
  for (const auto& v : variants) any |= wants("sort_keys", v.ro.algorithm) || wants("sort_pairs", v.ro.algorithm);
  add_sort_extra_cases(ctx, n_max, wants, cases);
  if (!any) return;
  b->keys_u32 = make(false);
  b->keys_f32 = make(true);
  b->vals = make(false);
  b->out = ctx.create_buffer(n_max * 4);
  b->out_vals = ctx.create_buffer(n_max * 4);
  ctx.finish();
  for (const auto& var : variants) {
    const std::string& name = var.name;
    const run_options& plain = var.ro;
    const sort_order so = var.so;
    for (const bool pairs : {false, true}) {
      const char* prim = pairs ? "sort_pairs" : "sort_keys";
      if (!wants(prim, plain.algorithm)) continue;
      for (const dtype t : {dtype::u32, dtype::i32, dtype::f32}) {
        if (!var.all_types && t != dtype::u32) continue;
        bench_case c{prim, name, dtype_name(t), "-", pairs ? 16.0 : 8.0, nullptr, nullptr, nullptr};
        const buffer* in = t == dtype::f32 ? &b->keys_f32 : &b->keys_u32;
        const run_options ro0 = plain;
        c.run = [&ctx, b, in, t, pairs, ro0, so](std::size_t n) {
          run_stats st;
          run_options ro = ro0;
          ro.stats = &st;
          sort_bits(ctx, *in, b->out, n, t, so, pairs ? &b->vals : nullptr, pairs ? &b->out_vals : nullptr, ro);
          return st.gpu_ms;
        };
        c.call = [&ctx, b, in, t, pairs, ro0, so](std::size_t n) {
          sort_bits(ctx, *in, b->out, n, t, so, pairs ? &b->vals : nullptr, pairs ? &b->out_vals : nullptr, ro0);
          std::uint32_t last;
          ctx.read(b->out, (n - 1) * 4, &last, 4);
        };
        c.record = [&ctx, b, in, t, pairs, ro0, so](WGPUCommandEncoder enc, std::size_t n) {
          auto go = [&](auto tag) {
            using T = decltype(tag);
            const device_span<const T> k(*in, 0, n);
            const device_span<T> ko(b->out, 0, n);
            if (pairs)
              sort_pairs(ctx, enc, k, device_span<const std::uint32_t>(b->vals, 0, n),
                         ko, device_span<std::uint32_t>(b->out_vals, 0, n), so, ro0);
            else
              sort(ctx, enc, k, ko, so, ro0);
          };
          if (t == dtype::u32) go(std::uint32_t{});
          else if (t == dtype::i32) go(std::int32_t{});
          else go(float{});
        };
        cases.push_back(std::move(c));
      }
    }
    // 64-bit keys (i64, random over the whole range: all eight digit passes), keys only: CUB's sort_keys i64 row.
    if (!var.all_types || !wants("sort_keys", plain.algorithm) || n_max * 8 > ctx.limits().max_buffer_size) continue;
    if (!b->have_i64) {
      b->have_i64 = true;
      b->keys_i64 = ctx.create_buffer(n_max * 8);
      b->out_i64 = ctx.create_buffer(n_max * 8);
      std::vector<std::uint64_t> host(std::min<std::size_t>(n_max, std::size_t(1) << 23));
      std::mt19937_64 rng(3);
      for (std::size_t off = 0; off < n_max; off += host.size()) {
        for (auto& v : host) v = rng();
        ctx.write(b->keys_i64, off * 8, host.data(), std::min(host.size(), n_max - off) * 8);
      }
      ctx.finish();
    }
    bench_case c{"sort_keys", name, "i64", "-", 16.0, nullptr, nullptr, nullptr};
    const run_options ro0 = plain;
    auto spans = [b](std::size_t n) {
      return std::make_pair(device_span<const std::int64_t>(b->keys_i64, 0, n), device_span<std::int64_t>(b->out_i64, 0, n));
    };
    c.run = [&ctx, spans, ro0, so](std::size_t n) {
      run_stats st;
      run_options ro = ro0;
      ro.stats = &st;
      const auto [k, ko] = spans(n);
      sort(ctx, k, ko, so, ro);
      return st.gpu_ms;
    };
    c.call = [&ctx, b, spans, ro0, so](std::size_t n) {
      const auto [k, ko] = spans(n);
      sort(ctx, k, ko, so, ro0);
      std::int64_t last;
      ctx.read(b->out_i64, (n - 1) * 8, &last, 8);
    };
    c.record = [&ctx, spans, ro0, so](WGPUCommandEncoder enc, std::size_t n) {
      const auto [k, ko] = spans(n);
      sort(ctx, enc, k, ko, so, ro0);
    };
    cases.push_back(std::move(c));
  }
}
