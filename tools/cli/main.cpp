// The wgprim command: info, reduce, scan, demo. Every error is one line on stderr and an exit code 1-125.
#include <fmt/core.h>
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>
#include <memory>
#include <optional>

#include "bench.hpp"
#include "cmd_bench_cpu.hpp"
#include "plot.hpp"
#include "wgprim/io.hpp"
#include "wgprim/wgprim.hpp"

using json = nlohmann::json;
using namespace wgprim;

namespace {

struct common {
  std::string adapter, input, generate, type, op = "sum", identity, algorithm, output;
  bool json = false, exclusive = false;
  tuning tune;
  int repeat = 1;
  std::string accuracy = "fast";
  std::string plot;  // PNG path
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

json value_json(dtype t, std::uint32_t bits) {
  if (t == dtype::f32) {
    float f = from_bits<float>(bits);
    if (std::isfinite(f)) return static_cast<double>(f);
    return format_bits(t, bits);
  }
  if (t == dtype::i32) return static_cast<std::int32_t>(bits);
  return bits;
}

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
                          {"subgroups", f.subgroups}}},
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
  fmt::print("features      timestamp-query={} shader-f16={} subgroups={} (timestamps {})\n",
             f.timestamp_query, f.shader_f16, f.subgroups, ctx.timestamps_trustworthy() ? "used" : "not trusted");
  fmt::print("algorithms    reduce: {}; scan: {}\n", fmt::join(reduce_algorithms(), ", "),
             fmt::join(scan_algorithms(), ", "));
  fmt::print("all adapters  ");
  for (std::size_t i = 0; i < all.size(); ++i)
    fmt::print("{}{} ({})", i ? "; " : "", all[i]["name"].get<std::string>(), all[i]["backend"].get<std::string>());
  fmt::print("\n");
  return 0;
}

// ---------------------------------------------------------------------------------------------------------------
json run_reduce(context& ctx, const common& c, const io::array& a) {
  op o = op::parse(c.op, c.identity);
  monoid m(o, a.type);
  const std::size_t n = a.bits.size();
  run_stats st;
  run_options ro;
  ro.algorithm = c.algorithm;
  ro.stats = &st;
  // Upload separately so its time is reported on its own (the seed's lesson: it costs more than the reduce).
  std::uint32_t gpu = m.identity_bits();
  double upload_ms = 0;
  buffer in;
  if (n) {
    upload_ms = upload(ctx, a, in);
    ro.tune = c.tune;
    ro.accuracy = parse_accuracy(c.accuracy);
    std::vector<double> times;
    for (int r = 0; r < c.repeat; ++r) {
      gpu = reduce_bits(ctx, in, n, m, ro);
      times.push_back(st.gpu_ms);
    }
    std::sort(times.begin(), times.end());
    st.gpu_ms = times[times.size() / 2];
  } else {
    gpu = reduce_bits(ctx, ctx.create_buffer(4), 0, m, ro);
  }

  json j = {{"op", o.is_custom() ? o.expression() : o.name()}, {"type", dtype_name(a.type)}, {"n", n},
            {"algorithm", st.algorithm}, {"adapter", ctx.adapter().name}, {"result", value_json(a.type, gpu)}};
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
  if (m.is_sum() && a.type == dtype::f32) {
    const float* x = reinterpret_cast<const float*>(a.bits.data());
    double exact = cpu::exact_sum_f32(x, n);
    j["exact"] = std::isfinite(exact) ? json(exact) : json(fmt::format("{}", exact));
    j["naive"] = value_json(a.type, cpu_bits);
    j["accuracy"] = c.accuracy;
    j["gpu_ulps"] = cpu::ulp_error_f32(from_bits<float>(gpu), exact);
    j["naive_ulps"] = cpu::ulp_error_f32(from_bits<float>(cpu_bits), exact);
  } else if (m.is_sum()) {
    long double exact = cpu::exact_sum_int(a.bits.data(), n, a.type == dtype::i32);
    j["exact"] = static_cast<double>(exact);
    j["exact_text"] = fmt::format("{:.0f}", static_cast<double>(exact));
    j["naive"] = nullptr;
  } else {
    j["exact"] = value_json(a.type, cpu_bits);
    j["naive"] = nullptr;
  }
  j["matches_cpu"] = (m.is_sum() && a.type == dtype::f32) ? json(nullptr) : json(gpu == cpu_bits);
  j["gpu_ms"] = st.gpu_ms;
  j["gpu_timer"] = st.gpu_timestamps ? "timestamps" : "wall";
  j["upload_ms"] = upload_ms;
  j["cpu_ms"] = cpu_ms;
  if (!c.plot.empty()) {
    if (n == 0) throw error(errc::invalid_argument, "nothing to plot: the array is empty");
    auto show = [&](const json& v) { return v.is_null() ? std::string("-") : v.is_string() ? v.get<std::string>() : v.dump(); };
    std::vector<std::string> lines = {"exact                 " + show(j["exact"]),
                                      "GPU (" + st.algorithm + ")" + std::string(st.algorithm.size() < 12 ? 12 - st.algorithm.size() : 1, ' ') + show(j["result"])};
    if (!j["naive"].is_null()) lines.push_back("naive f32 running total  " + show(j["naive"]));
    plot::reduce_partials(ctx, in, n, o, a.type,
                          fmt::format("{} values, {} {}: pass 1 writes one partial per workgroup", n,
                                      dtype_name(a.type), o.is_custom() ? o.expression() : o.name()),
                          lines, c.plot);
    j["plot"] = c.plot;
  }
  return j;
}

