// wgprim run 'select a % 2 == 0 | sort --bits 0:16 | unique | count' --input x.npy --json: a chain of primitives
// as one wgprim::pipeline (each step's length is the count the step before left on the device; one submission
// per run), checked against the chain's CPU twin. Stages: select EXPR (or select --predicate EXPR), sort [--bits
// LO:HI] [--descending], unique, and count (last only: the result is the final count, printed as "result").
#include "cmd_run.hpp"
#include "command.hpp"

#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "wgprim/io.hpp"
#include "wgprim/pipeline.hpp"
#include "wgprim/wgprim.hpp"
#include "word_elements.hpp"

using json = nlohmann::json;
using namespace wgprim;

namespace {

struct run_cli {
  std::string chain, adapter, input, generate, type, output;
  bool json = false, no_check = false;
  int repeat = 1;
};

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\n");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\n") - b + 1);
}

unsigned parse_bit(const std::string& s, const std::string& stage) {
  if (s.empty() || s.size() > 2 || s.find_first_not_of("0123456789") != std::string::npos)
    throw error(errc::invalid_argument, "run: '" + stage + "': --bits takes LO:HI, two numbers in 0..32");
  return static_cast<unsigned>(std::stoul(s));
}

// The chain's stages: split at each `|` that is outside quotes and parentheses and is not half of `||` (the
// predicates' logical or), so that `select a > 15 || a < 2`, `select (a | 1) == 3` and `select "a | 1 == 3"` keep
// their `|`.
std::vector<std::string> split_stages(const std::string& chain) {
  std::vector<std::string> stages;
  std::string cur;
  char quote = 0;
  int depth = 0;
  for (std::size_t i = 0; i < chain.size(); ++i) {
    const char ch = chain[i];
    if (quote) {
      if (ch == quote) quote = 0;
    } else if (ch == '"' || ch == '\'') {
      quote = ch;
    } else if (ch == '(') {
      ++depth;
    } else if (ch == ')') {
      depth = std::max(depth - 1, 0);
    } else if (ch == '|' && depth == 0) {
      if (i + 1 < chain.size() && chain[i + 1] == '|') {  // `||`: a logical or, kept whole
        cur += "||";
        ++i;
        continue;
      }
      stages.push_back(trim(cur));
      cur.clear();
      continue;
    }
    cur += ch;
  }
  if (quote) throw error(errc::invalid_argument, std::string("run: an unclosed ") + quote + " in '" + chain + "'");
  stages.push_back(trim(cur));
  return stages;
}

// Appends one stage to the pipeline; returns false for `count` (no step: the result is the count).
bool add_stage(pipeline& p, const std::string& text) {
  std::istringstream words(text);
  std::string verb;
  words >> verb;
  std::string rest;
  std::getline(words, rest);
  rest = trim(rest);
  if (verb == "select") {
    if (rest.rfind("--predicate", 0) == 0) rest = trim(rest.substr(11));
    if (rest.size() >= 2 && (rest.front() == '\'' || rest.front() == '"') && rest.back() == rest.front())
      rest = rest.substr(1, rest.size() - 2);
    if (rest.empty()) throw error(errc::invalid_argument, "run: 'select' needs a predicate, e.g. 'select a > 100'");
    p.select_if(predicate::expr(rest));
    return true;
  }
  if (verb == "sort") {
    sort_order o;
    std::istringstream opts(rest);
    std::string w;
    bool had_bits = false, had_descending = false;
    while (opts >> w) {
      if ((w == "--bits" && had_bits) || (w == "--descending" && had_descending))
        throw error(errc::invalid_argument, "run: '" + text + "': " + w + " is given twice");
      had_bits = had_bits || w == "--bits";
      had_descending = had_descending || w == "--descending";
      if (w == "--descending") {
        o.direction = order::descending;
      } else if (w == "--bits") {
        std::string b;
        if (!(opts >> b) || b.find(':') == std::string::npos)
          throw error(errc::invalid_argument, "run: '" + text + "': --bits takes LO:HI");
        o.begin_bit = parse_bit(b.substr(0, b.find(':')), text);
        o.end_bit = parse_bit(b.substr(b.find(':') + 1), text);
        if (o.begin_bit >= o.end_bit || o.end_bit > 32)
          throw error(errc::invalid_argument, "run: '" + text + "': --bits LO:HI needs 0 <= LO < HI <= 32");
      } else {
        throw error(errc::invalid_argument, "run: '" + text + "': unknown sort option '" + w +
                                                "' (--bits LO:HI, --descending)");
      }
    }
    p.sort(o);
    return true;
  }
  if (verb == "unique" || verb == "count") {
    if (rest.rfind("||", 0) == 0)
      throw error(errc::invalid_argument, "run: '" + text + "': stages are separated by one | (|| is a predicate's or)");
    if (!rest.empty()) throw error(errc::invalid_argument, "run: '" + verb + "' takes no options, got '" + rest + "'");
    if (verb == "unique") p.unique();
    return verb == "unique";
  }
  throw error(errc::invalid_argument, "run: unknown stage '" + verb + "' (select EXPR, sort [--bits LO:HI] "
                                      "[--descending], unique, count)");
}

