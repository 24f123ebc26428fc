// `wgprim demo`: the source documents' two showcases (the sum of 4,194,304 prices, the running total of 65,536
// daily orders), then info.
#include <fmt/core.h>
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>
#include <vector>
#include <memory>
#include <sys/stat.h>

#include "command.hpp"
#include "reduce_scan.hpp"
#include "util.hpp"

using json = nlohmann::json;
using namespace wgprim;

namespace {

int demo_on(context& ctx, const reduce_scan_cli& c, json* collect);

// Without a GPU the default context is the native CPU backend: its times come first (next to the CPU loop),
// then the same two runs of the WGSL on the best WebGPU adapter (lavapipe) as the check, with the pictures.
int run_demo(const reduce_scan_cli& c) {
  if (!c.plot.empty()) {
    struct stat st;
    if (::stat(c.plot.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
      throw error(errc::invalid_argument, "--plot-dir '" + c.plot + "' is not an existing directory");
    io::check_writable(c.plot + "/demo-reduce.png", "bin");
  }
  // --json printed the text report (issue 29 row 10): now one JSON object, {"runs": [{backend, adapter, reduce,
  // scan}, ...]}, one run per backend the text would show.
  json runs = json::array();
  json* collect = c.json ? &runs : nullptr;
  auto finish = [&](int rc) {
    if (collect) std::cout << json{{"runs", runs}}.dump() << "\n";
    return rc;
  };
  context ctx(context_options{c.adapter});
  if (ctx.backend() != backend_choice::native) return finish(demo_on(ctx, c, collect));
  reduce_scan_cli plain = c;
  plain.plot.clear();  // pictures are drawn by WebGPU render pipelines: in the WGSL pass below
  if (!collect) fmt::print("#### the native CPU backend: {} ####\n\n", ctx.adapter().name);
  int rc = demo_on(ctx, plain, collect);
  context_options o;
  o.backend = backend_choice::webgpu;
  std::unique_ptr<context> wgsl;
  try {
    wgsl = std::make_unique<context>(o);
  } catch (const error& e) {
    if (!collect) fmt::print("\n(no WebGPU adapter for the WGSL check: {})\n", e.what());
    return finish(rc);
  }
  if (!collect) fmt::print("\n#### the WGSL check: the same runs on {} ####\n\n", wgsl->adapter().name);
  reduce_scan_cli on_wgsl = c;
  on_wgsl.adapter = wgsl->adapter().name;  // for the closing `info`
  return finish(std::max(rc, demo_on(*wgsl, on_wgsl, collect)));
}

int demo_on(context& ctx, const reduce_scan_cli& c, json* collect) {
  reduce_scan_cli r = c;
  r.op = "sum";
  r.plot = c.plot.empty() ? "" : c.plot + "/demo-reduce.png";
  io::array prices = io::generate("prices:4194304:1");
  json jr = reduce_and_check(ctx, r, prices);
  io::array orders = io::generate("orders:65536:1");
  std::vector<std::uint32_t> out;
  if (!c.plot.empty()) r.plot = c.plot + "/demo-scan.png";
  if (collect) {
    json js = scan_and_check(ctx, r, orders, out);
    collect->push_back({{"backend", backend_choice_name(ctx.backend())}, {"adapter", ctx.adapter().name},
                        {"reduce", jr}, {"scan", js}});
    return js["mismatches"].get<std::size_t>() == 0 ? 0 : 1;
  }
  // The headings name what ran (the default algorithms), not the source documents' algorithms.
  fmt::print("== Reduction (algorithm {}): the sum of 4,194,304 prices ==\n", jr["algorithm"].get<std::string>());
  print_reduce(jr);
  fmt::print("  (the tree adds numbers of similar size; the naive running total loses low bits as it grows)\n\n");

  json js = scan_and_check(ctx, r, orders, out);
  fmt::print("== Inclusive scan (algorithm {}): the running total of 65,536 daily orders ==\n",
             js["algorithm"].get<std::string>());
  print_scan(js, stdout);
  if (!c.plot.empty()) fmt::print("\npictures: {}/demo-reduce.png, {}/demo-scan.png\n", c.plot, c.plot);
  fmt::print("\n== wgprim info ==\n");
  print_info(c.adapter, false);
  return js["mismatches"].get<std::size_t>() == 0 ? 0 : 1;
}

}  // namespace

command add_demo_command(CLI::App& app) {
  auto c = std::make_shared<reduce_scan_cli>();
  auto* s = app.add_subcommand("demo", "the source documents' two showcases, then info");
  add_context_options(s, *c);
  s->add_option("--plot-dir", c->plot, "also draw the two pictures (PNG) into this folder");
  return {s, [c] { return run_demo(*c); }};
}
