// The wgprim command: info, reduce, scan, demo, bench. Every error is one line on stderr, "wgprim: error: ...",
// and an exit code: 2 for usage (bad arguments, as CLI11 reports them too), 3-11 the errc codes of
// include/wgprim/error.hpp, 1 for a result that differs from the CPU twin. --help and --version exit 0.
#include <fmt/core.h>
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <iostream>
#include <nlohmann/json.hpp>
#include <memory>
#include <optional>
#include <sys/stat.h>

#include "bench.hpp"
#include "cmd_arg_reduce.hpp"
#include "cmd_bench_cpu.hpp"
#include "cmd_transform_reduce.hpp"
#include "cmd_types.hpp"
#include "cmd_hist.hpp"
#include "json_value.hpp"
#include "cmd_select.hpp"
#include "cmd_run.hpp"
#include "plot.hpp"
#include "wgprim/io.hpp"
#include "wgprim/wgprim.hpp"
#include "word_elements.hpp"

using json = nlohmann::json;
using namespace wgprim;

namespace {

// The version of the wgprim project (CMakeLists.txt's project(VERSION); cli_test.sh checks that they agree).
constexpr const char* wgprim_version = "0.1.0";

struct common {
  std::string adapter, input, generate, type, op = "sum", identity, algorithm, output, output_format;
  bool json = false, exclusive = false, no_check = false;
  tuning tune;
  int repeat = 1;
  std::string accuracy = "fast";
  std::string plot;  // PNG path
  std::string transform;  // reduce --transform
  std::string accumulate;  // --accumulate wide: i32/u32 sums in 64 bits
};

io::array load(const common& c) {
  std::optional<dtype> t;
  if (!c.type.empty()) t = parse_dtype(c.type);
  if (!c.input.empty() && !c.generate.empty())
    throw error(errc::invalid_argument, "give either --input or --generate, not both");
  if (!c.input.empty()) return io::read_array(c.input, t);
  if (!c.generate.empty()) return io::generate(c.generate, t);
  throw error(errc::invalid_argument, "no data: give --input FILE or --generate KIND:N[:SEED]");
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// The context of a command: the library's automatic choice (the native CPU backend when there is no GPU), except
// that pictures are drawn from the WGSL's own buffers by WebGPU render pipelines, so --plot runs on WebGPU.
context make_context(const common& c) {
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

// The text of a JSON value put by put_value (or a double), for the report: the round-trip digits, grouped.
std::string text_of(const json& j, const std::string& key);

std::string with_commas(double v, int decimals) {
  std::string s = fmt::format("{:.{}f}", std::fabs(v), decimals);
  auto dot = s.find('.');
  std::string head = s.substr(0, dot), tail = dot == std::string::npos ? "" : s.substr(dot);
  std::string out;
  for (std::size_t i = 0; i < head.size(); ++i) {
    if (i && (head.size() - i) % 3 == 0) out += ',';
    out += head[i];
  }
  return (v < 0 ? "-" : "") + out + tail;
}

// A number with all the digits that make it read back the same (the shortest round-trip digits of the float or
// double it is), written in fixed notation with thousands separators where that is readable (1e-5 .. 1e15),
// else in exponent notation.
std::string round_trip_text(double v, bool is_f32) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == 0) return std::signbit(v) ? "-0" : "0";
  char buf[64];
  int prec = 1;
  for (; prec < 17; ++prec) {
    std::snprintf(buf, sizeof buf, "%.*g", prec, v);
    if (is_f32 ? std::strtof(buf, nullptr) == static_cast<float>(v) : std::strtod(buf, nullptr) == v) break;
  }
  std::snprintf(buf, sizeof buf, "%.*e", prec - 1, v);
  const int exponent = std::atoi(std::strchr(buf, 'e') + 1);  // of the shortest decimal, not of v
  std::snprintf(buf, sizeof buf, "%.*g", prec, v);
  if (exponent < -5 || exponent > 15) return buf;
  return with_commas(v, std::max(0, prec - 1 - exponent));
}

std::string text_of(const json& j, const std::string& key) {
  if (j.contains(key + "_text")) return j[key + "_text"].get<std::string>();
  const json& v = j[key];
  if (v.is_null()) return "-";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_float()) return round_trip_text(v.get<double>(), j.value("type", "") == "f32" && key != "exact");
  return with_commas(v.get<double>(), 0);
}

