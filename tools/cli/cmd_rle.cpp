// `wgprim rle`: run-length encoding, each run's value and length, checked against the CPU twin.
//   wgprim rle --input x.npy --output values.npy --counts-output counts.npy
// JSON: type, n, runs, algorithm, adapter, mismatches, gpu_ms, upload_ms, cpu_ms.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "command.hpp"
#include "util.hpp"
#include "wgprim/io.hpp"
#include "wgprim/wgprim.hpp"
#include "word_elements.hpp"

using json = nlohmann::json;
using namespace wgprim;

namespace {

using clock_type = std::chrono::steady_clock;

struct rle_cli {
  std::string adapter, input, generate, type, output, counts_output;
  bool json = false;
  int repeat = 1;
};

int run_rle(const rle_cli& c) {
  std::optional<dtype> t;
  if (!c.type.empty()) t = parse_dtype(c.type);
  if (c.input.empty() == c.generate.empty())
    throw error(errc::invalid_argument, "give one of --input FILE or --generate KIND:N[:SEED]");
  io::array a = c.input.empty() ? io::generate(c.generate, t) : io::read_array(c.input, t);
  require_word_elements(a, "the input");
  if (!c.output.empty()) io::check_writable(c.output);
  if (!c.counts_output.empty()) io::check_writable(c.counts_output);
  const std::size_t n = a.bits.size();
  context ctx(context_options{c.adapter});
  auto t0 = clock_type::now();
  buffer in = upload_words(ctx, a.bits), d_v = ctx.create_buffer(std::max<std::size_t>(n, 1) * 4),
         d_c = ctx.create_buffer(std::max<std::size_t>(n, 1) * 4);
  ctx.finish();
  const double upload_ms = ms_since(t0);
  run_stats st;
  run_options ro;
  ro.stats = &st;
  std::size_t runs = 0;
  const double gpu_ms = timed_median(c.repeat, st, [&] { runs = run_length_encode(ctx, in, a.type, n, d_v, d_c, ro); });
  auto gv = download_words(ctx, d_v, runs), gc = download_words(ctx, d_c, runs);
  std::vector<std::uint32_t> wv(n), wc(n);
  auto t1 = clock_type::now();
  const std::size_t want_runs = reference::run_length_encode(a.bits.data(), a.type, n, wv.data(), wc.data());
  const double cpu_ms = ms_since(t1);
  std::size_t mismatches = runs != want_runs;
  for (std::size_t r = 0; r < std::min(runs, want_runs); ++r) mismatches += (gv[r] != wv[r]) + (gc[r] != wc[r]);
  if (!c.output.empty()) io::write_array(c.output, io::array{a.type, gv});
  if (!c.counts_output.empty()) io::write_array(c.counts_output, io::array{dtype::u32, gc});
  json j = {{"type", dtype_name(a.type)}, {"n", n}, {"runs", runs}, {"algorithm", st.algorithm},
            {"adapter", ctx.adapter().name}, {"mismatches", mismatches}, {"gpu_ms", gpu_ms},
            {"upload_ms", upload_ms}, {"cpu_ms", cpu_ms}};
  return finish_report(j, c.json, "run-length encoding", c.counts_output == "-" ? c.counts_output : c.output);
}

}  // namespace

command add_rle_command(CLI::App& app) {
  auto c = std::make_shared<rle_cli>();
  CLI::App* s = app.add_subcommand("rle", "run-length encoding: each run's value and length");
  s->add_option("--adapter", c->adapter, "adapter name substring");
  s->add_flag("--json", c->json, "print one JSON object");
  s->add_option("--input", c->input, "input file: .npy, .bin (with --type), .csv or .txt");
  s->add_option("--generate", c->generate, "generated data KIND:N[:SEED]");
  s->add_option("--type", c->type, "element type f32|i32|u32");
  s->add_option("--output", c->output, "write the runs' values");
  s->add_option("--counts-output", c->counts_output, "write the runs' lengths (u32)");
  s->add_option("--repeat", c->repeat, "run this many times, report the median time")->check(CLI::Range(1, 1000));
  return {s, [c] { return run_rle(*c); }};
}
