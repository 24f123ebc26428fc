// wgprim select | partition | unique: stable compaction of an array on the GPU, checked against the CPU twin
// (a plain sequential loop, also timed), and the bench rows of these primitives.
#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "bench.hpp"
#include "command.hpp"
#include "reduce_scan.hpp"
#include "util.hpp"
#include "wgprim/io.hpp"
#include "wgprim/wgprim.hpp"
#include "word_elements.hpp"

using json = nlohmann::json;
using namespace wgprim;

namespace {

struct select_cli {
  std::string adapter, input, generate, type, predicate, flags, output, algorithm;
  bool json = false;
  bool reversed = false;  // partition: the rejected part in reverse input order (cub::DevicePartition::If)
  int repeat = 1;
  tuning tune;
};

enum class kind { select, partition, unique };

int run(kind k, const select_cli& c) {
  std::optional<dtype> t;
  if (!c.type.empty()) t = parse_dtype(c.type);
  if (!c.input.empty() && !c.generate.empty())
    throw error(errc::invalid_argument, "give either --input or --generate, not both");
  if (c.input.empty() && c.generate.empty())
    throw error(errc::invalid_argument, "no data: give --input FILE or --generate KIND:N[:SEED]");
  const io::array a = c.input.empty() ? io::generate(c.generate, t) : io::read_array(c.input, t);
  require_word_elements(a, "the input");
  const std::size_t n = a.bits.size();
  const bool flagged = !c.flags.empty();
  std::string op = k == kind::unique ? "unique" : k == kind::partition ? "partition" : flagged ? "select_flagged" : "select_if";
  if (k == kind::select && flagged == !c.predicate.empty())
    throw error(errc::invalid_argument, "select needs exactly one of --predicate EXPR and --flags FILE");
  if (k == kind::partition && c.predicate.empty()) throw error(errc::invalid_argument, "partition needs --predicate EXPR");
  std::optional<bound_predicate> pred;
  if (!c.predicate.empty()) pred.emplace(predicate::expr(c.predicate), a.type);  // a bad predicate fails here
  io::array f;
  if (flagged) {
    f = io::read_array(c.flags);
    require_word_elements(f, "--flags");
    if (f.type == dtype::f32) throw error(errc::invalid_argument, "--flags: flags must be u32 or i32 (nonzero keeps)");
    if (f.bits.size() != n)
      throw error(errc::invalid_argument, "--flags holds " + std::to_string(f.bits.size()) + " values, the input " +
                                              std::to_string(n));
  }
  if (!c.output.empty()) io::check_writable(c.output);  // fail on an unusable path before the work, not after

  context ctx(context_options{c.adapter});
  auto t0 = std::chrono::steady_clock::now();
  buffer in = ctx.create_buffer(std::max<std::size_t>(n, 1) * 4), out = ctx.create_buffer(std::max<std::size_t>(n, 1) * 4);
  buffer fl = ctx.create_buffer(std::max<std::size_t>(n, 1) * 4);
  if (n) ctx.write(in, 0, a.bits.data(), n * 4);
  if (n && flagged) ctx.write(fl, 0, f.bits.data(), n * 4);
  ctx.finish();
  const double upload_ms = ms_since(t0);

  run_stats st;
  run_options ro;
  ro.algorithm = c.algorithm;
  ro.stats = &st;
  ro.tune = c.tune;
  if (c.reversed) ro.rejected = rejected_order::reversed;
  std::vector<double> times;
  std::size_t kept = 0;
  auto once = [&] {
    kept = with_type(a.type, [&](auto tag) -> std::size_t {
      using T = decltype(tag);
      device_span<const T> din(in, 0, n);
      device_span<T> dout(out, 0, n);
      switch (k) {
        case kind::unique: return unique(ctx, din, dout, ro);
        case kind::partition: return partition(ctx, din, dout, predicate::expr(c.predicate), ro);
        default:
          return flagged ? select_flagged(ctx, din, device_span<const std::uint32_t>(fl, 0, n), dout, ro)
                         : select_if(ctx, din, dout, predicate::expr(c.predicate), ro);
      }
    });
  };
  // One untimed call first, as reduce and scan make: its cost beyond a timed one is compile_ms, not GPU time.
  const first_call warm = warm_up(once, st);
  std::uint64_t fallbacks = 0;  // the timed runs' look-back fallbacks (each call's stats hold its own)
  for (int r = 0; r < c.repeat; ++r) {
    once();
    times.push_back(st.gpu_ms);
    fallbacks += st.lookback_fallbacks;
  }
  std::sort(times.begin(), times.end());
  const double compile_ms = warm.compile_ms + std::max(0.0, warm.gpu_ms - times[times.size() / 2]);
  const std::size_t written = k == kind::partition ? n : kept;
  std::vector<std::uint32_t> got(written);
  if (written) ctx.read(out, 0, got.data(), written * 4);

  // The plain sequential loop (the CPU twin), timed, and the comparison.
  std::vector<std::uint32_t> want(n);
  auto t1 = std::chrono::steady_clock::now();
  std::size_t want_kept = 0;
  if (k == kind::unique) want_kept = reference::unique(a.bits.data(), n, a.type, want.data());
  else if (k == kind::partition && c.reversed)
    want_kept = reference::partition_reversed(a.bits.data(), n, *pred, want.data());
  else if (k == kind::partition) want_kept = reference::partition(a.bits.data(), n, *pred, want.data());
  else if (flagged) want_kept = reference::select_flagged(a.bits.data(), f.bits.data(), n, want.data());
  else want_kept = reference::select_if(a.bits.data(), n, *pred, want.data());
  const double cpu_ms = ms_since(t1);
  std::size_t mismatches = kept == want_kept ? 0 : 1 + std::max(kept, want_kept) - std::min(kept, want_kept);
  for (std::size_t i = 0; i < std::min(written, k == kind::partition ? n : want_kept); ++i)
    mismatches += got[i] != want[i];

  json j = {{"op", op},
            {"type", dtype_name(a.type)},
            {"n", n},
            {"kept", kept},
            {"algorithm", st.algorithm},
            {"adapter", ctx.adapter().name},
            {"mismatches", mismatches},
            {"gpu_ms", times[times.size() / 2]},
            {"compile_ms", compile_ms},
            {"gpu_timer", st.gpu_timestamps ? "timestamps" : "wall"},
            {"upload_ms", upload_ms},
            {"cpu_ms", cpu_ms},
            {"lookback_fallbacks", fallbacks},
            {"runs", c.repeat}};
  if (!c.predicate.empty()) j["predicate"] = c.predicate;
  if (k == kind::partition) j["rejected"] = c.reversed ? "reversed" : "stable";
  if (!c.output.empty()) {
    io::write_array(c.output, io::array{a.type, std::move(got)});
    j["output"] = c.output;
  }
  std::FILE* rf = report_file(c.output);  // stderr when the data goes to stdout
  if (c.json) {
    fmt::print(rf, "{}\n", j.dump());
  } else {
    fmt::print(rf, "{} {}over {} {} values on {} (algorithm {})\n", op,
               c.predicate.empty() ? "" : "'" + c.predicate + "' ", n, dtype_name(a.type), ctx.adapter().name,
               st.algorithm);
    fmt::print(rf, "  kept {} of {}{}\n", kept, n,
               k != kind::partition ? ""
               : c.reversed         ? " (then the rejected, in reverse input order)"
                                    : " (then the rejected, in input order)");
    fmt::print(rf, "  {}\n", mismatches ? fmt::format("{} values differ from the CPU twin", mismatches)
                                    : std::string("every value matches the CPU twin"));
    fmt::print(rf, "  {} time {:.3f} ms ({}), upload {:.3f} ms, CPU loop {:.3f} ms\n", j["adapter"].get<std::string>().rfind("native CPU", 0) == 0 ? "native" : "GPU", j["gpu_ms"].get<double>(),
               j["gpu_timer"].get<std::string>(), upload_ms, cpu_ms);
  }
  if (mismatches) {
    std::cerr << "wgprim: error: " << mismatches << " values differ from the CPU twin\n";
    return 1;
  }
  return 0;
}

// The options of select, partition and unique.
CLI::App* add_select_options(CLI::App& app, const char* name, const char* about, select_cli& c) {
  CLI::App* s = app.add_subcommand(name, about);
  s->add_option("--adapter", c.adapter, "adapter name substring (default: WGPRIM_ADAPTER, else the best GPU)");
  s->add_flag("--json", c.json, "print one JSON object");
  s->add_option("--input", c.input, "input file: .npy, .bin (with --type), .csv or .txt");
  s->add_option("--generate", c.generate, "generated data KIND:N[:SEED], KIND = prices|orders|uniform|mixed");
  s->add_option("--type", c.type, "element type f32|i32|u32");
  s->add_option("--output", c.output, "write the result (.npy, .bin, .csv, .txt)");
  s->add_option("--algorithm", c.algorithm, "algorithm name (see wgprim info)");
  s->add_option("--items", c.tune.items, "policy override: vec4 loads per invocation per tile (1..8)");
  s->add_option("--subgroups", c.tune.subgroups, "policy override: 1 use subgroups, 0 workgroup memory only (-1: the policy)")
      ->check(CLI::Range(-1, 1));
  s->add_option("--spin-limit", c.tune.spin_limit, "policy override: polls of a predecessor before fallback");
  s->add_option("--staged", c.tune.staged,
                "policy override: 0 direct, 1 compact tiles in workgroup memory first, 2 raked (subgroups)");
  s->add_option("--repeat", c.repeat,
                "run this many times after an untimed first call and report the median GPU time")
      ->check(CLI::Range(1, 1000));
  return s;
}

}  // namespace

