// `wgprim tune`: times the candidate policies of each tunable primitive on this machine's adapter (wall clock per
// call, `batch` calls per round, median of the rounds, the first call of each candidate discarded as warm-up and
// checked against the CPU twin) and writes the winners to the adapter's policy file (wgprim/policy.hpp), which
// contexts on the adapter then load. A candidate wins only when it beats the built-in policy by more than 3 %.
#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <numeric>
#include <random>
#include <sstream>

#include "command.hpp"
#include "wgprim/wgprim.hpp"

using json = nlohmann::json;
using namespace wgprim;

namespace {

using knob_values = std::vector<std::pair<std::string, std::uint64_t>>;

struct tune_options {
  std::string adapter, output, primitives;  // empty: every tunable this adapter has
  bool quick = false, dry_run = false;
};

// One tunable primitive: its candidates (knob sets over the built-in policy) and a runner that calls it once at n
// (after prepare(n)) and one that checks the last result against the CPU twin.
struct tunable {
  std::string name;
  std::vector<knob_values> candidates;
  std::function<void(std::size_t)> prepare;
  std::function<void()> call;
  std::function<bool()> check;
  std::size_t size_divisor = 1;  // the sort runs at n / 4: on lavapipe it costs ~50 times a scan per element
};

// Every combination of the knobs' values (the first knob varies slowest).
std::vector<knob_values> product(const std::vector<std::pair<std::string, std::vector<std::uint64_t>>>& knobs) {
  std::vector<knob_values> out{{}};
  for (const auto& [name, values] : knobs) {
    std::vector<knob_values> next;
    for (const auto& partial : out)
      for (std::uint64_t v : values) {
        knob_values k = partial;
        k.push_back({name, v});
        next.push_back(k);
      }
    out = std::move(next);
  }
  return out;
}

std::string describe(const knob_values& k) {
  std::string s;
  for (const auto& [name, v] : k) s += (s.empty() ? "" : " ") + name.substr(name.find('.') + 1) + "=" + std::to_string(v);
  return s;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// The tunables this adapter runs, their data held by the closures.
std::vector<tunable> make_tunables(context& ctx, bool quick) {
  const bool sg = ctx.features().subgroups;
  std::vector<tunable> out;
  auto host = std::make_shared<std::vector<std::uint32_t>>();
  auto keys = std::make_shared<std::vector<std::uint32_t>>();
  auto fill = [host, keys](std::size_t n) {
    if (host->size() == n) return;
    std::mt19937 rng(42);
    host->resize(n);
    keys->resize(n);
    for (auto& x : *host) x = rng() % 1000;
    for (auto& x : *keys) x = rng();
  };
  auto in = std::make_shared<device_vector<std::uint32_t>>();
  auto out_v = std::make_shared<device_vector<std::uint32_t>>();
  auto upload = [&ctx, host, keys, in, out_v, fill](std::size_t n, bool use_keys) {
    fill(n);
    *in = device_vector<std::uint32_t>(ctx, host_span<const std::uint32_t>(use_keys ? *keys : *host));
    *out_v = device_vector<std::uint32_t>(ctx, n);
  };

  // Tile layouts of the decoupled passes: 0 direct, 1 staged, 2 raked (subgroups).
  std::vector<std::uint64_t> layouts = {0, 1};
  if (sg) layouts.push_back(2);
  {  // scan: u32 sum, inclusive
    tunable t{"scan", quick ? product({{"scan.items", {2, 4, 8}}, {"scan.layout", layouts}})
                          : product({{"scan.items", {1, 2, 4, 8}}, {"scan.layout", layouts}, {"scan.window", {8, 32}}}), {}, {}, {}};
    t.prepare = [upload](std::size_t n) { upload(n, false); };
    t.call = [&ctx, in, out_v] {
      run_options o;
      o.algorithm = "decoupled";
      inclusive_scan(ctx, *in, *out_v, op::sum(), o);
    };
    t.check = [host, out_v] {
      std::vector<std::uint32_t> want(host->size());
      reference::inclusive_scan(host->data(), host->size(), want.data(), monoid(op::sum(), dtype::u32));
      return out_v->to_host() == want;
    };
    out.push_back(t);
  }
  if (ctx.features().shader_int64) {  // scan of 64-bit values: i64 sum, inclusive (their own items and layout)
    tunable t{"scan_wide", quick ? product({{"scan.items_wide", {1, 2, 4}}, {"scan.layout_wide", layouts}})
                               : product({{"scan.items_wide", {1, 2, 4, 8}}, {"scan.layout_wide", layouts}}), {}, {}, {}};
    auto wide = std::make_shared<std::vector<std::int64_t>>();
    auto in64 = std::make_shared<device_vector<std::int64_t>>();
    auto out64 = std::make_shared<device_vector<std::int64_t>>();
    t.prepare = [&ctx, fill, host, wide, in64, out64](std::size_t n) {
      fill(n);
      wide->assign(host->begin(), host->end());
      for (std::size_t i = 0; i < n; ++i) (*wide)[i] -= 500;  // negative values too
      *in64 = device_vector<std::int64_t>(ctx, host_span<const std::int64_t>(*wide));
      *out64 = device_vector<std::int64_t>(ctx, n);
    };
    t.call = [&ctx, in64, out64] {
      run_options o;
      o.algorithm = "decoupled";
      inclusive_scan(ctx, *in64, *out64, op::sum(), o);
    };
    t.check = [wide, out64] {
      std::vector<std::int64_t> want(wide->size());
      std::int64_t run = 0;
      for (std::size_t i = 0; i < wide->size(); ++i) want[i] = run += (*wide)[i];
      return out64->to_host() == want;
    };
    out.push_back(t);
  }
  {  // select: u32 elements with a nonzero flag (every other element kept, on average)
    tunable t{"select", quick ? product({{"select.items", {2, 4, 8}}})
                            : product({{"select.items", {2, 4, 8}}, {"select.layout", layouts}}), {}, {}, {}};
    auto flags = std::make_shared<device_vector<std::uint32_t>>();
    auto kept = std::make_shared<std::size_t>(0);
    t.prepare = [&ctx, upload, keys, flags](std::size_t n) {
      upload(n, false);
      std::vector<std::uint32_t> f(n);
      for (std::size_t i = 0; i < n; ++i) f[i] = (*keys)[i] & 1;
      *flags = device_vector<std::uint32_t>(ctx, host_span<const std::uint32_t>(f));
    };
    t.call = [&ctx, in, flags, out_v, kept] { *kept = select_flagged(ctx, *in, *flags, *out_v); };
    t.check = [host, keys, out_v, kept] {
      const std::size_t n = host->size();
      std::vector<std::uint32_t> f(n), want(n);
      for (std::size_t i = 0; i < n; ++i) f[i] = (*keys)[i] & 1;
      want.resize(reference::select_flagged(host->data(), f.data(), n, want.data()));
      std::vector<std::uint32_t> got = out_v->to_host();
      got.resize(std::min(got.size(), *kept));
      return *kept == want.size() && got == want;
    };
    out.push_back(t);
  }
  {  // unique: u32 runs of 20 equal values (a read-mostly pass: one element in 20 kept)
    tunable t{"unique", product({{"select.unique_layout", layouts}}), {}, {}, {}};
    auto runs = std::make_shared<std::vector<std::uint32_t>>();
    auto runs_d = std::make_shared<device_vector<std::uint32_t>>();
    auto kept = std::make_shared<std::size_t>(0);
    t.prepare = [&ctx, upload, keys, runs, runs_d](std::size_t n) {
      upload(n, true);
      runs->resize(n);
      for (std::size_t i = 0; i < n; ++i) (*runs)[i] = (*keys)[i / 20];
      *runs_d = device_vector<std::uint32_t>(ctx, host_span<const std::uint32_t>(*runs));
    };
    t.call = [&ctx, runs_d, out_v, kept] { *kept = unique(ctx, *runs_d, *out_v); };
    t.check = [runs, out_v, kept] {
      std::vector<std::uint32_t> want(runs->size());
      want.resize(reference::unique(runs->data(), runs->size(), dtype::u32, want.data()));
      std::vector<std::uint32_t> got = out_v->to_host();
      got.resize(std::min(got.size(), *kept));
      return *kept == want.size() && got == want;
    };
    out.push_back(t);
  }
  {  // partition: u32 values below 500 first (half of them, on average), both parts in input order
    tunable t{"partition", quick ? product({{"select.partition_layout", layouts}, {"select.partition_items", {2, 4}}})
                                 : product({{"select.partition_layout", layouts}, {"select.partition_items", {2, 4, 8}}}),
              {}, {}, {}};
    auto kept = std::make_shared<std::size_t>(0);
    const predicate below = predicate::expr("a < 500u");
    t.prepare = [upload](std::size_t n) { upload(n, false); };
    t.call = [&ctx, in, out_v, kept, below] { *kept = partition(ctx, *in, *out_v, below); };
    t.check = [host, out_v, kept, below] {
      std::vector<std::uint32_t> want(host->size());
      const std::size_t k = reference::partition(host->data(), host->size(), bound_predicate(below, dtype::u32), want.data());
      return *kept == k && out_v->to_host() == want;
    };
    out.push_back(t);
  }
  {  // reduce: u32 sum
    tunable t{"reduce", quick ? product({{"reduce.workgroups", {64, 256, 1024}}})
                              : product({{"reduce.workgroups", {64, 256, 1024}}, {"reduce.vec_loads", {0, 1}}}), {}, {}, {}};
    auto got = std::make_shared<std::uint32_t>(0);
    t.prepare = [upload](std::size_t n) { upload(n, false); };
    t.call = [&ctx, in, got] { *got = wgprim::reduce(ctx, *in, op::sum()); };
    t.check = [host, got] { return *got == reference::reduce(host->data(), host->size(), monoid(op::sum(), dtype::u32)); };
    out.push_back(t);
  }
  {  // arg_reduce: arg max of u32
    tunable t{"arg_reduce", quick ? product({{"arg_reduce.workgroups", {64, 256, 1024}}})
                                  : product({{"arg_reduce.workgroups", {64, 256, 1024}}, {"arg_reduce.vec_loads", {0, 1}}}), {}, {}, {}};
    auto got = std::make_shared<arg_result<std::uint32_t>>();
    t.prepare = [upload](std::size_t n) { upload(n, true); };
    t.call = [&ctx, in, got] { *got = argmax(ctx, *in); };
    t.check = [keys, got] {
      const auto want = reference::arg_reduce(keys->data(), keys->size(), dtype::u32, arg_op::max);
      return got->value == want.value && got->index == want.index;
    };
    out.push_back(t);
  }
  if (sg) {  // sort: u32 keys, onesweep (it needs subgroups)
    // GPUs, full run: the loops written out or not, tiles of 256 or 512 invocations, keys read again or held (the
    // H100, session 25, u32 2^26: 512 3.41, held 3.46, neither 3.66 ms); not on CPU adapters, whose compiler takes
    // several times longer over the written-out kernel. (Scatter rounds, tried here in session 24, won only with
    // the loops: left to the knob.)
    // Keys per invocation include 21 (H100 session 29, 512-invocation tiles, u32 2^26: 18 3.136, 20 3.011, 21 2.967 ms,
    // one round: not yet NVIDIA's row). Where the policy ranks by match words (NVIDIA's row), also how they are
    // cleared: the lowest peer (three subgroup barriers a key) or two words a digit used by alternate keys (one;
    // NVIDIA's row since session 29, 0.9 % faster there).
    const bool gpu = ctx.adapter().kind != adapter_kind::cpu;
    bool match_words = false;
    for (const auto& k : policy(ctx).knobs)
      if (k.name == "sort.rank_match") match_words = k.value == 1 && ctx.features().subgroup_barrier;
    std::vector<std::pair<std::string, std::vector<std::uint64_t>>> gpu_sort = {
        {"sort.items", {12, 15, 18, 21, 24}}, {"sort.unroll", {0, 1}}, {"sort.wg_size", {256, 512}}, {"sort.reload_keys", {0, 1}}};
    if (match_words) gpu_sort.push_back({"sort.match_clear", {0, 2}});
    tunable t{"sort",
              quick  ? product({{"sort.items", {8, 15, 24}}})
              : gpu  ? product(gpu_sort)
                     : product({{"sort.items", {8, 12, 15, 20, 24}}}),
              {}, {}, {}, 4};
    t.prepare = [upload](std::size_t n) { upload(n, true); };
    t.call = [&ctx, in, out_v] {
      run_options o;
      o.algorithm = "onesweep";
      wgprim::sort(ctx, *in, *out_v, sort_order{}, o);
    };
    t.check = [keys, out_v] {
      std::vector<std::uint32_t> want = *keys;
      std::sort(want.begin(), want.end());
      return out_v->to_host() == want;
    };
    out.push_back(t);
  }
  {  // histogram: 256 even bins of u32 values in [0, 1000)
    tunable t{"histogram", quick ? product({{"histogram.workgroups", {64, 256, 1024}}})
                                 : product({{"histogram.workgroups", {64, 256, 1024}}, {"histogram.step_values", {1, 4}}}), {}, {}, {}};
    auto counts = std::make_shared<device_vector<std::uint32_t>>();
    t.prepare = [&ctx, upload, counts](std::size_t n) {
      upload(n, false);
      *counts = device_vector<std::uint32_t>(ctx, 256);
    };
    t.call = [&ctx, in, counts] { histogram_even(ctx, *in, *counts, 256, 0.0, 1000.0); };
    t.check = [host, counts] {
      std::vector<std::uint32_t> want(256);
      reference::histogram(host->data(), host->size(), dtype::u32, reference::histogram_edges(256, 0.0, 1000.0), want.data());
      return counts->to_host() == want;
    };
    out.push_back(t);
  }
  return out;
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

int run_tune(const tune_options& o) {
  const auto t0 = std::chrono::steady_clock::now();
  context ctx(context_options{o.adapter});
  if (ctx.backend() == backend_choice::native)
    throw error(errc::unsupported, "tune: the native CPU backend runs no WGSL policies; name a WebGPU adapter "
                                   "(--adapter llvmpipe, or a GPU)");
  const bool cpu_adapter = ctx.adapter().kind == adapter_kind::cpu;
  // Sizes scaled to the adapter: a CPU adapter runs 2^18 (and 2^20) elements in milliseconds, a GPU 2^22 (and 2^25).
  std::vector<std::size_t> sizes = cpu_adapter ? std::vector<std::size_t>{1u << 18, 1u << 20}
                                               : std::vector<std::size_t>{1u << 22, 1u << 25};
  if (o.quick) sizes.resize(1);
  const int reps = o.quick ? 3 : 7, batch = cpu_adapter ? 2 : 10;

  // Start from the built-in table, whatever file this context loaded.
  const policy_info start = policy(ctx);
  knob_values builtin;
  for (const auto& k : start.knobs) builtin.push_back({k.name, k.builtin});

  std::vector<tunable> all = make_tunables(ctx, o.quick);
  std::vector<std::string> asked = split(o.primitives);
  if (o.primitives.empty())
    for (const tunable& t : all) asked.push_back(t.name);
  if (asked.empty()) throw error(errc::invalid_argument, "tune: --primitives is empty");
  for (const auto& p : asked)
    if (std::none_of(all.begin(), all.end(), [&](const tunable& t) { return t.name == p; }))
      throw error(errc::invalid_argument, "tune: unknown or unsupported primitive \"" + p +
                                              "\" here (tunable: scan, scan_wide, select, unique, partition, reduce, arg_reduce, sort, histogram)");

  fmt::print("tuning {} ({}), class {}, sizes", ctx.adapter().name, ctx.adapter().backend, start.adapter_class);
  for (std::size_t n : sizes) fmt::print(" {}", n);
  fmt::print(", median of {} rounds of {} calls\n", reps, batch);
  fmt::print("{:<11} {:<40} {:>12} {:>9}\n", "primitive", "candidate", "ms/call", "vs built");

  knob_values winners;
  bool failed = false;
  for (tunable& t : all) {
    if (std::find(asked.begin(), asked.end(), t.name) == asked.end()) continue;
    // The built-in policy first: the reference every candidate has to beat.
    std::vector<knob_values> cands;
    knob_values base;
    for (const auto& [name, v] : builtin)
      if (std::any_of(t.candidates[0].begin(), t.candidates[0].end(), [&](const auto& kv) { return kv.first == name; }))
        base.push_back({name, v});
    cands.push_back(base);
    for (const auto& c : t.candidates)
      if (c != base) cands.push_back(c);
    std::vector<double> score(cands.size(), 0.0);
    std::vector<double> shown(cands.size(), 0.0);
    for (std::size_t size : sizes) {
      const std::size_t n = size / t.size_divisor;
      t.prepare(n);
      auto use = [&](std::size_t i) {
        set_policy(ctx, builtin);
        set_policy(ctx, cands[i]);
      };
      // Every candidate once, discarded (it compiles the candidate's pipelines) and checked against the CPU twin.
      std::vector<bool> good(cands.size(), true);
      for (std::size_t i = 0; i < cands.size(); ++i) {
        use(i);
        t.call();
        ctx.finish();
        if (!t.check()) {
          std::cerr << "wgprim: error: tune: " << t.name << " " << describe(cands[i])
                    << " differs from the CPU twin at n = " << n << "\n";
          good[i] = false;
          failed = true;
        }
      }
      // The GPU's clocks up after the host's work above (warm_until_steady), then rounds in turn (candidate 0, 1,
      // ..., 0, 1, ...): a machine whose load drifts meets them all alike.
      if (ctx.adapter().kind != adapter_kind::cpu) {
        use(0);
        warm_until_steady([&] { t.call(); ctx.finish(); }, 50);
      }
      std::vector<std::vector<double>> rounds(cands.size());
      for (int r = 0; r < reps; ++r)
        for (std::size_t i = 0; i < cands.size(); ++i) {
          if (!good[i]) continue;
          use(i);
          const auto a = std::chrono::steady_clock::now();
          for (int b = 0; b < batch; ++b) t.call();
          ctx.finish();
          rounds[i].push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count() / batch);
        }
      std::vector<double> ms(cands.size(), 1e300);
      note_gpu_busy();
      for (std::size_t i = 0; i < cands.size(); ++i)
        if (good[i]) ms[i] = median(rounds[i]);
      for (std::size_t i = 0; i < cands.size(); ++i) {
        score[i] += ms[i] / ms[0];  // relative to the built-in at each size: every size weighs the same
        shown[i] = ms[i];           // the largest size's time is printed
      }
    }
    std::size_t best = 0;
    for (std::size_t i = 1; i < cands.size(); ++i)
      if (score[i] < score[best]) best = i;
    if (score[best] > score[0] * 0.97) best = 0;  // within the noise: keep the built-in
    for (std::size_t i = 0; i < cands.size(); ++i)
      fmt::print("{:<11} {:<40} {:>12.3f} {:>8.2f}x{}\n", i ? "" : t.name, describe(cands[i]) + (i ? "" : " (built-in)"),
                 shown[i], score[i] / score[0], i == best ? "  <- chosen" : "");
    for (const auto& kv : cands[best]) winners.push_back(kv);
  }
  set_policy(ctx, builtin);
  if (failed) {
    std::cerr << "wgprim: error: tune: a candidate's result differs from the CPU twin; nothing written\n";
    return 1;
  }

  // The file: the adapter's identity (for people) and the knobs; knobs of primitives not tuned now are kept from
  // the file being replaced.
  const std::string path = o.output.empty() ? start.file : o.output;
  json knobs = json::object();
  if (std::ifstream old(path); old) {
    const json j = json::parse(old, nullptr, false);
    if (!j.is_discarded() && j.is_object() && j.contains("knobs") && j["knobs"].is_object()) knobs = j["knobs"];
  }
  for (const auto& [name, v] : winners) knobs[name] = v;
  json doc = {{"wgprim_policy", 1}, {"adapter", ctx.adapter().name}, {"driver", ctx.adapter().driver},
              {"class", start.adapter_class}, {"knobs", knobs}};
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (o.dry_run) {
    fmt::print("dry run ({:.1f} s): not written; {} would hold\n{}\n", secs, path.empty() ? "(no cache folder)" : path, doc.dump(2));
    return 0;
  }
  if (path.empty()) throw error(errc::io, "tune: neither XDG_CACHE_HOME nor HOME is set; use --output FILE");
  std::error_code ec;
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  std::ofstream f(path);
  if (!f || !(f << doc.dump(2) << "\n")) throw error(errc::io, "tune: cannot write " + path);
  fmt::print("wrote {} ({:.1f} s)\n", path, secs);
  return 0;
}

}  // namespace

command add_tune_command(CLI::App& app) {
  auto o = std::make_shared<tune_options>();
  auto* s = app.add_subcommand("tune", "time the candidate policies here and write the winners to the adapter's policy file");
  s->add_option("--adapter", o->adapter, "adapter name substring (a WebGPU adapter: the native backend has no policies)");
  s->add_option("--primitives", o->primitives,
                "comma-separated: scan, scan_wide (64-bit values), select, unique, partition, reduce, arg_reduce, sort, "
                "histogram (default: every one the adapter runs)");
  s->add_option("--output", o->output, "write here instead of $XDG_CACHE_HOME/wgprim/<adapter>.json");
  s->add_flag("--quick", o->quick, "fewer candidates, one size, fewer rounds");
  s->add_flag("--dry-run", o->dry_run, "print the file instead of writing it");
  return {s, [o] { return run_tune(*o); }};
}