// The chain over the input's words as the input's own element type (the pipeline checks the type it was made for).
std::uint64_t run_as_type(pipeline& p, const io::array& a) {
  const std::size_t n = a.bits.size();
  const std::uint32_t* w = n ? a.bits.data() : nullptr;
  switch (a.type) {
    case dtype::f32: return p.run(host_span<const float>(reinterpret_cast<const float*>(w), n));
    case dtype::i32: return p.run(host_span<const std::int32_t>(reinterpret_cast<const std::int32_t*>(w), n));
    default: return p.run(host_span<const std::uint32_t>(w, n));
  }
}

int run(const run_cli& c) {
  std::optional<dtype> t;
  if (!c.type.empty()) t = parse_dtype(c.type);
  if (!c.input.empty() && !c.generate.empty())
    throw error(errc::invalid_argument, "give either --input or --generate, not both");
  if (c.input.empty() && c.generate.empty())
    throw error(errc::invalid_argument, "no data: give --input FILE or --generate KIND:N[:SEED]");
  const io::array a = c.input.empty() ? io::generate(c.generate, t) : io::read_array(c.input, t);
  require_word_elements(a, "the input");
  if (!c.output.empty()) io::check_writable(c.output);

  // The stages are checked (and the predicates bound) before any GPU work.
  const std::vector<std::string> stages = split_stages(c.chain);
  context ctx(context_options{c.adapter});
  pipeline p(ctx, a.type);
  for (std::size_t i = 0; i < stages.size(); ++i) {
    if (stages[i].empty()) throw error(errc::invalid_argument, "run: an empty stage in '" + c.chain + "'");
    if (!add_stage(p, stages[i]) && i + 1 != stages.size())
      throw error(errc::invalid_argument, "run: 'count' is the last stage only");
  }

  const std::size_t n = a.bits.size();
  std::vector<double> times;
  std::uint64_t result = 0, replay_kernels = 0;
  for (int r = 0; r < c.repeat; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    result = run_as_type(p, a);
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    if (r > 0) replay_kernels += p.kernels_created_last_run();
  }
  std::vector<std::uint32_t> got(result);
  p.read_output_bits(got.data(), got.size());
  std::size_t mismatches = 0;
  if (!c.no_check) {
    const std::vector<std::uint32_t> want = p.reference(a.bits.data(), n);
    mismatches = want.size() == got.size() ? 0 : 1 + std::max(want.size(), got.size()) - std::min(want.size(), got.size());
    for (std::size_t i = 0; i < std::min(want.size(), got.size()); ++i) mismatches += want[i] != got[i];
  }
  const double first_ms = times.front();
  std::vector<double> replays(times.begin() + (times.size() > 1 ? 1 : 0), times.end());
  std::sort(replays.begin(), replays.end());
  json j = {{"op", "run"},
            {"chain", c.chain},
            {"type", dtype_name(a.type)},
            {"n", n},
            {"result", result},
            {"steps", p.steps()},
            {"adapter", ctx.adapter().name},
            {"first_ms", first_ms},
            {"ms", replays[replays.size() / 2]},
            {"replay_kernels_created", replay_kernels},
            {"dispatches", p.dispatches_last_run()}};
  if (!c.no_check) j["mismatches"] = mismatches;
  if (!c.output.empty()) {
    io::write_array(c.output, io::array{a.type, got});
    j["output"] = c.output;
  }
  std::FILE* rf = report_file(c.output);  // stderr when the data goes to stdout
  if (c.json) {
    fmt::print(rf, "{}\n", j.dump());
  } else {
    fmt::print(rf, "run '{}' over {} {} values on {}\n", c.chain, n, dtype_name(a.type), ctx.adapter().name);
    fmt::print(rf, "  result {} ({} steps, {})\n", result, p.steps(),
               ctx.backend() == backend_choice::native ? "run eagerly" : "one submission per run");
    if (!c.no_check)
      fmt::print(rf, "  {}\n", mismatches ? fmt::format("{} values differ from the CPU twin", mismatches)
                                      : std::string("every value matches the CPU twin"));
    fmt::print(rf, "  first run {:.3f} ms, replay median {:.3f} ms (wall, count read back)\n", first_ms,
               j["ms"].get<double>());
  }
  if (mismatches) {
    std::cerr << "wgprim: error: " << mismatches << " values differ from the CPU twin\n";
    return 1;
  }
  return 0;
}

}  // namespace