// What a scan's CPU twin computes, in words: "running total" for sums, "running max" for max, ...
std::string running_what(const monoid& m, const op& o) {
  if (m.is_sum()) return "running total";
  if (o.is_custom()) return "running combine";
  return "running " + o.name();
}

// --plot FILE.png: refused before any work when it is a folder or not a .png, or its folder is not writable.
void check_plot_path(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    throw error(errc::invalid_argument, "--plot '" + path + "' is a directory; give a .png file name");
  if (path.size() < 4 || path.compare(path.size() - 4, 4, ".png") != 0)
    throw error(errc::invalid_argument, "--plot '" + path + "': the picture is a PNG; name it FILE.png");
  io::check_writable(path, "bin");  // the folder exists and is writable (a PNG, checked as any file; issue 29 row 11)
}

// ---------------------------------------------------------------------------------------------------------------
int cmd_info(const common& c) {
  context ctx(context_options{c.adapter});
  const auto& a = ctx.adapter();
  const auto& l = ctx.limits();
  const auto& f = ctx.features();
  json j = {{"wgpu_native", context::wgpu_version()},
            {"adapter", {{"name", a.name}, {"vendor", a.vendor}, {"architecture", a.architecture},
                         {"driver", a.driver}, {"backend", a.backend}, {"type", a.type},
                         {"vendor_id", a.vendor_id}, {"device_id", a.device_id}}},
            {"limits", {{"max_storage_buffer_binding_size", l.max_storage_buffer_binding_size},
                        {"max_buffer_size", l.max_buffer_size},
                        {"max_compute_workgroup_storage_size", l.max_compute_workgroup_storage_size},
                        {"max_compute_invocations_per_workgroup", l.max_compute_invocations_per_workgroup},
                        {"max_compute_workgroup_size_x", l.max_compute_workgroup_size_x},
                        {"max_compute_workgroups_per_dimension", l.max_compute_workgroups_per_dimension},
                        {"min_storage_buffer_offset_alignment", l.min_storage_buffer_offset_alignment},
                        {"max_storage_buffers_per_shader_stage", l.max_storage_buffers_per_shader_stage}}},
            {"features", {{"timestamp_query", f.timestamp_query}, {"shader_f16", f.shader_f16},
                          {"subgroups", f.subgroups}, {"shader_f64", f.shader_f64},
                          {"shader_int64", f.shader_int64}, {"immediates", f.immediates}}},
            {"backend", backend_choice_name(ctx.backend())},
            {"timestamps_trustworthy", ctx.timestamps_trustworthy()},
            {"reduce_algorithms", reduce_algorithms()},
            {"scan_algorithms", scan_algorithms()}};
  json all = json::array();
  for (const auto& x : context::enumerate_adapters())
    all.push_back({{"name", x.name}, {"backend", x.backend}, {"type", x.type}});
  j["adapters"] = all;
  if (c.json) {
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  fmt::print("wgpu-native   {}\n", context::wgpu_version());
  if (ctx.backend() == backend_choice::native)
    fmt::print("backend       native CPU backend (no GPU found; --adapter llvmpipe runs the WGSL on lavapipe)\n");
  fmt::print("adapter       {} ({}, {})\n", a.name, a.backend, a.type);
  fmt::print("vendor        {} (0x{:04x}), device 0x{:04x}\n", a.vendor.empty() ? "-" : a.vendor, a.vendor_id,
             a.device_id);
  fmt::print("driver        {}\n", a.driver.empty() ? "-" : a.driver);
  fmt::print("limits        storage binding {} B, buffer {} B, workgroup storage {} B,\n",
             l.max_storage_buffer_binding_size, l.max_buffer_size, l.max_compute_workgroup_storage_size);
  fmt::print("              {} invocations/workgroup, {} workgroups/dimension\n",
             l.max_compute_invocations_per_workgroup, l.max_compute_workgroups_per_dimension);
  fmt::print("features      timestamp-query={} shader-f16={} subgroups={} shader-f64={} shader-int64={} immediates={} (timestamps {})\n",
             f.timestamp_query, f.shader_f16, f.subgroups, f.shader_f64, f.shader_int64, f.immediates,
             ctx.timestamps_trustworthy() ? "used" : "not trusted");
  // Every registered algorithm, by primitive (the library's registry); * marks the default on this adapter kind.
  {
    const bool cpu_kind = ctx.adapter().kind == adapter_kind::cpu;
    std::string line, prim;
    for (const auto& d : algorithm_list()) {
      if (d.primitive != prim) {
        line += (prim.empty() ? "" : "; ") + d.primitive + ":";
        prim = d.primitive;
      } else {
        line += ",";
      }
      line += " " + d.name + ((cpu_kind ? d.default_on_cpu : d.default_on_gpu) ? "*" : "");
    }
    fmt::print("algorithms    {}\n", line);
  }
  fmt::print("all adapters  ");
  for (std::size_t i = 0; i < all.size(); ++i)
    fmt::print("{}{} ({})", i ? "; " : "", all[i]["name"].get<std::string>(), all[i]["backend"].get<std::string>());
  fmt::print("\n");
  return 0;
}

// ---------------------------------------------------------------------------------------------------------------
// The first call of a configuration creates its pipelines (and a driver may finish compiling them on first use,
// as lavapipe does): it runs once untimed, and what it cost beyond a timed run is reported as compile_ms, so that
// gpu_ms never includes shader compilation.
struct first_call {
  double compile_ms, gpu_ms;
};
template <class F>
first_call warm_up(F&& f, const run_stats& st) {
  f();
  return {st.compile_ms, st.gpu_ms};
}

json run_reduce(context& ctx, const common& c, const io::array& a) {
  op o = op::parse(c.op, c.identity);
  monoid m(o, a.type);
  const std::size_t n = a.bits.size();
  run_stats st;
  run_options ro;
  ro.algorithm = c.algorithm;
  ro.check_operator = !c.no_check;
  ro.stats = &st;
  // Upload separately so its time is reported on its own (the seed's lesson: it costs more than the reduce).
  std::uint32_t gpu = m.identity_bits();
  const bool f32_sum = m.is_sum() && a.type == dtype::f32;
  const bool exact_mode = f32_sum && parse_accuracy(c.accuracy) == accuracy::exact;
  exact_sum_result gpu_exact;
  double upload_ms = 0, compile_ms = 0;
  buffer in;
  if (n) {
    upload_ms = upload(ctx, a, in);
    ro.tune = c.tune;
    ro.accuracy = parse_accuracy(c.accuracy);
    auto once = [&] {
      if (exact_mode) {  // the same GPU work as reduce_bits, keeping the accumulator to compare with the CPU's
        gpu_exact = exact_sum(ctx, in, n, ro);
        gpu = to_bits(gpu_exact.value);
      } else {
        gpu = reduce_bits(ctx, in, n, m, ro);
      }
    };
    const first_call warm = warm_up(once, st);
    std::vector<double> times;
    for (int r = 0; r < c.repeat; ++r) {
      once();
      times.push_back(st.gpu_ms);
    }
    std::sort(times.begin(), times.end());
    st.gpu_ms = times[times.size() / 2];
    compile_ms = warm.compile_ms + std::max(0.0, warm.gpu_ms - st.gpu_ms);
  } else {
    gpu = reduce_bits(ctx, ctx.create_buffer(4), 0, m, ro);
  }

  json j = {{"op", o.is_custom() ? o.expression() : o.name()}, {"type", dtype_name(a.type)}, {"n", n},
            {"algorithm", st.algorithm}, {"adapter", ctx.adapter().name}};
  put_value(j, "result", a.type, gpu);
  // The plain CPU loop, timed; for f32 sums it is also the naive running total.
  auto t0 = std::chrono::steady_clock::now();
  std::uint32_t cpu_bits;
  if (m.is_sum() && a.type == dtype::f32) {
    float acc = 0;
    for (std::uint32_t b : a.bits) acc += from_bits<float>(b);
    cpu_bits = to_bits(acc);
  } else if (m.is_sum()) {
    std::uint32_t acc = 0;
    for (std::uint32_t b : a.bits) acc += b;
    cpu_bits = acc;
  } else {
    cpu_bits = cpu::reduce(a.bits.data(), n, m);
  }
  double cpu_ms = ms_since(t0);
  superaccumulator cpu_exact;  // the CPU twin of the exact sum (f32 sums)
  if (f32_sum) {
    const float* x = reinterpret_cast<const float*>(a.bits.data());
    cpu_exact.add(x, n);
    double exact = cpu_exact.to_double();
    j["exact"] = std::isfinite(exact) ? json(exact) : json(nullptr);
    j["exact_text"] = cpu_exact.to_decimal();
    put_value(j, "correctly_rounded", a.type, to_bits(cpu_exact.round_to_float()));
    put_value(j, "naive", a.type, cpu_bits);
    j["accuracy"] = c.accuracy;
    j["gpu_ulps"] = cpu::ulp_error_f32(from_bits<float>(gpu), exact);
    j["naive_ulps"] = cpu::ulp_error_f32(from_bits<float>(cpu_bits), exact);
  } else if (m.is_sum()) {
    // The exact sum fits in 64 bits (2^31 values below 2^32); the GPU's wraps modulo 2^32 as WGSL does.
    const long double exact_ld = cpu::exact_sum_int(a.bits.data(), n, a.type == dtype::i32);
    const std::int64_t exact = static_cast<std::int64_t>(exact_ld);
    j["exact"] = exact;
    j["exact_text"] = std::to_string(exact);
    j["naive"] = nullptr;
    j["overflowed"] = a.type == dtype::i32 ? (exact < INT32_MIN || exact > INT32_MAX) : exact > UINT32_MAX;
  } else {
    put_value(j, "exact", a.type, cpu_bits);
    j["naive"] = nullptr;
  }
  // f32 compared as values (+0 == -0, NaN == NaN): the order of a reduce may change the sign of a zero.
  const bool same = a.type == dtype::f32 ? (from_bits<float>(gpu) == from_bits<float>(cpu_bits) ||
                                            (std::isnan(from_bits<float>(gpu)) && std::isnan(from_bits<float>(cpu_bits))))
                                         : gpu == cpu_bits;
  j["matches_cpu"] = exact_mode ? json(n == 0 || gpu_exact.accumulator == cpu_exact)
                   : f32_sum    ? json(nullptr)
                                : json(same);
  j["gpu_ms"] = st.gpu_ms;
  j["compile_ms"] = compile_ms;
  j["gpu_timer"] = st.gpu_timestamps ? "timestamps" : "wall";
  j["upload_ms"] = upload_ms;
  j["cpu_ms"] = cpu_ms;
  if (!c.plot.empty()) {
    if (n == 0) throw error(errc::invalid_argument, "nothing to plot: the array is empty");
    std::vector<std::string> lines = {"exact                 " + text_of(j, "exact"),
                                      "GPU (" + st.algorithm + ")" + std::string(st.algorithm.size() < 12 ? 12 - st.algorithm.size() : 1, ' ') + text_of(j, "result")};
    if (j.contains("naive_text") || !j["naive"].is_null()) lines.push_back("naive f32 running total  " + text_of(j, "naive"));
    plot::reduce_partials(ctx, in, n, o, a.type,
                          fmt::format("{} values, {} {}: pass 1 writes one partial per workgroup", n,
                                      dtype_name(a.type), o.is_custom() ? o.expression() : o.name()),
                          lines, c.plot);
    j["plot"] = c.plot;
  }
  return j;
}

void print_reduce(const json& j) {
  fmt::print("reduce {} over {} {} values on {} (algorithm {})\n", j["op"].get<std::string>(),
             with_commas(j["n"].get<double>(), 0), j["type"].get<std::string>(), j["adapter"].get<std::string>(),
             j["algorithm"].get<std::string>());
  auto ulps = [&](const char* key) -> std::string {
    if (!j.contains(key)) return "";
    double u = j[key].get<double>();
    return std::isfinite(u) ? fmt::format("   ({:.1f} ulp)", u) : "";
  };
  fmt::print("  exact                {}\n", text_of(j, "exact"));
  if (j.contains("exact_text") && j["type"] == "f32" && text_of(j, "exact") != j["exact_text"].get<std::string>())
    fmt::print("  exact (decimal)      {}\n", j["exact_text"].get<std::string>());
  const bool native = j["adapter"].get<std::string>().rfind("native CPU", 0) == 0;
  fmt::print("  {}               {}{}{}\n", native ? "native" : "GPU   ", text_of(j, "result"), ulps("gpu_ulps"),
             j.contains("accuracy") ? fmt::format("   [{}]", j["accuracy"].get<std::string>()) : "");
  if (j.contains("naive_text") || !j["naive"].is_null())
    fmt::print("  naive f32 loop       {}{}\n", text_of(j, "naive"), ulps("naive_ulps"));
  if (!j["matches_cpu"].is_null())
    fmt::print("  CPU twin             {}\n", j["matches_cpu"].get<bool>() ? "matches" : "DIFFERS");
  if (j.value("overflowed", false))
    fmt::print("  the {} sum wrapped: the exact sum does not fit, the {}'s is it modulo 2^32\n",
               j["type"].get<std::string>(), native ? "native backend" : "GPU");
  fmt::print("  {} time {:.3f} ms ({}), upload {:.3f} ms, CPU loop {:.3f} ms, shader compilation {:.3f} ms (apart)\n",
             native ? "native" : "GPU", j["gpu_ms"].get<double>(), j["gpu_timer"].get<std::string>(),
             j["upload_ms"].get<double>(), j["cpu_ms"].get<double>(), j.value("compile_ms", 0.0));
}

void warn_overflow(const json& j) {
  if (j.value("overflowed", false))
    std::cerr << "wgprim: warning: the " << j["type"].get<std::string>() << " sum overflowed and wrapped modulo 2^32"
              << (j.contains("exact_text") ? " (exact " + j["exact_text"].get<std::string>() + ")" : "")
              << "; use a wider type for an exact result\n";
}

int cmd_reduce(const common& c) {
  parse_accuracy(c.accuracy);
  if (!c.plot.empty()) check_plot_path(c.plot);
  io::array a = load(c);
  if (is_arg_reduce_op(c.op) || !c.transform.empty())
    require_word_elements(a, c.transform.empty() ? "the input of " + c.op : "the input of --transform");
  if (is_arg_reduce_op(c.op) && !c.transform.empty())  // was ignored: the arg-max of a, not of the transform
    throw error(errc::invalid_argument, "--transform does not apply to " + c.op);
  if (is_arg_reduce_op(c.op))
    return cmd_arg_reduce({c.adapter, c.op, c.algorithm, c.json, c.tune, c.repeat, c.identity, c.accuracy, c.plot}, a);
  if (!c.transform.empty())
    return cmd_transform_reduce(
        {c.adapter, c.transform, c.op, c.identity, c.algorithm, c.accuracy, c.plot, c.json, c.tune, c.repeat}, a);
  if (wants_typed(a, c.accumulate))
    return cmd_reduce_typed({c.adapter, c.op, c.identity, c.algorithm, c.accuracy, c.output, c.output_format,
                             c.accumulate, c.json, c.exclusive, c.no_check, c.tune, c.repeat}, a);
  monoid check(op::parse(c.op, c.identity), a.type);  // reject a bad operator before touching the GPU
  if (!c.no_check) check.check(/*need_commutative=*/true);
  context ctx = make_context(c);
  json j = run_reduce(ctx, c, a);
  if (c.json) std::cout << j.dump() << "\n";
  else print_reduce(j);
  warn_overflow(j);
  // Integer results and f32 min/max are exact in any order; an f32 custom expression is combined in another
  // order on the GPU than in the CPU loop, so a difference there is reported but is not an error.
  const bool exact_op = a.type != dtype::f32 || check.is_builtin();
  if (exact_op && j["matches_cpu"].is_boolean() && !j["matches_cpu"].get<bool>()) {
    std::cerr << "wgprim: error: the GPU result differs from the CPU twin\n";
    return 1;
  }
  return 0;
}

// ---------------------------------------------------------------------------------------------------------------
json run_scan(context& ctx, const common& c, const io::array& a, std::vector<std::uint32_t>& out) {
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
    for (int r = 0; r < c.repeat; ++r) {
      scan(ctx, in, d_out, n, m, kind, ro);
      times.push_back(st.gpu_ms);
    }
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
  if (kind == scan_kind::inclusive) cpu::inclusive_scan(a.bits.data(), n, ref.data(), m);
  else cpu::exclusive_scan(a.bits.data(), n, ref.data(), m);
  double cpu_ms = ms_since(t0);
  std::size_t mismatches = 0;
  bool overflowed = false;
  std::string compared_with = "CPU " + running_what(m, o);
  const bool exact_sum = a.type == dtype::f32 && m.is_sum() && parse_accuracy(c.accuracy) == accuracy::reproducible;
  if (exact_sum) {
    // Reproducible scans: bit for bit against the exact prefix sums, each rounded once to the nearest f32.
    compared_with = "exact prefix sums (correctly rounded, bit for bit)";
    cpu::exact_scan_f32(reinterpret_cast<const float*>(a.bits.data()), n, reinterpret_cast<float*>(ref.data()),
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
            {"cpu_ms", cpu_ms}};
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
                   : fmt::format("every one of the {} values matches the {}", n, compared_with),
        "last value " + text_of(j, "last")};
    plot::scan_curve(ctx, in, d_out, n, a.type, max_input,
                     fmt::format("{} values: {} scan ({}), the running total and the input", n,
                                 c.exclusive ? "exclusive" : "inclusive", st.algorithm),
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
}

int cmd_scan(const common& c) {
  parse_accuracy(c.accuracy);
  // Fail on an unusable path before the work, not after.
  if (!c.output.empty()) io::check_writable(c.output, c.output_format);
  else if (!c.output_format.empty()) throw error(errc::invalid_argument, "--output-format needs --output");
  if (!c.plot.empty()) check_plot_path(c.plot);
  io::array a = load(c);
  if (wants_typed(a, c.accumulate))
    return cmd_scan_typed({c.adapter, c.op, c.identity, c.algorithm, c.accuracy, c.output, c.output_format,
                           c.accumulate, c.json, c.exclusive, c.no_check, c.tune, c.repeat}, a);
  monoid check(op::parse(c.op, c.identity), a.type);
  if (!c.no_check) check.check(/*need_commutative=*/false);
  context ctx = make_context(c);
  std::vector<std::uint32_t> out;
  json j = run_scan(ctx, c, a, out);
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

// ---------------------------------------------------------------------------------------------------------------
int demo_on(context& ctx, const common& c, json* collect);

// Without a GPU the default context is the native CPU backend: its times come first (next to the CPU loop),
// then the same two runs of the WGSL on the best WebGPU adapter (lavapipe) as the check, with the pictures.
int cmd_demo(const common& c) {
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
  common plain = c;
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
  common on_wgsl = c;
  on_wgsl.adapter = wgsl->adapter().name;  // for the closing `info`
  return finish(std::max(rc, demo_on(*wgsl, on_wgsl, collect)));
}

int demo_on(context& ctx, const common& c, json* collect) {
  common r = c;
  r.op = "sum";
  r.plot = c.plot.empty() ? "" : c.plot + "/demo-reduce.png";
  io::array prices = io::generate("prices:4194304:1");
  json jr = run_reduce(ctx, r, prices);
  io::array orders = io::generate("orders:65536:1");
  std::vector<std::uint32_t> out;
  if (!c.plot.empty()) r.plot = c.plot + "/demo-scan.png";
  if (collect) {
    json js = run_scan(ctx, r, orders, out);
    collect->push_back({{"backend", backend_choice_name(ctx.backend())}, {"adapter", ctx.adapter().name},
                        {"reduce", jr}, {"scan", js}});
    return js["mismatches"].get<std::size_t>() == 0 ? 0 : 1;
  }
  // The headings name what ran (the default algorithms), not the source documents' algorithms.
  fmt::print("== Reduction (algorithm {}): the sum of 4,194,304 prices ==\n", jr["algorithm"].get<std::string>());
  print_reduce(jr);
  fmt::print("  (the tree adds numbers of similar size; the naive running total loses low bits as it grows)\n\n");

  json js = run_scan(ctx, r, orders, out);
  fmt::print("== Inclusive scan (algorithm {}): the running total of 65,536 daily orders ==\n",
             js["algorithm"].get<std::string>());
  print_scan(js, stdout);
  if (!c.plot.empty()) fmt::print("\npictures: {}/demo-reduce.png, {}/demo-scan.png\n", c.plot, c.plot);
  fmt::print("\n== wgprim info ==\n");
  common i = c;
  i.json = false;
  cmd_info(i);
  return js["mismatches"].get<std::size_t>() == 0 ? 0 : 1;
}

// bench's --primitives and --algorithm name things that exist, or the bench would measure nothing.
void check_bench_args(const bench_args& b) {
  // Primitive and algorithm names are checked against the cases the sweep builds (cmd_bench).
  if (!b.plot.empty()) check_plot_path(b.plot);
}

// CLI11's messages can span lines; ours are one.
std::string one_line(std::string s) {
  for (char& ch : s)
    if (ch == '\n' || ch == '\r') ch = ' ';
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

// An option given an empty value (`--segments ''`, `--transform ''`, `--range ''`) read as an option not given, and
// the plain command ran with exit 0 (hostile pass, 2026-11-29): refused instead.
void refuse_empty_values(const CLI::App& app) {
  for (const CLI::App* s : app.get_subcommands())
    for (const CLI::Option* o : s->get_options())
      if (o->count() && o->get_type_size_max() != 0)
        for (const std::string& r : o->results())
          if (r.empty()) throw error(errc::invalid_argument, o->get_name() + " was given an empty value");
}

// Two outputs of one command naming one file (`--output s.npy --values-output s.npy`, both `-`) lost one of
// them with exit 0 (issue 29, row 4): refused before any work. Every option whose name ends in "output", and --plot.
void refuse_shared_outputs(const CLI::App& app) {
  for (const CLI::App* s : app.get_subcommands()) {
    std::vector<std::pair<std::string, std::string>> outs;
    for (const CLI::Option* o : s->get_options()) {
      const std::string name = o->get_name();
      const bool is_output = name == "--plot" || (name.size() >= 6 && name.compare(name.size() - 6, 6, "output") == 0);
      if (is_output && o->count())
        for (const std::string& r : o->results()) outs.emplace_back(name, r);
    }
    io::check_distinct_outputs(outs);
  }
}

}  // namespace

int run_distributed_command(int argc, char** argv);  // cmd_mpi.cpp: under mpirun, or with --adapters

int main(int argc, char** argv) {
  if (int rc = run_distributed_command(argc, argv); rc >= 0) return rc;
  io::install_interrupt_cleanup();
  CLI::App app{"wgprim: GPU parallel primitives (reduce, scan, select, histogram, segmented ops, sort) on WebGPU"};
  app.require_subcommand(1);
  app.option_defaults()->always_capture_default();  // --help shows every default
  app.set_version_flag("--version", [] {
    return std::string("wgprim ") + wgprim_version + ", wgpu-native " + context::wgpu_version();
  });
  app.footer("Exit codes: 0 done; 1 a result differs from the CPU twin; 2 bad usage or argument; 3 file; "
             "4 unsupported; 5 limit; 6 shader; 7 no adapter; 8 device lost; 9 out of memory; 10 GPU; 11 timeout.");
  common c;
  auto add_common = [&](CLI::App* s) {
    s->add_option("--adapter", c.adapter,
                  "adapter name substring, or cpu for the native CPU backend (default: WGPRIM_ADAPTER, else the "
                  "best GPU, else the native CPU backend)");
    s->add_flag("--json", c.json, "print one JSON object");
  };
  auto add_data = [&](CLI::App* s) {
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
                  "(subgroup chunks; needs subgroups) (-1: the policy, direct)")
        ->check(CLI::Range(-1, 2));
    s->add_option("--spin-limit", c.tune.spin_limit, "policy override (decoupled scan): polls before fallback (0: the policy)");
    s->add_option("--exact-window", c.tune.exact_window, "policy override (exact sums): 1 register window, 0 columns (-1: the policy)")
        ->check(CLI::Range(-1, 1));  // issue 29 row 11: 5, 2, 7 were accepted silently
    s->add_option("--repeat", c.repeat, "run the GPU algorithm this many times and report the median time")
        ->check(CLI::Range(1, 1000));
  };
  auto* info = app.add_subcommand("info", "adapter, backend, driver, limits, features");
  add_common(info);
  auto* red = app.add_subcommand("reduce", "reduce an array to one value");
  add_common(red);
  add_data(red);
  red->add_option("--transform", c.transform, "apply an expression in a to every element first (e.g. 'a * a')");
  auto* sc = app.add_subcommand("scan", "prefix scan of an array");
  add_common(sc);
  add_data(sc);
  sc->add_option("--output", c.output, "write the scanned array (.npy, .bin, .csv, .txt; - for stdout)");
  sc->add_option("--output-format", c.output_format, "npy|bin|csv|txt instead of the extension (- writes txt)")
      ->check(CLI::IsMember({"npy", "bin", "raw", "csv", "txt"}));
  sc->add_flag("--exclusive", c.exclusive, "exclusive scan (default inclusive)");
  auto* so = add_sort_command(app);
  auto* demo = app.add_subcommand("demo", "the source documents' two showcases, then info");
  add_common(demo);
  demo->add_option("--plot-dir", c.plot, "also draw the two pictures (PNG) into this folder");

  const cli_command hist_cmd = add_histogram_command(app), rle_cmd = add_rle_command(app);
  const cli_command seg_cmd = add_segmented_options(
      red, sc, {&c.adapter, &c.input, &c.generate, &c.type, &c.op, &c.identity, &c.output, &c.json, &c.exclusive, &c.repeat});
  auto run_select = add_select_commands(app);
  auto run_chain = add_run_command(app);
  bench_args ba;
  auto* bench = app.add_subcommand("bench", "GB/s of every algorithm over n = 2^min..2^max, and a copy kernel");
  bench->add_option("--adapter", ba.adapter, "adapter name substring");
  bench->add_flag("--json", ba.json, "print one JSON object with a results array");
  bench->add_option("--min-log2", ba.min_log2, "smallest n = 2^k (default 10 on CPU adapters, 16 on GPUs; 16 with --full)")
      ->default_str("auto");
  bench->add_option("--max-log2", ba.max_log2,
                    "largest n = 2^k (default 13 on CPU adapters, 26 on GPUs; with --full 24 and 28)")
      ->default_str("auto");
  bench->add_option("--reps", ba.reps, "timed runs per point, median reported (default 3 on CPU adapters, 5 on GPUs; "
                                       "20 with --full)")
      ->default_str("auto");
  bench->add_option("--warmup", ba.warmup, "discarded runs per point (default 2; 3 with --full)")
      ->default_str("auto");
  bench->add_option("--batch", ba.batch, "K: calls per wall-clock round (call_ms) and per submission (batched_ms) "
                                         "(default 4 on CPU adapters, 10 on GPUs; 50 with --full)")
      ->default_str("auto");
  bench->add_flag("--full", ba.full, "the long sweep (minutes to hours): the defaults given with --full above");
  auto* quiet = bench->add_flag("--quiet", ba.quiet, "no progress on stderr");
  bench->add_flag("--verbose", ba.verbose, "a line per case on stderr (the progress line on a terminal otherwise)")
      ->excludes(quiet);
  bench->add_option("--primitives", ba.primitives,
                    "all, or a comma-separated list of exact names: reduce, inclusive_scan, exclusive_scan, select_if, "
                    "select_flagged, partition_if, unique, sort_keys, sort_pairs, arg_max, transform_reduce, "
                    "histogram_even, segmented_reduce, segmented_scan, segmented_sort_keys, reduce_by_key, "
                    "run_length_encode, copy");
  bench->add_option("--algorithm", ba.algorithm, "only this algorithm (the copy kernel always runs)");
  bench->add_option("--output", ba.output, "also write the JSON to this file");
  bench->add_flag("--accuracy", ba.accuracy, "f32 sum accuracy table: ulps and speed of every accuracy mode");
  bench->add_option("--plot", ba.plot, "draw GB/s against n as a PNG chart");
  bench->add_option("--cub", ba.cub, "with --plot: a bench/cub JSON file whose curve to add");
  bench->add_option("--from", ba.from, "with --plot: chart this wgprim bench JSON file instead of running");

  subcommand bench_cpu = register_bench_cpu(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version: printed on stdout, exit 0
    std::cerr << "wgprim: error: " << one_line(e.what()) << " (see wgprim --help)\n";
    return static_cast<int>(errc::invalid_argument);
  }
  // Every output file stays a temporary file until the command ends: a failed run (exit != 0, a mismatch
  // against the CPU twin included) never renames its output into place (issue 29, row 5).
  auto dispatch = [&]() -> int {
    refuse_empty_values(app);
    refuse_shared_outputs(app);
    io::hold_outputs();
    if (info->parsed()) return cmd_info(c);
    if (hist_cmd.app->parsed()) return hist_cmd.run();
    if (rle_cmd.app->parsed()) return rle_cmd.run();
    if (red->parsed() || sc->parsed()) if (int r = seg_cmd.run(); r >= 0) return r;
    if (red->parsed()) return cmd_reduce(c);
    if (sc->parsed()) return cmd_scan(c);
    if (so->parsed()) return run_sort_command();
    if (demo->parsed()) return cmd_demo(c);
    if (int rc = run_select(); rc >= 0) return rc;
    if (int rc = run_chain(); rc >= 0) return rc;
    if (bench->parsed()) {
      check_bench_args(ba);
      return ba.accuracy ? cmd_bench_accuracy(ba) : cmd_bench(ba);
    }
    if (bench_cpu.app->parsed()) return bench_cpu.run();
    return 1;
  };
  try {
    const int rc = dispatch();
    if (rc == 0) io::commit_outputs();
    else io::discard_outputs();
    return rc;
  } catch (const wgprim::error& e) {
    io::discard_outputs();
    std::cerr << "wgprim: error: " << e.what() << "\n";
    return static_cast<int>(e.code());
  } catch (const std::bad_alloc&) {
    io::discard_outputs();
    std::cerr << "wgprim: error: out of host memory\n";
    return static_cast<int>(errc::out_of_memory);
  } catch (const std::exception& e) {
    io::discard_outputs();
    std::cerr << "wgprim: error: " << e.what() << "\n";
    return 1;
  }
}