void print_reduce(const json& j, dtype t) {
  auto num = [&](const json& v) -> std::string {
    if (v.is_string()) return v.get<std::string>();
    if (t == dtype::f32) return with_commas(v.get<double>(), 2);
    return with_commas(v.get<double>(), 0);
  };
  fmt::print("reduce {} over {} {} values on {} (algorithm {})\n", j["op"].get<std::string>(),
             with_commas(j["n"].get<double>(), 0), j["type"].get<std::string>(), j["adapter"].get<std::string>(),
             j["algorithm"].get<std::string>());
  auto ulps = [&](const char* key) -> std::string {
    if (!j.contains(key)) return "";
    double u = j[key].get<double>();
    return std::isfinite(u) ? fmt::format("   ({:.1f} ulp)", u) : "";
  };
  fmt::print("  exact                {}\n", num(j["exact"]));
  const bool native = j["adapter"].get<std::string>().rfind("native CPU", 0) == 0;
  fmt::print("  {}               {}{}{}\n", native ? "native" : "GPU   ", num(j["result"]), ulps("gpu_ulps"),
             j.contains("accuracy") ? fmt::format("   [{}]", j["accuracy"].get<std::string>()) : "");
  if (!j["naive"].is_null()) fmt::print("  naive f32 loop       {}{}\n", num(j["naive"]), ulps("naive_ulps"));
  if (!j["matches_cpu"].is_null())
    fmt::print("  CPU twin             {}\n", j["matches_cpu"].get<bool>() ? "matches" : "DIFFERS");
  fmt::print("  {} time {:.3f} ms ({}), upload {:.3f} ms, CPU loop {:.3f} ms\n", native ? "native" : "GPU",
             j["gpu_ms"].get<double>(), j["gpu_timer"].get<std::string>(), j["upload_ms"].get<double>(),
             j["cpu_ms"].get<double>());
}

