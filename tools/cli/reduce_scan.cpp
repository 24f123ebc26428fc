// The options and helpers that reduce, scan and demo share.
#include "reduce_scan.hpp"

#include <fmt/core.h>
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>
#include <vector>

#include "json_value.hpp"
#include "util.hpp"

using json = nlohmann::json;
using namespace wgprim;

void add_context_options(CLI::App* s, reduce_scan_cli& c) {
  s->add_option("--adapter", c.adapter,
                "adapter name substring, or cpu for the native CPU backend (default: WGPRIM_ADAPTER, else the "
                "best GPU, else the native CPU backend)");
  s->add_flag("--json", c.json, "print one JSON object");
}

void add_data_options(CLI::App* s, reduce_scan_cli& c) {
  s->add_option("--input", c.input, "input file: .npy, .bin (with --type), .csv or .txt; - reads .npy or text from stdin");
  s->add_option("--generate", c.generate,
                "generated data KIND:N[:SEED] (SEED 42), KIND = prices|orders|uniform|mixed");
  s->add_option("--type", c.type, "element type f32|i32|u32|f64|i64|u64|f16|u8|i8 (or NumPy's names: float64, int64, ...)");
  s->add_option("--op", c.op, "sum|min|max|and|or|xor|argmin|argmax, or a WGSL expression in a and b");
  s->add_option("--identity", c.identity, "identity of a custom operator (e.g. --identity=-inf)");
  s->add_flag("--no-check", c.no_check,
              "skip the monoid check of a custom operator (identity neutral, associative, commutative for reduce)");
  s->add_option("--algorithm", c.algorithm, "algorithm name (see wgprim info; default: reduce fast, scan decoupled)");
  s->add_option("--accuracy", c.accuracy, "f32 sums: fast | compensated | reproducible (= exact: correctly rounded)");
  s->add_option("--accumulate", c.accumulate, "wide: i32/u32 sums accumulated in 64 bits (i64/u64 result), like NumPy")
      ->check(CLI::IsMember({"", "wide"}));
  s->add_option("--plot", c.plot, "draw a PNG picture (reduce: the partials; scan: the running total)");
  s->add_option("--workgroups", c.tune.workgroups, "policy override: workgroups of the first reduce pass (0: the adapter's policy)");
  s->add_option("--items", c.tune.items, "policy override: vec4 loads per invocation per tile (0: the policy)");
  s->add_option("--subgroups", c.tune.subgroups, "policy override: 1 use subgroups, 0 workgroup memory only (-1: the policy)")
      ->check(CLI::Range(-1, 1));  // issue 29 row 11: 5, 2, 7 were accepted silently
  s->add_option("--vec-loads", c.tune.vec_loads, "policy override (reduce): 1 vec4 loads, 0 scalar loads (-1: the policy)")
      ->check(CLI::Range(-1, 1));  // issue 29 row 11: 5, 2, 7 were accepted silently
  s->add_option("--staged", c.tune.staged,
                "policy override (decoupled scan): tile layout 0 direct, 1 staged in workgroup memory, 2 raked "
                "(subgroup chunks; needs subgroups) (-1: the policy: raked on GPUs, direct on CPU adapters)")
      ->check(CLI::Range(-1, 2));
  s->add_option("--spin-limit", c.tune.spin_limit, "policy override (decoupled scan): polls before fallback (0: the policy)");
  s->add_option("--exact-window", c.tune.exact_window, "policy override (exact sums): 1 register window, 0 columns (-1: the policy)")
      ->check(CLI::Range(-1, 1));  // issue 29 row 11: 5, 2, 7 were accepted silently
  s->add_option("--repeat", c.repeat, "run the GPU algorithm this many times and report the median time")
      ->check(CLI::Range(1, 1000));
}

io::array load(const reduce_scan_cli& c) {
  std::optional<dtype> t;
  if (!c.type.empty()) t = parse_dtype(c.type);
  if (!c.input.empty() && !c.generate.empty())
    throw error(errc::invalid_argument, "give either --input or --generate, not both");
  if (!c.input.empty()) return io::read_array(c.input, t);
  if (!c.generate.empty()) return io::generate(c.generate, t);
  throw error(errc::invalid_argument, "no data: give --input FILE or --generate KIND:N[:SEED]");
}

// The context of a command: the library's automatic choice (the native CPU backend when there is no GPU), except
// that pictures are drawn from the WGSL's own buffers by WebGPU render pipelines, so --plot runs on WebGPU.
context make_context(const reduce_scan_cli& c) {
  context_options o{c.adapter};
  if (!c.plot.empty()) o.backend = backend_choice::webgpu;
  return context(o);
}

// Uploads the array into a new device buffer; returns the wall time of the upload (ms).
double upload(context& ctx, const io::array& a, buffer& in) {
  auto t0 = std::chrono::steady_clock::now();
  in = ctx.create_buffer(a.bits.size() * 4);
  ctx.write(in, 0, a.bits.data(), a.bits.size() * 4);
  ctx.finish();
  return ms_since(t0);
}

std::string text_of(const json& j, const std::string& key) {
  if (j.contains(key + "_text")) return j[key + "_text"].get<std::string>();
  const json& v = j[key];
  if (v.is_null()) return "-";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_float()) return round_trip_text(v.get<double>(), j.value("type", "") == "f32" && key != "exact");
  return with_commas(v.get<double>(), 0);
}

void warn_overflow(const json& j) {
  if (j.value("overflowed", false))
    std::cerr << "wgprim: warning: the " << j["type"].get<std::string>() << " sum overflowed and wrapped modulo 2^32"
              << (j.contains("exact_text") ? " (exact " + j["exact_text"].get<std::string>() + ")" : "")
              << "; use a wider type for an exact result\n";
}