command add_select_command(CLI::App& app) {
  auto c = std::make_shared<select_cli>();
  CLI::App* s = add_select_options(app, "select", "keep the elements a predicate (or a flags array) selects, in input order", *c);
  s->add_option("--predicate", c->predicate, "a WGSL bool expression in a, e.g. 'a > 100'");
  s->add_option("--flags", c->flags, "u32/i32 flags file, one per element: nonzero keeps");
  return {s, [c] { return run(kind::select, *c); }};
}

command add_partition_command(CLI::App& app) {
  auto c = std::make_shared<select_cli>();
  CLI::App* s = add_select_options(app, "partition", "the selected elements, then the rejected ones, both in input order", *c);
  s->add_option("--predicate", c->predicate, "a WGSL bool expression in a, e.g. 'a > 100'");
  s->add_flag("--reversed", c->reversed,
              "the rejected part in reverse input order, as cub::DevicePartition::If (one pass on GPUs, not two)");
  return {s, [c] { return run(kind::partition, *c); }};
}

command add_unique_command(CLI::App& app) {
  auto c = std::make_shared<select_cli>();
  CLI::App* s = add_select_options(app, "unique", "remove consecutive duplicates (f32: == semantics, NaN never equal, -0 == +0)", *c);
  return {s, [c] { return run(kind::unique, *c); }};
}

