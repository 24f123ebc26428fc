#include "util.hpp"

#include <fmt/format.h>
#include <sys/stat.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <utility>
#include <vector>

#include "wgprim/error.hpp"
#include "wgprim/io.hpp"

using namespace wgprim;

namespace {
std::chrono::steady_clock::time_point gpu_busy_at{};
}  // namespace

void note_gpu_busy() { gpu_busy_at = std::chrono::steady_clock::now(); }

void warm_until_steady(const std::function<void()>& once, int window_ms, int cap_ms) {
  using clock = std::chrono::steady_clock;
  // The GPU's last known work (a warm-up's end, or the timed runs after it: note_gpu_busy): more than a second ago,
  // the GPU may have idled long enough to drop its clocks, and a slow kernel's time is as steady at the low clock
  // as at the high one (H200, session 14: the 256-bin histogram's 1.9 ms against 0.34 was its SM clock at 345 MHz
  // against 1,980, nvidia-smi beside the runs; a busy GPU took ~0.3 s to raise it). Then the case runs at least
  // 500 ms before its time may count as settled. A GPU busy less than a second ago kept its clocks: one run (the
  // new case's first dispatch) is all it needs, so that a sweep of hundreds of cases (`wgprim bench`'s defaults)
  // is not spent warming (call 5 of session 14: 152 s for 902 rows with windows for every case).
  const auto start = clock::now();
  const bool idled = gpu_busy_at == clock::time_point{} ||
                     std::chrono::duration<double, std::milli>(start - gpu_busy_at).count() > 1000;
  struct mark {
    ~mark() { note_gpu_busy(); }
  } at_end;
  if (!idled) {
    once();
    return;
  }
  const double floor_ms = 500;
  double last = 0;
  while (ms_since(start) < cap_ms) {
    std::vector<double> runs;
    const auto w0 = clock::now();
    do {
      const auto t0 = clock::now();
      once();
      runs.push_back(ms_since(t0));
    } while (ms_since(w0) < window_ms && runs.size() < 100000);
    std::nth_element(runs.begin(), runs.begin() + runs.size() / 2, runs.end());
    const double med = runs[runs.size() / 2];
    if (last > 0 && med >= 0.97 * last && ms_since(start) >= floor_ms) return;
    last = med;
  }
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

void check_plot_path(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    throw error(errc::invalid_argument, "--plot '" + path + "' is a directory; give a .png file name");
  if (path.size() < 4 || path.compare(path.size() - 4, 4, ".png") != 0)
    throw error(errc::invalid_argument, "--plot '" + path + "': the picture is a PNG; name it FILE.png");
  io::check_writable(path, "bin");  // the folder exists and is writable (a PNG, checked as any file; issue 29 row 11)
}

std::string one_line(std::string s) {
  for (char& ch : s)
    if (ch == '\n' || ch == '\r') ch = ' ';
  while (!s.empty() && s.back() == ' ') s.pop_back();
  // Bytes a terminal would not show as text (control bytes, bytes outside valid UTF-8; e.g. a parser quoting a
  // binary file) are written as \xNN; UTF-8 text (file names) stays as it is.
  std::string out;
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const std::size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
    bool ok = len > 0 && i + len <= s.size() && !(len == 1 && (c < 0x20 || c == 0x7f)) && !(len == 2 && c < 0xc2);
    for (std::size_t k = 1; ok && k < len; ++k) ok = (static_cast<unsigned char>(s[i + k]) >> 6) == 0x2;
    if (ok) {
      out.append(s, i, len);
      i += len;
    } else {
      static const char hex[] = "0123456789abcdef";
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
      ++i;
    }
  }
  return out;
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

// Two input options reading standard input (`--input - --segments -`): the second read found it empty and said
// "the file is empty" (hostile trial, 2026-12-03): refused, naming both.
void refuse_shared_stdin(const CLI::App& app) {
  for (const CLI::App* s : app.get_subcommands()) {
    std::vector<std::string> readers;
    for (const CLI::Option* o : s->get_options()) {
      const std::string name = o->get_name();
      const bool is_output = name == "--plot" || (name.size() >= 6 && name.compare(name.size() - 6, 6, "output") == 0);
      if (!is_output && o->count())
        for (const std::string& r : o->results())
          if (r == "-") readers.push_back(name.empty() ? std::string("the input") : name);
    }
    if (readers.size() > 1)
      throw error(errc::invalid_argument, readers[0] + " and " + readers[1] +
                                              " both read standard input (-); give all but one of them a file");
  }
}

buffer upload_words(context& ctx, const std::vector<std::uint32_t>& v) {
  buffer b = ctx.create_buffer(std::max<std::size_t>(v.size(), 1) * 4);
  if (!v.empty()) ctx.write(b, 0, v.data(), v.size() * 4);
  return b;
}

std::vector<std::uint32_t> download_words(context& ctx, const buffer& b, std::size_t n) {
  std::vector<std::uint32_t> v(n);
  if (n) ctx.read(b, 0, v.data(), n * 4);
  return v;
}

std::FILE* report_file(const std::string& output) { return output == "-" ? stderr : stdout; }

int finish_report(const nlohmann::json& j, bool as_json, const char* what, const std::string& output) {
  std::FILE* rf = report_file(output);
  const std::size_t mism = j["mismatches"].get<std::size_t>();
  if (as_json) {
    fmt::print(rf, "{}\n", j.dump());
  } else {
    // No segments ran no algorithm: that printed "(algorithm )" (issue 29 row 11).
    const std::string alg = j["algorithm"].get<std::string>();
    fmt::print(rf, "{} over {} {} values on {} ({})\n", what, j["n"].get<std::size_t>(), j["type"].get<std::string>(),
               j["adapter"].get<std::string>(), alg.empty() ? "no segments: nothing ran" : "algorithm " + alg);
    if (j.contains("segments")) fmt::print(rf, "  {} segments\n", j["segments"].get<std::size_t>());
    if (j.contains("runs")) fmt::print(rf, "  {} runs\n", j["runs"].get<std::size_t>());
    fmt::print(rf, "  {}\n", mism ? fmt::format("{} results differ from the CPU twin", mism)
                              : std::string("every result matches the CPU twin"));
    fmt::print(rf, "  {} time {:.3f} ms, upload {:.3f} ms, CPU loop {:.3f} ms\n",
               j["adapter"].get<std::string>().rfind("native CPU", 0) == 0 ? "native" : "GPU",
               j["gpu_ms"].get<double>(), j["upload_ms"].get<double>(), j["cpu_ms"].get<double>());
  }
  if (mism) {
    std::cerr << "wgprim: error: " << mism << " results differ from the CPU twin\n";
    return 1;
  }
  return 0;
}