command add_run_command(CLI::App& app) {
  auto c = std::make_shared<run_cli>();
  CLI::App* s = app.add_subcommand("run", "a chain of primitives, e.g. 'select a % 2 == 0 | sort --bits 0:16 | unique "
                                          "| count', recorded once and run with device-side counts");
  s->add_option("chain", c->chain, "the stages, separated by |: select EXPR, sort [--bits LO:HI] [--descending], "
                                   "unique, count (a | inside quotes or parentheses, or in ||, stays in its stage)")
      ->required();
  s->add_option("--adapter", c->adapter, "adapter name substring (default: WGPRIM_ADAPTER, else the best GPU)");
  s->add_flag("--json", c->json, "print one JSON object (the final count as \"result\")");
  s->add_option("--input", c->input, "input file: .npy, .bin (with --type), .csv or .txt; u32, i32 or f32");
  s->add_option("--generate", c->generate, "generated data KIND:N[:SEED] instead of --input");
  s->add_option("--type", c->type, "element type f32|i32|u32");
  s->add_option("--output", c->output, "write the chain's last array (.npy, .bin, .csv, .txt)");
  s->add_flag("--no-check", c->no_check, "skip the comparison with the chain's CPU twin");
  s->add_option("--repeat", c->repeat, "run this many times (replays) and report the median")
      ->check(CLI::Range(1, 1000));
  return {s, [c]() -> int { return run(*c); }};
}

// ---- the bench row ----
namespace {
std::uint32_t chain_mix(std::uint32_t x) {  // bench/cub/cub_bench.cu's mix, whose gen_u32(i) is mix(2i + 1)
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}
}  // namespace

void add_chain_bench_cases(context& ctx, std::size_t n_max, const bench_wants& wants, std::vector<bench_case>& cases) {
  if (!wants("chain", "pipeline")) return;
  auto x = std::make_shared<buffer>(ctx.create_buffer(std::max<std::size_t>(n_max, 1) * 4));
  const std::size_t block = std::min<std::size_t>(n_max, std::size_t(1) << 22);
  std::vector<std::uint32_t> h(block);
  for (std::size_t off = 0; off < n_max; off += block) {
    const std::size_t m = std::min(block, n_max - off);
    for (std::size_t i = 0; i < m; ++i) h[i] = chain_mix(std::uint32_t(off + i) * 2u + 1u) & 0xffffu;
    ctx.write(*x, off * 4, h.data(), m * 4);
    ctx.finish();
  }
  auto p = std::make_shared<pipeline>(ctx, dtype::u32);
  p->select_if(predicate::expr("(a & 1u) == 0u")).sort(key_bits(0, 16)).unique();
  // Bytes as bench/cub counts the chain (4 n read, about n / 2 kept moved four times, few distinct): ~12 per element.
  bench_case c{"chain", "pipeline", "u32", "select even of x & 0xffff -> sort 0:16 -> unique -> count", 12.0,
               nullptr, nullptr, nullptr};
  c.call = [p, x](std::size_t n) { p->run(device_span<const std::uint32_t>(*x, 0, n)); };
  // No GPU timer spans a pipeline's submission: wall time of the run, the count read back included.
  c.run = [p, x](std::size_t n) {
    const auto t0 = std::chrono::steady_clock::now();
    p->run(device_span<const std::uint32_t>(*x, 0, n));
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  };
  cases.push_back(std::move(c));
}