// ---- bench rows: the data of bench/cub/cub_bench.cu (a pure function of the index) ----
namespace {
std::uint32_t mix(std::uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}
float gen_f32(std::size_t i) {  // uniform in [-500, 500), k * 2^-14: about half are > 0
  std::int32_t k = std::int32_t(mix(std::uint32_t(i) * 2u) % (1000u << 14)) - std::int32_t(500u << 14);
  return float(k) * (1.0f / 16384.0f);
}
std::uint32_t gen_u32(std::size_t i) { return mix(std::uint32_t(i) * 2u + 1u); }
std::uint32_t gen_flag(std::size_t i) { return mix(std::uint32_t(i) ^ 0x9e3779b9u) & 1u; }
std::uint32_t gen_key(std::size_t i) { return mix(std::uint32_t(i / 20) + 0x51ed27u); }  // runs of 20

struct select_bench_data {
  buffer f, u, flags, keys, out;
};
}  // namespace

void add_select_bench_cases(context& ctx, std::size_t n_max, const bench_wants& wants, std::vector<bench_case>& cases) {
  const bool any = wants("select_if", "decoupled") || wants("select_flagged", "decoupled") ||
                   wants("partition_if", "decoupled") || wants("partition_if", "reversed") ||
                   wants("unique", "decoupled");
  if (!any) return;
  auto d = std::make_shared<select_bench_data>();
  d->f = ctx.create_buffer(n_max * 4);
  d->u = ctx.create_buffer(n_max * 4);
  d->flags = ctx.create_buffer(n_max * 4);
  d->keys = ctx.create_buffer(n_max * 4);
  d->out = ctx.create_buffer(n_max * 4);
  const std::size_t block = std::min<std::size_t>(n_max, std::size_t(1) << 22);
  std::vector<std::uint32_t> hf(block), hu(block), hfl(block), hk(block);
  for (std::size_t off = 0; off < n_max; off += block) {
    const std::size_t m = std::min(block, n_max - off);
    for (std::size_t i = 0; i < m; ++i) {
      hf[i] = to_bits(gen_f32(off + i));
      hu[i] = gen_u32(off + i);
      hfl[i] = gen_flag(off + i);
      hk[i] = gen_key(off + i);
    }
    ctx.write(d->f, off * 4, hf.data(), m * 4);
    ctx.write(d->u, off * 4, hu.data(), m * 4);
    ctx.write(d->flags, off * 4, hfl.data(), m * 4);
    ctx.write(d->keys, off * 4, hk.data(), m * 4);
    ctx.finish();
  }
  // The count stays on the device, as CUB's does (no read-back inside the timed call).
  auto count = std::make_shared<device_vector<std::uint32_t>>(ctx, 1);
  const std::string alg = "decoupled";
  auto timed = [&ctx, alg](auto&& call) {
    run_stats st;
    run_options ro;
    ro.algorithm = alg;
    ro.stats = &st;
    call(ro);
    return st.gpu_ms;
  };
  // Bytes per element as bench/cub counts them: reads, plus 4 bytes per written element (about half are kept).
  // One body per row, called three ways: with stats (gpu_ms), with the count read back (call_ms), recorded. A row
  // labelled "reversed" is the decoupled partition with the rejected part reversed (cub::DevicePartition::If's
  // order: the CUB row's own contract).
  using body = std::function<void(WGPUCommandEncoder, std::size_t, const run_options&)>;
  auto add = [&](const char* prim, const char* type, const char* what, double bytes, body f,
                 const char* label = "decoupled") {
    if (!wants(prim, label)) return;
    const bool reversed = std::string(label) == "reversed";
    bench_case c{prim, label, type, what, bytes, nullptr, nullptr, nullptr};
    c.run = [f, timed, reversed](std::size_t n) {
      return timed([&](run_options ro) {
        if (reversed) ro.rejected = rejected_order::reversed;
        f(nullptr, n, ro);
      });
    };
    c.call = [&ctx, f, count, alg, reversed](std::size_t n) {
      run_options ro;
      ro.algorithm = alg;
      if (reversed) ro.rejected = rejected_order::reversed;
      f(nullptr, n, ro);
      std::uint32_t kept;
      ctx.read(count->raw(), 0, &kept, 4);
    };
    c.record = [f, alg, reversed](WGPUCommandEncoder enc, std::size_t n) {
      run_options ro;
      ro.algorithm = alg;
      if (reversed) ro.rejected = rejected_order::reversed;
      f(enc, n, ro);
    };
    cases.push_back(std::move(c));
  };
  auto positive = std::make_shared<predicate>(predicate::expr("a > 0.0"));
  add("select_if", "f32", "a > 0", 6, [&ctx, d, count, positive](WGPUCommandEncoder e, std::size_t n, const run_options& ro) {
    device_span<const float> in(d->f, 0, n);
    device_span<float> out(d->out, 0, n);
    if (e) select_if(ctx, e, in, out, count->span(), *positive, ro);
    else select_if(ctx, in, out, count->span(), *positive, ro);
  });
  add("select_flagged", "u32", "flags", 10, [&ctx, d, count](WGPUCommandEncoder e, std::size_t n, const run_options& ro) {
    device_span<const std::uint32_t> in(d->u, 0, n), flags(d->flags, 0, n);
    device_span<std::uint32_t> out(d->out, 0, n);
    if (e) select_flagged(ctx, e, in, flags, out, count->span(), ro);
    else select_flagged(ctx, in, flags, out, count->span(), ro);
  });
  auto partition_body = [&ctx, d, count, positive](WGPUCommandEncoder e, std::size_t n, const run_options& ro) {
    device_span<const float> in(d->f, 0, n);
    device_span<float> out(d->out, 0, n);
    if (e) partition(ctx, e, in, out, count->span(), *positive, ro);
    else partition(ctx, in, out, count->span(), *positive, ro);
  };
  add("partition_if", "f32", "a > 0", 8, partition_body);
  add("partition_if", "f32", "a > 0", 8, partition_body, "reversed");
  add("unique", "u32", "runs of 20", 4.2, [&ctx, d, count](WGPUCommandEncoder e, std::size_t n, const run_options& ro) {
    device_span<const std::uint32_t> in(d->keys, 0, n);
    device_span<std::uint32_t> out(d->out, 0, n);
    if (e) unique(ctx, e, in, out, count->span(), ro);
    else unique(ctx, in, out, count->span(), ro);
  });
}
