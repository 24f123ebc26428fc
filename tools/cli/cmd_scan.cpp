// `wgprim scan`: prefix scan of an array, checked against the CPU twin (f32 sums: within gamma_h * sum|x| of the
// exact prefix sums, bit for bit with --accuracy reproducible). The types beyond f32/i32/u32 and --segments hand
// over to reduce_scan_typed.cpp and segmented.cpp.
#include <fmt/core.h>
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>
#include <vector>
#include <limits>
#include <memory>

#include "command.hpp"
#include "json_value.hpp"
#include "plot.hpp"
#include "reduce_scan.hpp"
#include "util.hpp"

using json = nlohmann::json;
using namespace wgprim;

namespace {

// What a scan's CPU twin computes, in words: "running total" for sums, "running max" for max, ...
std::string running_what(const monoid& m, const op& o) {
  if (m.is_sum()) return "running total";
  if (o.is_custom()) return "running combine";
  return "running " + o.name();
}

}  // namespace

// ---------------------------------------------------------------------------------------------------------------
json scan_and_check(context& ctx, const reduce_scan_cli& c, const io::array& a, std::vector<std::uint32_t>& out) {
  op o = op::parse(c.op, c.identity);
  monoid m(o, a.type);
  const std::size_t n = a.bits.size();
  const scan_kind kind = c.exclusive ? scan_kind::exclusive : scan_kind::inclusive;
  run_stats st;
  run_options ro;
  ro.algorithm = c.algorithm;
  ro.check_operator = !c.no_check;
  ro.stats = &st;
  out.assign(n, 0);
  double upload_ms = 0, compile_ms = 0;
  buffer in, d_out;
  if (n) {
    upload_ms = upload(ctx, a, in);
    d_out = ctx.create_buffer(n * 4);
    ro.tune = c.tune;
    ro.accuracy = parse_accuracy(c.accuracy);
    const first_call warm = warm_up([&] { scan(ctx, in, d_out, n, m, kind, ro); }, st);
    std::vector<double> times;
    std::uint64_t fallbacks = 0;  // over the timed runs: predecessor tiles a waiting workgroup reduced itself
    for (int r = 0; r < c.repeat; ++r) {
      scan(ctx, in, d_out, n, m, kind, ro);
      times.push_back(st.gpu_ms);
      fallbacks += st.lookback_fallbacks;
    }
    st.lookback_fallbacks = fallbacks;
    std::sort(times.begin(), times.end());
    st.gpu_ms = times[times.size() / 2];
    compile_ms = warm.compile_ms + std::max(0.0, warm.gpu_ms - st.gpu_ms);
    ctx.read(d_out, 0, out.data(), n * 4);
  } else {
    st.algorithm = c.algorithm.empty() ? scan_algorithms().front() : c.algorithm;
  }
  // The CPU running total, timed, and the comparison.
  std::vector<std::uint32_t> ref(n);
  auto t0 = std::chrono::steady_clock::now();
  if (kind == scan_kind::inclusive) reference::inclusive_scan(a.bits.data(), n, ref.data(), m);
  else reference::exclusive_scan(a.bits.data(), n, ref.data(), m);
  double cpu_ms = ms_since(t0);
  std::size_t mismatches = 0;
  bool overflowed = false;
  std::string compared_with = "CPU " + running_what(m, o);
  const bool exact_sum = a.type == dtype::f32 && m.is_sum() && parse_accuracy(c.accuracy) == accuracy::reproducible;
  if (exact_sum) {
    // Reproducible scans: bit for bit against the exact prefix sums, each rounded once to the nearest f32.
    compared_with = "exact prefix sums (correctly rounded, bit for bit)";
    reference::exact_scan_f32(reinterpret_cast<const float*>(a.bits.data()), n, reinterpret_cast<float*>(ref.data()),
                        kind == scan_kind::exclusive);
    for (std::size_t i = 0; i < n; ++i) mismatches += out[i] != ref[i];
  } else if (a.type == dtype::f32 && m.is_sum()) {
    compared_with = "exact prefix sums within gamma_h * sum|x| (h = 64 + chunks)";
    // f32 sums: compare against the exact prefix within the bound gamma_h * sum|x| (h: longest chain of dependent
    // additions of the GPU algorithm, at most 64 plus one per storage-binding chunk). A prefix that holds a NaN,
    // or infinities, is NaN or infinite in any order (inf - inf = NaN), so it must be that exactly; once the
    // finite values' sum|x| reaches the f32 range, a partial sum may overflow (and then stay inf or become NaN),
    // in the GPU's order as in any other.
    const double u = std::ldexp(1.0, -24), h = 64.0 + static_cast<double>(n * 4 / ctx.binding_limit() + 1);
    const double gamma = h * u / (1 - h * u);
    const double f32_max = std::numeric_limits<float>::max();
    long double exact = 0, abs_sum = 0;
    for (std::size_t i = 0; i < n; ++i) {
      double x = from_bits<float>(a.bits[i]);
      double e_before = static_cast<double>(exact), a_before = static_cast<double>(abs_sum);
      exact += x;
      if (std::isfinite(x)) abs_sum += std::fabs(x);
      double want = kind == scan_kind::inclusive ? static_cast<double>(exact) : e_before;
      double bound = gamma * (kind == scan_kind::inclusive ? static_cast<double>(abs_sum) : a_before);
      double got = from_bits<float>(out[i]);
      bool ok;
      if (std::isnan(want)) ok = std::isnan(got);
      else if (std::isinf(want)) ok = got == want;
      else if (!std::isfinite(got)) ok = (bound / gamma) * (1 + gamma) >= f32_max;  // a partial sum may overflow
      else ok = std::fabs(got - want) <= bound;
      mismatches += !ok;
    }
  } else {
    // Everything else is exact: integers bit for bit; f32 min/max as values, NaN equal to NaN and -0 to +0 (the
    // twin defines the bits, but a driver need not keep the sign of a zero).
    for (std::size_t i = 0; i < n; ++i) {
      if (a.type != dtype::f32) { mismatches += out[i] != ref[i]; continue; }
      const float g = from_bits<float>(out[i]), r = from_bits<float>(ref[i]);
      mismatches += !(g == r || (std::isnan(g) && std::isnan(r)));
    }
    if (m.is_sum()) {  // integer running totals: did any wrap?
      std::int64_t exact = 0;
      for (std::size_t i = 0; i < n && !overflowed; ++i) {
        exact += a.type == dtype::i32 ? static_cast<std::int64_t>(static_cast<std::int32_t>(a.bits[i]))
                                      : static_cast<std::int64_t>(a.bits[i]);
        overflowed = a.type == dtype::i32 ? (exact < INT32_MIN || exact > INT32_MAX) : exact > UINT32_MAX;
      }
    }
  }
  json j = {{"op", o.is_custom() ? o.expression() : o.name()},
            {"type", dtype_name(a.type)},
            {"n", n},
            {"kind", c.exclusive ? "exclusive" : "inclusive"},
            {"algorithm", st.algorithm},
            {"adapter", ctx.adapter().name},
            {"mismatches", mismatches},
            {"compared_with", compared_with},
            {"gpu_ms", st.gpu_ms},
            {"compile_ms", compile_ms},
            {"gpu_timer", st.gpu_timestamps ? "timestamps" : "wall"},
            {"upload_ms", upload_ms},
            {"cpu_ms", cpu_ms},
            {"runs", n ? c.repeat : 0},
            {"lookback_fallbacks", st.lookback_fallbacks}};
  if (n) put_value(j, "last", a.type, out[n - 1]);
  else j["last"] = nullptr;
  if (m.is_sum() && a.type != dtype::f32) j["overflowed"] = overflowed;
  if (!c.plot.empty()) {
    double max_input = 0;
    for (std::uint32_t b : a.bits)
      max_input = std::max(max_input, a.type == dtype::f32 ? static_cast<double>(from_bits<float>(b))
                                      : a.type == dtype::i32 ? static_cast<double>(static_cast<std::int32_t>(b))
                                                             : static_cast<double>(b));
    std::vector<std::string> lines = {
        mismatches ? fmt::format("{} values differ from the {}", mismatches, compared_with)
                   : fmt::format("every one of the {} values matches the {}", with_commas(double(n), 0), compared_with),
        "last value " + text_of(j, "last")};
    plot::scan_curve(ctx, in, d_out, n, a.type, max_input,
                     fmt::format("{} values: {} scan ({}), the running total and the input",
                                 with_commas(double(n), 0), c.exclusive ? "exclusive" : "inclusive", st.algorithm),
                     lines, c.plot);
    j["plot"] = c.plot;
  }
  return j;
}

