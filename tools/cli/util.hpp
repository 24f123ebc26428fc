// Small things every command uses: wall-clock milliseconds, number text, the checks of the whole command line.
#pragma once
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "wgprim/wgprim.hpp"

namespace CLI { class App; }

/// Calls f with a value of the C++ type of t, a 32-bit type (for the typed public API); any other type as u32.
template <class F>
auto with_type(wgprim::dtype t, F f) {
  switch (t) {
    case wgprim::dtype::f32: return f(float{});
    case wgprim::dtype::i32: return f(std::int32_t{});
    default: return f(std::uint32_t{});
  }
}

/// The same for the 64-bit types f64 and i64 (any other type as i64).
template <class F>
auto with_wide_type(wgprim::dtype t, F f) {
  if (t == wgprim::dtype::f64) return f(double{});
  return f(std::int64_t{});
}

/// Milliseconds of wall time since t0.
inline double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

/// Runs `once` until its wall time per run settles, before anything is timed. A GPU left idle (seconds of host work
/// generating an input, a new process) runs at low clocks for a while: on the H200 a 2^28 reduce-by-key took 3.2 ms
/// per call after 50 ms of warm-up and 1.2 ms after 1 s (session 13). Windows of at least `window` ms; stops after
/// the first window whose median run is no more than 3 % faster than the previous window's, not before 500 ms, or
/// after `cap_ms`. Only when the GPU's last known work (note_gpu_busy) ended more than a second ago (it may have
/// idled): a GPU busy since runs `once` one time.
void warm_until_steady(const std::function<void()>& once, int window_ms, int cap_ms = 3000);
/// The GPU has just run work (a case's timed runs): the next warm-up within a second needs no 500 ms floor.
void note_gpu_busy();

/// |v| with `decimals` decimals and thousands separators ("1,234.5").
std::string with_commas(double v, int decimals);

/// A number with all the digits that make it read back the same (as a float when is_f32), in fixed notation with
/// thousands separators where that is readable (1e-5 .. 1e15), else in exponent notation.
std::string round_trip_text(double v, bool is_f32);

/// --plot FILE.png: refused before any work when it is a folder or not a .png, or its folder is not writable.
void check_plot_path(const std::string& path);

/// CLI11's messages can span lines; ours are one.
std::string one_line(std::string s);

/// An option given an empty value (`--segments ''`) is refused, not read as an option not given.
void refuse_empty_values(const CLI::App& app);

/// Two outputs of one command naming one file are refused before any work (options ending in "output", --plot).
void refuse_shared_outputs(const CLI::App& app);
/// Refuses two input options that both read standard input ("-").
void refuse_shared_stdin(const CLI::App& app);

/// A device buffer holding `v` (at least 4 bytes, so that an empty array still binds).
wgprim::buffer upload_words(wgprim::context& ctx, const std::vector<std::uint32_t>& v);
/// The first n words of `b`.
std::vector<std::uint32_t> download_words(wgprim::context& ctx, const wgprim::buffer& b, std::size_t n);

/// Runs f `repeat` times; the median of st.gpu_ms after each run.
template <class F>
double timed_median(int repeat, wgprim::run_stats& st, F f) {
  std::vector<double> t;
  for (int r = 0; r < repeat; ++r) {
    f();
    t.push_back(st.gpu_ms);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

/// The report of a run that counts mismatches (n, type, adapter, algorithm, segments or runs, mismatches, gpu_ms,
/// upload_ms, cpu_ms): printed as JSON or as text about `what`; exit code 1 when a result differs from the CPU twin.
/// Where a command's report (text or --json) goes: standard error when its data goes to standard output
/// (`--output -`), so that the data can be piped into another command; standard output otherwise.
std::FILE* report_file(const std::string& output);
int finish_report(const nlohmann::json& j, bool as_json, const char* what, const std::string& output = "");
