// wgprim histogram: np.histogram on the GPU, checked against the CPU twin.
//   wgprim histogram --input x.npy --bins N [--range LO:HI] --output counts.npy [--json]
//   wgprim histogram --input x.npy --levels edges.npy --output counts.npy
// Without --range the range is the data's min..max (NumPy's default). JSON: type, n, bins, range or levels,
// counted, algorithm, adapter, mismatches, gpu_ms, upload_ms, cpu_ms.
#include <fmt/core.h>

#include <chrono>
#include <cmath>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>

#include <CLI/CLI.hpp>

#include "command.hpp"
#include "util.hpp"
#include "wgprim/io.hpp"
#include "word_elements.hpp"

using json = nlohmann::json;
using namespace wgprim;

namespace {

struct histogram_cli {
  std::string adapter, input, generate, type, range, levels, output, algorithm;
  std::size_t bins = 10;
  bool json = false;
  int repeat = 1;
};

double value_of(dtype t, std::uint32_t b) {
  if (t == dtype::f32) return from_bits<float>(b);
  if (t == dtype::i32) return static_cast<std::int32_t>(b);
  return b;
}

int run_histogram(const histogram_cli& c) {
  using clock = std::chrono::steady_clock;
  std::optional<dtype> t;
  if (!c.type.empty()) t = parse_dtype(c.type);
  if (c.input.empty() == c.generate.empty())
    throw error(errc::invalid_argument, "give one of --input FILE or --generate KIND:N[:SEED]");
  io::array a = c.input.empty() ? io::generate(c.generate, t) : io::read_array(c.input, t);
  require_word_elements(a, "the input");
  const std::size_t n = a.bits.size();
  double lo = 0, hi = 1;
  io::array lv;
  std::size_t bins = c.bins;
  if (!c.levels.empty()) {
    if (!c.range.empty()) throw error(errc::invalid_argument, "give --range or --levels, not both");
    lv = io::read_array(c.levels);
    require_word_elements(lv, "--levels");
    if (lv.type != a.type)
      throw error(errc::invalid_argument, std::string("the levels are ") + dtype_name(lv.type) + ", the input " +
                                              dtype_name(a.type) + " (give them in the input's type)");
    if (lv.bits.size() < 2) throw error(errc::invalid_argument, "give at least 2 levels (the edges of one bin)");
    bins = lv.bits.size() - 1;
  } else if (!c.range.empty()) {
    auto colon = c.range.find(':', 1);
    if (colon == std::string::npos) throw error(errc::invalid_argument, "--range takes LO:HI, got '" + c.range + "'");
    try {
      std::size_t p1 = 0, p2 = 0;
      lo = std::stod(c.range.substr(0, colon), &p1);
      hi = std::stod(c.range.substr(colon + 1), &p2);
      if (p1 != colon || p2 != c.range.size() - colon - 1) throw std::invalid_argument("trailing");
    } catch (const std::logic_error&) {
      throw error(errc::invalid_argument, "--range takes LO:HI (two numbers), got '" + c.range + "'");
    }
    // -1e39 became -inf in f32 and was reported as "too many bins" (issue 29 row 11).
    for (double v : {lo, hi})
      if (!(std::fabs(v) <= 3.4028234663852886e38))
        throw error(errc::invalid_argument, "--range '" + c.range + "': the ends must be finite and within f32's range (±3.4e38)");
  } else if (n) {  // NumPy's default range: the data's min..max
    lo = INFINITY;
    hi = -INFINITY;
    for (auto b : a.bits) {
      double v = value_of(a.type, b);
      if (std::isnan(v)) throw error(errc::invalid_argument, "the data holds NaN: give --range");
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  }
  if (!c.output.empty()) io::check_writable(c.output);
  context ctx(context_options{c.adapter});
  run_stats st;
  run_options ro;
  ro.algorithm = c.algorithm;
  ro.stats = &st;
  std::vector<std::uint32_t> counts(bins);
  auto t0 = clock::now();
  buffer in = ctx.create_buffer(std::max<std::size_t>(n, 1) * 4), d_counts = ctx.create_buffer(bins * 4), d_lv;
  if (n) ctx.write(in, 0, a.bits.data(), n * 4);
  if (!lv.bits.empty()) {
    d_lv = ctx.create_buffer(lv.bits.size() * 4);
    ctx.write(d_lv, 0, lv.bits.data(), lv.bits.size() * 4);
  }
  ctx.finish();
  const double upload_ms = std::chrono::duration<double, std::milli>(clock::now() - t0).count();
  std::vector<double> times;
  for (int r = 0; r < c.repeat; ++r) {
    if (lv.bits.empty()) histogram_even(ctx, in, n, a.type, d_counts, bins, lo, hi, ro);
    else histogram_range(ctx, in, n, a.type, d_counts, d_lv, lv.bits.size(), ro);
    times.push_back(st.gpu_ms);
  }
  std::sort(times.begin(), times.end());
  ctx.read(d_counts, 0, counts.data(), bins * 4);

  std::vector<double> edges;
  if (lv.bits.empty()) edges = reference::histogram_edges(bins, lo, hi);
  else for (auto b : lv.bits) edges.push_back(value_of(a.type, b));
  std::vector<std::uint32_t> want(bins);
  auto t1 = clock::now();
  reference::histogram(a.bits.data(), n, a.type, edges, want.data());
  const double cpu_ms = std::chrono::duration<double, std::milli>(clock::now() - t1).count();
  std::size_t mismatches = 0;
  std::uint64_t counted = 0;
  for (std::size_t i = 0; i < bins; ++i) {
    mismatches += counts[i] != want[i];
    counted += counts[i];
  }
  if (!c.output.empty()) io::write_array(c.output, io::array{dtype::u32, counts});
  json j = {{"type", dtype_name(a.type)}, {"n", n}, {"bins", bins}, {"counted", counted},
            {"algorithm", st.algorithm}, {"adapter", ctx.adapter().name}, {"mismatches", mismatches},
            {"gpu_ms", times[times.size() / 2]}, {"gpu_timer", st.gpu_timestamps ? "timestamps" : "wall"},
            {"upload_ms", upload_ms}, {"cpu_ms", cpu_ms}};
  if (lv.bits.empty()) j["range"] = {lo, hi};
  else j["levels"] = c.levels;
  std::FILE* rf = report_file(c.output);  // stderr when the data goes to stdout
  if (c.json) {
    fmt::print(rf, "{}\n", j.dump());
  } else {
    fmt::print(rf, "histogram of {} {} values into {} bins on {} (algorithm {})\n", n, dtype_name(a.type), bins,
               ctx.adapter().name, st.algorithm);
    if (lv.bits.empty()) fmt::print(rf, "  range [{}, {}]\n", lo, hi);
    fmt::print(rf, "  {} values counted; {}\n", counted,
               mismatches ? fmt::format("{} bins differ from the CPU twin", mismatches)
                          : std::string("every bin matches the CPU twin"));
    fmt::print(rf, "  {} time {:.3f} ms, upload {:.3f} ms, CPU loop {:.3f} ms\n", j["adapter"].get<std::string>().rfind("native CPU", 0) == 0 ? "native" : "GPU", j["gpu_ms"].get<double>(), upload_ms,
               cpu_ms);
  }
  if (mismatches) {
    std::cerr << "wgprim: error: " << mismatches << " bins differ from the CPU twin\n";
    return 1;
  }
  return 0;
}

}  // namespace

command add_histogram_command(CLI::App& app) {
  auto c = std::make_shared<histogram_cli>();
  CLI::App* s = app.add_subcommand("histogram", "np.histogram: counts of values in even bins or between levels");
  s->add_option("--adapter", c->adapter, "adapter name substring");
  s->add_flag("--json", c->json, "print one JSON object");
  s->add_option("--input", c->input, "input file: .npy, .bin (with --type), .csv or .txt");
  s->add_option("--generate", c->generate, "generated data KIND:N[:SEED]");
  s->add_option("--type", c->type, "element type f32|i32|u32");
  CLI::Option* bins = s->add_option("--bins", c->bins, "number of even bins (default 10)")->check(CLI::Range(1, 1 << 24));
  s->add_option("--range", c->range, "LO:HI (default: the data's min:max, as NumPy)");
  // --bins beside --levels was ignored (the levels decide the bins): refused instead.
  s->add_option("--levels", c->levels, "bin edges file (uneven bins; the input's type)")->excludes(bins);
  s->add_option("--output", c->output, "write the u32 counts (.npy, .bin, .csv, .txt)");
  s->add_option("--algorithm", c->algorithm, "algorithm name (see wgprim info)");
  s->add_option("--repeat", c->repeat, "run this many times, report the median time")->check(CLI::Range(1, 1000));
  return {s, [c] { return run_histogram(*c); }};
}