void print_scan(const json& j, std::FILE* to) {
  fmt::print(to, "{} scan {} over {} {} values on {} (algorithm {})\n", j["kind"].get<std::string>(),
             j["op"].get<std::string>(), with_commas(j["n"].get<double>(), 0), j["type"].get<std::string>(),
             j["adapter"].get<std::string>(), j["algorithm"].get<std::string>());
  const std::size_t mism = j["mismatches"].get<std::size_t>(), n = j["n"].get<std::size_t>();
  const std::string against = j["compared_with"].get<std::string>();
  if (n == 0)
    fmt::print(to, "  nothing to scan: the input is empty\n");
  else if (mism == 0)
    fmt::print(to, "  every one of the {} values matches the {}\n", with_commas(j["n"].get<double>(), 0), against);
  else
    fmt::print(to, "  {} values differ from the {}\n", with_commas(static_cast<double>(mism), 0), against);
  if (n) fmt::print(to, "  last value {}\n", text_of(j, "last"));
  const bool native = j["adapter"].get<std::string>().rfind("native CPU", 0) == 0;
  if (j.value("overflowed", false))
    fmt::print(to, "  the {} running total wrapped: some exact prefix sums do not fit, the {}'s are modulo 2^32\n",
               j["type"].get<std::string>(), native ? "native backend" : "GPU");
  fmt::print(to, "  {} time {:.3f} ms ({}), upload {:.3f} ms, CPU loop {:.3f} ms, shader compilation {:.3f} ms (apart)\n",
             native ? "native" : "GPU", j["gpu_ms"].get<double>(), j["gpu_timer"].get<std::string>(),
             j["upload_ms"].get<double>(), j["cpu_ms"].get<double>(), j.value("compile_ms", 0.0));
  if (j.value("lookback_fallbacks", 0) > 0)
    fmt::print(to, "  look-back fallbacks: {} predecessor tiles reduced by a waiting workgroup in {} runs\n",
               j["lookback_fallbacks"].get<std::uint64_t>(), j["runs"].get<int>());
}