int cmd_reduce(const common& c) {
  io::array a = load(c);
  monoid check(op::parse(c.op, c.identity), a.type);  // reject a bad operator before touching the GPU
  parse_accuracy(c.accuracy);
  if (!c.plot.empty()) io::check_writable(c.plot + ".bin");
  context ctx = make_context(c);
  json j = run_reduce(ctx, c, a);
  if (c.json) std::cout << j.dump() << "\n";
  else print_reduce(j, a.type);
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
  ro.stats = &st;
  out.assign(n, 0);
  double upload_ms = 0;
  buffer in, d_out;
  if (n) {
    upload_ms = upload(ctx, a, in);
    d_out = ctx.create_buffer(n * 4);
    ro.tune = c.tune;
    ro.accuracy = parse_accuracy(c.accuracy);
    std::vector<double> times;
    for (int r = 0; r < c.repeat; ++r) {
      scan(ctx, in, d_out, n, m, kind, ro);
      times.push_back(st.gpu_ms);
    }
    std::sort(times.begin(), times.end());
    st.gpu_ms = times[times.size() / 2];
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
  if (a.type == dtype::f32 && m.is_sum()) {
    // f32 sums: compare against the exact prefix within the bound gamma_h * sum|x| (h: longest chain of dependent
    // additions of the GPU algorithm, at most 64 plus one per storage-binding chunk).
    const double u = std::ldexp(1.0, -24), h = 64.0 + static_cast<double>(n * 4 / ctx.binding_limit() + 1);
    const double gamma = h * u / (1 - h * u);
    long double exact = 0, abs_sum = 0;
    for (std::size_t i = 0; i < n; ++i) {
      double x = from_bits<float>(a.bits[i]);
      double e_before = static_cast<double>(exact), a_before = static_cast<double>(abs_sum);
      exact += x;
      abs_sum += std::fabs(x);
      double want = kind == scan_kind::inclusive ? static_cast<double>(exact) : e_before;
      double bound = gamma * (kind == scan_kind::inclusive ? static_cast<double>(abs_sum) : a_before);
      double got = from_bits<float>(out[i]);
      if (!(std::fabs(got - want) <= bound)) ++mismatches;
    }
  } else {
    for (std::size_t i = 0; i < n; ++i) mismatches += out[i] != ref[i];
  }
  json j = {{"op", o.is_custom() ? o.expression() : o.name()},
            {"type", dtype_name(a.type)},
            {"n", n},
            {"kind", c.exclusive ? "exclusive" : "inclusive"},
            {"algorithm", st.algorithm},
            {"adapter", ctx.adapter().name},
            {"mismatches", mismatches},
            {"last", n ? value_json(a.type, out[n - 1]) : json(nullptr)},
            {"gpu_ms", st.gpu_ms},
            {"gpu_timer", st.gpu_timestamps ? "timestamps" : "wall"},
            {"upload_ms", upload_ms},
            {"cpu_ms", cpu_ms}};
  if (!c.plot.empty()) {
    double max_input = 0;
    for (std::uint32_t b : a.bits)
      max_input = std::max(max_input, a.type == dtype::f32 ? static_cast<double>(from_bits<float>(b))
                                      : a.type == dtype::i32 ? static_cast<double>(static_cast<std::int32_t>(b))
                                                             : static_cast<double>(b));
    std::vector<std::string> lines = {
        mismatches ? fmt::format("{} values differ from the CPU running total", mismatches)
                   : fmt::format("every one of the {} values matches the CPU running total", n),
        "final total " + j["last"].dump()};
    plot::scan_curve(ctx, in, d_out, n, a.type, max_input,
                     fmt::format("{} values: {} scan ({}), the running total and the input", n,
                                 c.exclusive ? "exclusive" : "inclusive", st.algorithm),
                     lines, c.plot);
    j["plot"] = c.plot;
  }
  return j;
}

void print_scan(const json& j) {
  fmt::print("{} scan {} over {} {} values on {} (algorithm {})\n", j["kind"].get<std::string>(),
             j["op"].get<std::string>(), with_commas(j["n"].get<double>(), 0), j["type"].get<std::string>(),
             j["adapter"].get<std::string>(), j["algorithm"].get<std::string>());
  std::size_t mism = j["mismatches"].get<std::size_t>();
  if (mism == 0)
    fmt::print("  every one of the {} values matches the CPU running total\n", with_commas(j["n"].get<double>(), 0));
  else
    fmt::print("  {} values differ from the CPU running total\n", mism);
  fmt::print("  last value {}\n", j["last"].dump());
  const bool native = j["adapter"].get<std::string>().rfind("native CPU", 0) == 0;
  fmt::print("  {} time {:.3f} ms ({}), upload {:.3f} ms, CPU loop {:.3f} ms\n", native ? "native" : "GPU",
             j["gpu_ms"].get<double>(), j["gpu_timer"].get<std::string>(), j["upload_ms"].get<double>(),
             j["cpu_ms"].get<double>());
}

int cmd_scan(const common& c) {
  io::array a = load(c);
  monoid check(op::parse(c.op, c.identity), a.type);
  parse_accuracy(c.accuracy);
  if (!c.output.empty()) io::check_writable(c.output);  // fail on an unusable path before the work, not after
  if (!c.plot.empty()) io::check_writable(c.plot + ".bin");
  context ctx = make_context(c);
  std::vector<std::uint32_t> out;
  json j = run_scan(ctx, c, a, out);
  if (!c.output.empty()) io::write_array(c.output, io::array{a.type, std::move(out)});
  if (c.json) std::cout << j.dump() << "\n";
  else print_scan(j);
  if (j["mismatches"].get<std::size_t>() != 0) {
    std::cerr << "wgprim: error: " << j["mismatches"].get<std::size_t>()
              << " scanned values differ from the CPU twin\n";
    return 1;
  }
  return 0;
}

// ---------------------------------------------------------------------------------------------------------------
int demo_on(context& ctx, const common& c);

// Without a GPU the default context is the native CPU backend: its times come first (next to the CPU loop),
// then the same two runs of the WGSL on the best WebGPU adapter (lavapipe) as the check, with the pictures.
int cmd_demo(const common& c) {
  context ctx(context_options{c.adapter});
  if (ctx.backend() != backend_choice::native) return demo_on(ctx, c);
  common plain = c;
  plain.plot.clear();  // pictures are drawn by WebGPU render pipelines: in the WGSL pass below
  fmt::print("#### the native CPU backend: {} ####\n\n", ctx.adapter().name);
  int rc = demo_on(ctx, plain);
  context_options o;
  o.backend = backend_choice::webgpu;
  std::unique_ptr<context> wgsl;
  try {
    wgsl = std::make_unique<context>(o);
  } catch (const error& e) {
    fmt::print("\n(no WebGPU adapter for the WGSL check: {})\n", e.what());
    return rc;
  }
  fmt::print("\n#### the WGSL check: the same runs on {} ####\n\n", wgsl->adapter().name);
  common on_wgsl = c;
  on_wgsl.adapter = wgsl->adapter().name;  // for the closing `info`
  return std::max(rc, demo_on(*wgsl, on_wgsl));
}

int demo_on(context& ctx, const common& c) {
  fmt::print("== Two-pass reduction: the sum of 4,194,304 prices ==\n");
  common r = c;
  r.op = "sum";
  r.plot = c.plot.empty() ? "" : c.plot + "/demo-reduce.png";
  io::array prices = io::generate("prices:4194304:1");
  json jr = run_reduce(ctx, r, prices);
  print_reduce(jr, dtype::f32);
  fmt::print("  (the tree adds numbers of similar size; the naive running total loses low bits as it grows)\n\n");

  fmt::print("== Scan-then-propagate: the running total of 65,536 daily orders ==\n");
  io::array orders = io::generate("orders:65536:1");
  std::vector<std::uint32_t> out;
  if (!c.plot.empty()) r.plot = c.plot + "/demo-scan.png";
  json js = run_scan(ctx, r, orders, out);
  print_scan(js);
  if (!c.plot.empty()) fmt::print("\npictures: {}/demo-reduce.png, {}/demo-scan.png\n", c.plot, c.plot);
  fmt::print("\n== wgprim info ==\n");
  common i = c;
  i.json = false;
  cmd_info(i);
  return js["mismatches"].get<std::size_t>() == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  io::install_interrupt_cleanup();
  CLI::App app{"wgprim: device-wide reduce and scan on WebGPU"};
  app.require_subcommand(1);
  common c;
  auto add_common = [&](CLI::App* s) {
    s->add_option("--adapter", c.adapter,
                  "adapter name substring, or cpu for the native CPU backend (default: WGPRIM_ADAPTER, else the "
                  "best GPU, else the native CPU backend)");
    s->add_flag("--json", c.json, "print one JSON object");
  };
  auto add_data = [&](CLI::App* s) {
    s->add_option("--input", c.input, "input file: .npy, .bin (with --type), .csv or .txt");
    s->add_option("--generate", c.generate, "generated data KIND:N[:SEED], KIND = prices|orders|uniform");
    s->add_option("--type", c.type, "element type f32|i32|u32");
    s->add_option("--op", c.op, "sum|min|max|and|or|xor, or a WGSL expression in a and b");
    s->add_option("--identity", c.identity, "identity of a custom operator (e.g. --identity=-inf)");
    s->add_option("--algorithm", c.algorithm, "algorithm name (see wgprim info)");
    s->add_option("--accuracy", c.accuracy, "f32 sums: fast | compensated | reproducible");
    s->add_option("--plot", c.plot, "draw a PNG picture (reduce: the partials; scan: the running total)");
    s->add_option("--workgroups", c.tune.workgroups, "policy override: workgroups of the first reduce pass");
    s->add_option("--items", c.tune.items, "policy override: vec4 loads per invocation per tile");
    s->add_option("--subgroups", c.tune.subgroups, "policy override: 1 use subgroups, 0 workgroup memory only");
    s->add_option("--vec-loads", c.tune.vec_loads, "policy override (reduce): 1 vec4 loads, 0 scalar loads");
    s->add_option("--staged", c.tune.staged, "policy override (decoupled scan): 1 stage tiles in workgroup memory");
    s->add_option("--spin-limit", c.tune.spin_limit, "policy override (decoupled scan): polls before fallback");
    s->add_option("--repeat", c.repeat, "run the GPU algorithm this many times and report the median time")
        ->check(CLI::Range(1, 1000));
  };
  auto* info = app.add_subcommand("info", "adapter, backend, driver, limits, features");
  add_common(info);
  auto* red = app.add_subcommand("reduce", "reduce an array to one value");
  add_common(red);
  add_data(red);
  auto* sc = app.add_subcommand("scan", "prefix scan of an array");
  add_common(sc);
  add_data(sc);
  sc->add_option("--output", c.output, "write the scanned array (.npy, .bin, .csv, .txt)");
  sc->add_flag("--exclusive", c.exclusive, "exclusive scan (default inclusive)");
  auto* demo = app.add_subcommand("demo", "the source documents' two showcases, then info");
  add_common(demo);
  demo->add_option("--plot-dir", c.plot, "also draw the two pictures (PNG) into this folder");

  bench_args ba;
  auto* bench = app.add_subcommand("bench", "GB/s of every algorithm over n = 2^min..2^max, and a copy kernel");
  bench->add_option("--adapter", ba.adapter, "adapter name substring");
  bench->add_flag("--json", ba.json, "print one JSON object with a results array");
  bench->add_option("--min-log2", ba.min_log2, "smallest n = 2^k (default 16)");
  bench->add_option("--max-log2", ba.max_log2, "largest n = 2^k (default 24 on CPU adapters, 28 on GPUs)");
  bench->add_option("--reps", ba.reps, "timed runs per point (median reported)");
  bench->add_option("--warmup", ba.warmup, "discarded runs per point");
  bench->add_option("--primitives", ba.primitives, "all, or a list of reduce,scan,copy");
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
    return app.exit(e);
  }
  try {
    if (info->parsed()) return cmd_info(c);
    if (red->parsed()) return cmd_reduce(c);
    if (sc->parsed()) return cmd_scan(c);
    if (demo->parsed()) return cmd_demo(c);
    if (bench->parsed()) return ba.accuracy ? cmd_bench_accuracy(ba) : cmd_bench(ba);
    if (bench_cpu.app->parsed()) return bench_cpu.run();
  } catch (const wgprim::error& e) {
    std::cerr << "wgprim: error: " << e.what() << "\n";
    return static_cast<int>(e.code());
  } catch (const std::bad_alloc&) {
    std::cerr << "wgprim: error: out of host memory\n";
    return static_cast<int>(errc::out_of_memory);
  } catch (const std::exception& e) {
    std::cerr << "wgprim: error: " << e.what() << "\n";
    return 1;
  }
  return 1;
}
