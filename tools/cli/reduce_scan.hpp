// reduce and scan: the options they share (reduce_scan.cpp), the runs that demo shows too (cmd_reduce.cpp,
// cmd_scan.cpp), and the forms a reduce or scan hands over to: --op argmin|argmax (reduce_arg.cpp), --transform
// (reduce_transform.cpp), the types beyond f32/i32/u32 and --accumulate wide (reduce_scan_typed.cpp), --segments and
// --keys (segmented.cpp).
#pragma once
#include <chrono>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "wgprim/io.hpp"
#include "wgprim/wgprim.hpp"

namespace CLI { class App; }

/// The options of reduce, scan and demo.
struct reduce_scan_cli {
  std::string adapter, input, generate, type, op = "sum", identity, algorithm, output, output_format;
  bool json = false, exclusive = false, no_check = false;
  wgprim::tuning tune;
  int repeat = 1;
  std::string accuracy = "fast";
  std::string plot;        // PNG path
  std::string transform;   // reduce --transform
  std::string accumulate;  // --accumulate wide: i32/u32 sums in 64 bits
};

/// --adapter and --json.
void add_context_options(CLI::App* s, reduce_scan_cli& c);
/// The data, operator, accuracy and policy options of reduce and scan.
void add_data_options(CLI::App* s, reduce_scan_cli& c);

/// The array of --input or --generate (one of them, with --type).
wgprim::io::array load(const reduce_scan_cli& c);
/// The library's automatic context, on WebGPU with --plot (the pictures are drawn by WebGPU render pipelines).
wgprim::context make_context(const reduce_scan_cli& c);
/// Uploads the array into a new device buffer; returns the wall time of the upload (ms).
double upload(wgprim::context& ctx, const wgprim::io::array& a, wgprim::buffer& in);

/// The first call of a configuration creates its pipelines (and a driver may finish compiling them on first use, as
/// lavapipe does): it runs once untimed, and what it cost beyond a timed run is reported as compile_ms, so that
/// gpu_ms never includes shader compilation.
struct first_call {
  double compile_ms, gpu_ms;
};
template <class F>
first_call warm_up(F&& f, const wgprim::run_stats& st) {
  f();
  return {st.compile_ms, st.gpu_ms};
}

/// The text of a JSON value put by put_value (or a double), for the report: the round-trip digits, grouped.
std::string text_of(const nlohmann::json& j, const std::string& key);
/// The warning of a sum that wrapped, on stderr.
void warn_overflow(const nlohmann::json& j);

/// The reduce of `a` on ctx, timed (median of --repeat) and compared with the CPU twin; the report as JSON.
nlohmann::json reduce_and_check(wgprim::context& ctx, const reduce_scan_cli& c, const wgprim::io::array& a);
void print_reduce(const nlohmann::json& j);
/// The scan of `a` into `out`, timed and compared with the CPU twin; the report as JSON.
nlohmann::json scan_and_check(wgprim::context& ctx, const reduce_scan_cli& c, const wgprim::io::array& a,
                              std::vector<std::uint32_t>& out);
void print_scan(const nlohmann::json& j, std::FILE* to);

// ---- reduce --op argmin|argmax (reduce_arg.cpp)
struct arg_reduce_cli {
  std::string adapter, op, algorithm;
  bool json = false;
  wgprim::tuning tune;
  int repeat = 1;
  std::string identity, accuracy, plot;  // not for argmin/argmax: rejected when given
};
bool is_arg_reduce_op(const std::string& op);
int run_arg_reduce(const arg_reduce_cli& a, const wgprim::io::array& data);

// ---- reduce --transform EXPR: transform-reduce / count-if (reduce_transform.cpp)
struct transform_reduce_cli {
  std::string adapter, transform, op, identity, algorithm, accuracy, plot;
  bool json = false;
  wgprim::tuning tune;
  int repeat = 1;
};
int run_transform_reduce(const transform_reduce_cli& a, const wgprim::io::array& data);

// ---- reduce and scan over f64, i64, u64, f16, u8, i8, and --accumulate wide (reduce_scan_typed.cpp)
struct typed_cli {
  std::string adapter, op, identity, algorithm, accuracy, output, output_format, accumulate;
  bool json = false, exclusive = false, no_check = false;
  wgprim::tuning tune;
  int repeat = 1;
};
/// Whether reduce/scan of `a` go through reduce_scan_typed.cpp (a type beyond f32/i32/u32, or --accumulate wide).
bool wants_typed(const wgprim::io::array& a, const std::string& accumulate);
int run_reduce_typed(const typed_cli& c, const wgprim::io::array& a);
int run_scan_typed(const typed_cli& c, const wgprim::io::array& a);
inline typed_cli typed_of(const reduce_scan_cli& c) {
  return {c.adapter, c.op,   c.identity,  c.algorithm, c.accuracy, c.output, c.output_format,
          c.accumulate, c.json, c.exclusive, c.no_check, c.tune,     c.repeat};
}

// ---- reduce --segments / --keys, scan --segments (segmented.cpp)
/// Adds --segments, --keys, --keys-output and --output to reduce (is_scan false), or --segments to scan; the
/// returned function runs the segmented form, or returns -1 when it was not asked for (the plain command then runs).
std::function<int()> add_segmented_options(CLI::App* s, const reduce_scan_cli& c, bool is_scan);