namespace {

int run_scan(const reduce_scan_cli& c) {
  parse_accuracy(c.accuracy);
  // Fail on an unusable path before the work, not after.
  if (!c.output.empty()) io::check_writable(c.output, c.output_format);
  else if (!c.output_format.empty()) throw error(errc::invalid_argument, "--output-format needs --output");
  if (!c.plot.empty()) check_plot_path(c.plot);
  io::array a = load(c);
  if (wants_typed(a, c.accumulate))
    return run_scan_typed(typed_of(c), a);
  monoid check(op::parse(c.op, c.identity), a.type);
  if (!c.no_check) check.check(/*need_commutative=*/false);
  context ctx = make_context(c);
  std::vector<std::uint32_t> out;
  json j = scan_and_check(ctx, c, a, out);
  if (!c.output.empty()) io::write_array(c.output, io::array{a.type, std::move(out), a.shape}, c.output_format);
  // With --output - the data goes to standard output, so the report goes to standard error.
  const bool data_on_stdout = c.output == "-";
  if (c.json) (data_on_stdout ? std::cerr : std::cout) << j.dump() << "\n";
  else print_scan(j, data_on_stdout ? stderr : stdout);
  warn_overflow(j);
  if (j["mismatches"].get<std::size_t>() != 0) {
    std::cerr << "wgprim: error: " << j["mismatches"].get<std::size_t>()
              << " scanned values differ from the CPU twin\n";
    return 1;
  }
  return 0;
}

}  // namespace

command add_scan_command(CLI::App& app) {
  auto c = std::make_shared<reduce_scan_cli>();
  auto* s = app.add_subcommand("scan", "prefix scan of an array");
  add_context_options(s, *c);
  add_data_options(s, *c);
  s->add_option("--output", c->output, "write the scanned array (.npy, .bin, .csv, .txt; - for stdout)");
  s->add_option("--output-format", c->output_format, "npy|bin|csv|txt instead of the extension (- writes txt)")
      ->check(CLI::IsMember({"npy", "bin", "raw", "csv", "txt"}));
  s->add_flag("--exclusive", c->exclusive, "exclusive scan (default inclusive)");
  auto segmented = add_segmented_options(s, *c, /*is_scan=*/true);
  return {s, [c, segmented] {
            if (int rc = segmented(); rc >= 0) return rc;
            return run_scan(*c);
          }};
}
